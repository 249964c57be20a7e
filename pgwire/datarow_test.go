package pgwire

import (
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/types"
)

// TestDataRowEncoding checks the hand-written DataRow and RowDescription
// encoders against pgproto3's decoders, for every format rule.
func TestDataRowEncoding(t *testing.T) {
	row, cols := benchRow()
	cfg := types.DefaultTextConfig()
	perColumn := make([]int16, len(cols))
	for i := range perColumn {
		perColumn[i] = int16(i % 2)
	}
	for _, tc := range []struct {
		name    string
		formats []int16
	}{{"none", nil}, {"one text", []int16{0}}, {"one binary", []int16{1}}, {"each", perColumn}} {
		t.Run(tc.name, func(t *testing.T) {
			buf := appendDataRow([]byte("prefix"), row, cols, tc.formats, cfg)
			if string(buf[:6]) != "prefix" || buf[6] != 'D' {
				t.Fatalf("bad framing %q", buf[:7])
			}
			var dr pgproto3.DataRow
			if err := dr.Decode(buf[11:]); err != nil {
				t.Fatal(err)
			}
			if len(dr.Values) != len(row) {
				t.Fatalf("%d values", len(dr.Values))
			}
			for i, d := range row {
				var want []byte
				switch {
				case d.IsNull():
				case formatOf(tc.formats, i) == formatBinary:
					want = types.AppendBinary(nil, d, cols[i].Type)
				default:
					want = types.AppendText(nil, d, cols[i].Type, cfg)
				}
				if string(dr.Values[i]) != string(want) || (dr.Values[i] == nil) != d.IsNull() {
					t.Errorf("column %d: got %q, want %q", i, dr.Values[i], want)
				}
			}

			buf = appendRowDescription(nil, cols, tc.formats)
			var rd pgproto3.RowDescription
			if err := rd.Decode(buf[5:]); err != nil {
				t.Fatal(err)
			}
			for i, f := range rd.Fields {
				c := cols[i]
				if string(f.Name) != c.Name || f.DataTypeOID != c.Type.OID() || f.DataTypeSize != c.Type.Size() ||
					f.TypeModifier != c.Type.TypMod() || f.Format != formatOf(tc.formats, i) {
					t.Errorf("field %d: %+v", i, f)
				}
			}
		})
	}
}

func TestWithRowCount(t *testing.T) {
	for _, tc := range []struct {
		tag  string
		rows int
		want string
	}{
		{"SELECT 10", 3, "SELECT 3"},
		{"INSERT 0 5", 0, "INSERT 0 0"},
		{"SHOW", 0, "SHOW"},
		{"CREATE TABLE", 0, "CREATE TABLE"},
		{"", 0, ""},
	} {
		if got := withRowCount(tc.tag, tc.rows); got != tc.want {
			t.Errorf("withRowCount(%q, %d) = %q, want %q", tc.tag, tc.rows, got, tc.want)
		}
	}
}
