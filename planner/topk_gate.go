package planner

import (
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/planner/scalar"
)

// A monotonic top-k over an inner join lets the join drop the matches it
// would refuse before building them (see dataflow.TopKGate). The top-1
// bid per auction of Nexmark q6 and q9 refuses nearly every bid: the
// join built each as a row of both inputs, ~1 KB of Datums, filtered it
// by the auction's time range and handed it to the top-k to be compared
// and dropped; with the gate it builds the group and order columns into
// a scratch row and compares them with the group's last kept row.
//
// The gate is sound only when every match the join emits would reach
// the top-k with the same group and order columns, and without an error:
// the top-k's input is the join itself, which it alone reads and whose
// residual cannot fail (see fusableJoin), and the top-k orders by plain
// columns.

// joinGate is a top-k's gate and the columns of the join's output row it
// reads: the top-k's group and order columns.
type joinGate struct {
	gate *dataflow.TopKGate
	cols []int
}

// lowerTopKInput lowers a top-k's input, returning with it the gate the
// top-k is to bind when its input is a join that honours one.
func lowerTopKInput(lc *LowerContext, t *TopK) (dataflow.Node, *dataflow.TopKGate, error) {
	j, cols, ok := gatedJoin(lc, t)
	if !ok {
		in, err := Lower(lc, t.Input)
		return in, nil, err
	}
	jg := &joinGate{gate: new(dataflow.TopKGate), cols: cols}
	in, err := lowerJoin(lc, j, joinFusion{gate: jg})
	return in, jg.gate, err
}

// gatedJoin returns the join top-k t reads and the columns of its output
// the gate reads (t's group, then order columns) when the join can drop
// what t would refuse; EXPLAIN DATAFLOW asks it too.
func gatedJoin(lc *LowerContext, t *TopK) (*Join, []int, bool) {
	j, ok := t.Input.(*Join)
	if !ok || t.Limit == nil || !fusableJoin(lc, j) || !appendOnly(t.Input, lc.OneTick) {
		return nil, nil, false
	}
	order := make([]scalar.Expr, len(t.Order))
	for i, k := range t.Order {
		order[i] = k.Expr
	}
	cols, ok := columnIndexes(order)
	if !ok {
		return nil, nil, false
	}
	return j, append(append([]int(nil), t.Group...), cols...), true
}
