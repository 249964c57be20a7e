package engine

import (
	"strings"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// TestRowReader checks the decoding of a query's scan: whole rows without
// needed columns, the needed columns alone with NULL elsewhere, and one
// shared row of NULLs when no column is needed.
func TestRowReader(t *testing.T) {
	row := types.Row{types.NewInt8(7), types.NewText("url"), types.NewInt4(3)}
	enc := types.AppendRow(nil, row)
	only := func(cols ...int) func(int) bool {
		return func(c int) bool {
			for _, k := range cols {
				if c == k {
					return true
				}
			}
			return false
		}
	}
	for _, tc := range []struct {
		name string
		keep func(int) bool
		want string
	}{
		{"whole", nil, "(7,url,3)"},
		{"some", only(0, 2), "(7,,3)"},
		{"one", only(1), "(,url,)"},
		{"none", only(), "(,,)"},
	} {
		r := NewRowReader(len(row), tc.keep)
		got, err := r.Decode(enc)
		if err != nil {
			t.Fatal(err)
		}
		if s := showRow(got); s != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, s, tc.want)
		}
		again, _ := r.Decode(enc)
		if shared := &got[0] == &again[0]; shared != (tc.name == "none") {
			t.Errorf("%s: rows shared %v", tc.name, shared)
		}
	}
}

// showRow prints a row as (a,b,c), NULL as nothing.
func showRow(row types.Row) string {
	cols := make([]string, len(row))
	for i, d := range row {
		if !d.IsNull() {
			cols[i] = types.FormatText(d, types.Type{Family: d.Kind(), Mod: -1}, nil)
		}
	}
	return "(" + strings.Join(cols, ",") + ")"
}
