package planner

import (
	"testing"

	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

func TestAppendOnly(t *testing.T) {
	cols := []Column{{"x", types.TypeInt8}}
	cold := &Get{Name: "cold", Cols: cols, AppendOnly: true}
	table := &Get{Name: "t", Cols: cols}
	x := &scalar.ColRef{Idx: 0, Typ: types.TypeInt8}
	on := scalar.NewConst(types.NewBool(true), types.TypeBool)
	for _, tc := range []struct {
		name             string
		plan             Node
		maintained, once bool // append-only in a maintained view, in a one-tick query
	}{
		{"cold get", cold, true, true},
		{"table get", table, false, true},
		{"constant rows", &Values{Cols: cols}, true, true},
		{"filter", &Filter{Input: cold, Pred: on}, true, true},
		{"project", &Project{Input: cold, Exprs: []scalar.Expr{x}, Cols: cols}, true, true},
		{"inner join", &Join{Kind: InnerJoin, Left: cold, Right: cold, On: on}, true, true},
		{"inner join with a table", &Join{Kind: InnerJoin, Left: cold, Right: table, On: on}, false, true},
		{"left join", &Join{Kind: LeftJoin, Left: cold, Right: cold, On: on}, false, false},
		{"anti join", &Join{Kind: AntiJoin, Left: cold, Right: cold, On: on}, false, false},
		{"union all", &SetOp{Kind: Union, All: true, Left: cold, Right: cold}, true, true},
		{"union", &SetOp{Kind: Union, Left: cold, Right: cold}, false, false},
		{"except all", &SetOp{Kind: Except, All: true, Left: cold, Right: cold}, false, false},
		{"aggregate", &Aggregate{Input: cold, Cols: cols}, false, false},
		{"distinct", &Distinct{Input: cold}, false, false},
		{"top-k", &TopK{Input: cold}, false, false},
		{"window", &Window{Input: cold}, false, false},
		{"filter over a top-k", &Filter{Input: &TopK{Input: cold}, Pred: on}, false, false},
	} {
		if got := appendOnly(tc.plan, false); got != tc.maintained {
			t.Errorf("%s: appendOnly = %v, want %v", tc.name, got, tc.maintained)
		}
		if got := appendOnly(tc.plan, true); got != tc.once {
			t.Errorf("%s: one-tick appendOnly = %v, want %v", tc.name, got, tc.once)
		}
	}
}
