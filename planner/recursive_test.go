package planner

import (
	"testing"

	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// TestRecursiveExternals checks which parts of a step are lowered once,
// outside the iterations: a table the step joins is; a recursive query
// nested in the step whose base reads the outer working table (a
// decorrelated subquery's) is not, and neither is its own step, which
// reads only its own working table and runs in its own iterations.
func TestRecursiveExternals(t *testing.T) {
	cols := []Column{{"n", types.TypeInt8}}
	table := &Get{Name: "t", Cols: cols}
	outerWork := &WorkTable{Name: "outer", ID: 1, Cols: cols}
	innerWork := &WorkTable{Name: "inner", ID: 2, Cols: cols}
	inner := &Recursive{Name: "inner", ID: 2, Base: outerWork,
		Step: &Filter{Input: innerWork, Pred: scalar.NewConst(types.DTrue, types.TypeBool)}, Cols: cols}
	on := scalar.NewConst(types.DTrue, types.TypeBool)
	outer := &Recursive{Name: "outer", ID: 1, Base: table, Cols: cols,
		Step: &Join{Kind: InnerJoin, Left: inner, Right: table, On: on}}
	ext := recursiveExternals(outer)
	if len(ext) != 1 || ext[0] != table {
		t.Errorf("externals %v, want only the table", ext)
	}
	for _, tc := range []struct {
		name string
		n    Node
		want bool
	}{
		{"table", table, false},
		{"working table", innerWork, true},
		{"nested step", inner.Step, true},
		{"nested recursion", inner, true}, // its base reads the outer working table
		{"closed recursion", &Recursive{ID: 3, Base: table, Step: &WorkTable{ID: 3, Cols: cols}, Cols: cols}, false},
	} {
		if got := readsFreeWorkTable(tc.n); got != tc.want {
			t.Errorf("%s: readsFreeWorkTable = %v, want %v", tc.name, got, tc.want)
		}
	}
}
