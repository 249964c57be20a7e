package planner

import (
	"testing"

	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// TestComparatorNulls checks the order of NULL against a value in each
// direction, both ways round: NULLs sort last ascending and first
// descending unless NULLS FIRST/LAST says otherwise, as in PostgreSQL.
func TestComparatorNulls(t *testing.T) {
	one := types.Row{types.NewInt4(1)}
	null := types.Row{types.Null}
	two := types.Row{types.NewInt4(2)}
	tests := []struct {
		name       string
		desc       bool
		nullsFirst bool
		a, b       types.Row
		want       int
	}{
		{"asc nulls last", false, false, one, null, -1},
		{"asc nulls last reversed", false, false, null, one, 1},
		{"asc nulls first", false, true, one, null, 1},
		{"asc nulls first reversed", false, true, null, one, -1},
		{"desc nulls first", true, true, one, null, 1},
		{"desc nulls last", true, false, null, one, 1},
		{"both null", false, false, null, null, 0},
		{"values asc", false, false, one, two, -1},
		{"values desc", true, true, one, two, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmp := Comparator([]SortKey{{Expr: &scalar.ColRef{Idx: 0}, Desc: tt.desc, NullsFirst: tt.nullsFirst}})
			if got := cmp(tt.a, tt.b); got != tt.want {
				t.Errorf("compare(%v, %v) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
		})
	}
}
