package kafka

import (
	"testing"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

func newCSV(t *testing.T, n int, delim byte, declared ...sources.Column) (decoder, []sources.Column) {
	t.Helper()
	d, cols, err := valueDecoder(Format{Kind: FormatCSV, CSVColumns: n, CSVDelimiter: delim}, declared)
	if err != nil {
		t.Fatal(err)
	}
	return d, cols
}

func TestCSV(t *testing.T) {
	for _, tc := range []struct {
		n     int
		delim byte
		in    string
		want  string
		code  pgerr.Code
	}{
		{3, 0, "a,b,c", "(a, b, c)", ""},
		{3, 0, "a,b,c\n", "(a, b, c)", ""},
		{3, 0, "a,b,c\r\n", "(a, b, c)", ""},
		{3, 0, `"a,1","say ""hi""",`, `(a,1, say "hi", )`, ""},
		{2, 0, `"quoted"tail,x`, "(quotedtail, x)", ""},
		{2, 0, `bare"quote,x`, `(bare"quote, x)`, ""},
		{2, 0, "\"multi\nline\",x", "(multi\nline, x)", ""},
		{1, 0, "", "()", ""},
		{2, '|', "a,b|c", "(a,b, c)", ""},
		{2, '\t', "a\tb", "(a, b)", ""},
		{2, 0, "a,b,c", "", pgerr.BadCopyFileFormat},
		{2, 0, "a", "", pgerr.BadCopyFileFormat},
		{2, 0, "a,b\nc,d", "", pgerr.BadCopyFileFormat},
		{2, 0, `"open,b`, "", pgerr.BadCopyFileFormat},
		{1, 0, "\xff", "", pgerr.CharacterNotInRepertoire},
		{1, 0, "a\x00b", "", pgerr.CharacterNotInRepertoire},
	} {
		d, cols := newCSV(t, tc.n, tc.delim)
		row := make(types.Row, tc.n)
		err := d.decode(row, []byte(tc.in))
		if tc.code != "" {
			if e := pgerr.As(err); e == nil || e.Code != tc.code {
				t.Errorf("decode(%q) = %v, want SQLSTATE %s", tc.in, err, tc.code)
			}
			continue
		}
		if err != nil {
			t.Errorf("decode(%q): %v", tc.in, err)
			continue
		}
		if got := formatRow(cols, row); got != tc.want {
			t.Errorf("decode(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestCSVTyped(t *testing.T) {
	d, cols := newCSV(t, 3, 0, col("id", types.TypeInt4), col("day", types.TypeDate), col("note", types.TypeUnknown))
	row := make(types.Row, 3)
	if err := d.decode(row, []byte("7,2024-02-29,hello")); err != nil {
		t.Fatal(err)
	}
	if got, want := formatRow(cols, row), "(7, 2024-02-29, hello)"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	err := d.decode(row, []byte("x,2024-02-29,hello"))
	if e := pgerr.As(err); e == nil || e.Code != pgerr.InvalidTextRepresentation || e.Message != `column "id": invalid input syntax for type integer: "x"` {
		t.Fatalf("got %v", err)
	}
}
