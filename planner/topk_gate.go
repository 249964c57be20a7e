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
// top-k is to bind when Physical fused its input join with it.
func lowerTopKInput(lc *LowerContext, t *TopK) (dataflow.Node, *dataflow.TopKGate, error) {
	if !t.Gated {
		in, err := Lower(lc, t.Input)
		return in, nil, err
	}
	jg := &joinGate{gate: new(dataflow.TopKGate), cols: gateColumns(t)}
	in, err := lowerJoin(lc, t.Input.(*Join), joinFusion{gate: jg})
	return in, jg.gate, err
}

// gatable reports whether the join top-k t reads can drop what t would
// refuse: an inner join only t reads, whose residual cannot fail, under
// a monotonic top-k that orders by plain columns.
func (p *physical) gatable(t *TopK) bool {
	j, ok := t.Input.(*Join)
	if !ok || t.Limit == nil || !p.fusable(j) {
		return false
	}
	order := make([]scalar.Expr, len(t.Order))
	for i, k := range t.Order {
		order[i] = k.Expr
	}
	_, ok = columnIndexes(order)
	return ok
}

// gateColumns returns the columns of a gated join's output the gate
// reads: the top-k's group, then order columns.
func gateColumns(t *TopK) []int {
	cols := append([]int(nil), t.Group...)
	for _, k := range t.Order {
		cols = append(cols, k.Expr.(*scalar.ColRef).Idx)
	}
	return cols
}
