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
