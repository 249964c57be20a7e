package planner

import (
	"errors"
	"testing"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// TestRemoveApplyBadReference checks that an outer reference past the
// enclosing row, which only a planner bug makes (an oracle soak met one
// in a CREATE TABLE AS), fails decorrelation with an internal error
// rather than a panic: planning runs on the coordinator, and a panic
// there takes the server down.
func TestRemoveApplyBadReference(t *testing.T) {
	cols := []Column{{"x", types.TypeInt8}, {"y", types.TypeInt8}}
	left := &Get{Name: "t", Cols: cols}
	ref := &OuterRef{Depth: 1, Idx: 5, Typ: types.TypeInt8}
	right := &Filter{Input: &Get{Name: "u", Cols: cols}, Pred: &scalar.IsDistinctFrom{L: &scalar.ColRef{Idx: 0, Typ: types.TypeInt8}, R: ref, Not: true}}
	_, err := removeApplies(&Apply{Kind: InnerJoin, Left: left, Right: right})
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != pgerr.InternalError {
		t.Fatalf("removeApplies: %v, want an internal error", err)
	}
}

// TestRemoveApplyRecursive decorrelates a subquery whose recursive
// query's base reads the enclosing row (asyncpg's type introspection:
// the base types of a domain): the recursion runs once for the whole
// domain, its working table carrying the domain column, and the table
// the step joins stays whole instead of being paired with every domain
// row.
func TestRemoveApplyRecursive(t *testing.T) {
	i8 := types.TypeInt8
	col := func(i int) scalar.Expr { return &scalar.ColRef{Idx: i, Typ: i8} }
	eq, _, err := scalar.ResolveBinaryOp("=", i8, i8)
	if err != nil {
		t.Fatal(err)
	}
	ty := &Get{Name: "ty", Cols: []Column{{"oid", i8}, {"base", i8}}}
	rcols := []Column{{"oid", i8}}
	work := &WorkTable{Name: "bases", ID: 7, Cols: rcols}
	base := &Project{Input: &Filter{Input: ty, Pred: &scalar.Call{Fn: eq, Args: []scalar.Expr{col(0), &OuterRef{Depth: 1, Idx: 0, Typ: i8}}}},
		Exprs: []scalar.Expr{col(1)}, Cols: rcols}
	step := &Project{Input: &Join{Kind: InnerJoin, Left: ty, Right: work, On: &scalar.Call{Fn: eq, Args: []scalar.Expr{col(2), col(0)}}},
		Exprs: []scalar.Expr{col(1)}, Cols: rcols}
	rec := &Recursive{Name: "bases", ID: 7, Base: base, Step: step, Cols: rcols}
	plan, err := removeApplies(&Apply{Kind: InnerJoin, Left: ty, Right: rec})
	if err != nil {
		t.Fatal(err)
	}
	var recs []*Recursive
	Walk(plan, func(n Node) bool {
		switch x := n.(type) {
		case *Apply:
			t.Errorf("an Apply is left: %s", ExplainNode(plan))
		case *Recursive:
			recs = append(recs, x)
		}
		return true
	})
	if HasOuterRefs(plan, 1) {
		t.Errorf("outer references are left: %s", ExplainNode(plan))
	}
	if len(recs) != 1 {
		t.Fatalf("%d recursive queries, want 1: %s", len(recs), ExplainNode(plan))
	}
	r := recs[0]
	if len(r.Cols) != 2 {
		t.Errorf("recursion's columns %v, want the domain column and oid", r.Cols)
	}
	Walk(r.Step, func(n Node) bool {
		if w, ok := n.(*WorkTable); ok && len(w.Cols) != 2 {
			t.Errorf("working table columns %v, want the domain column and oid", w.Cols)
		}
		if d, ok := n.(*Distinct); ok {
			t.Errorf("the step reads the domain (%s): the joined table is paired with it", ExplainNode(d))
		}
		return true
	})
	if got := len(plan.Columns()); got != 3 {
		t.Errorf("%d columns, want ty's two and the subquery's", got)
	}
}
