package dataflow

import (
	"bytes"

	"github.com/streamdb/streamdb/sql/types"
)

// TopKGate lets an operator upstream of a MonotonicTopK drop the rows the
// top-k would refuse, before it builds them. A monotonic top-k refuses a
// row that sorts at or after its group's last kept row once the group is
// full, and since its input only grows, a group's last kept row only
// moves forward: a row refused by the window of the previous tick is
// refused by every later one. Of an auction's bids joined with it under
// a top-1 per auction (Nexmark q6 and q9) the n-th bid enters with
// probability 1/n, so the join builds, and the filters between it and
// the top-k evaluate, a few rows instead of every bid.
//
// The gate reads the top-k's state as its last Step left it, so the
// upstream operator must run before the top-k in the tick (it is an
// input of it), and every row it drops must otherwise have reached the
// top-k unchanged in the columns of its group and order and without an
// error: the planner gates only a join whose rows go to the top-k
// through filters that cannot fail. A gate is bound by passing it in
// the TopKSpec of a MonotonicTopK; until then, or when the top-k is a
// TopK, it admits every row.
type TopKGate struct {
	op   *monoTopKOp
	kbuf []byte
}

// Admits reports whether row may enter its group's window: false only
// when the group is full and row sorts strictly after its last row.
// Only the columns of the top-k's group and order are read; a row whose
// sort key ties with the last row's is admitted, since the order then
// depends on the whole row.
func (g *TopKGate) Admits(row types.Row) bool {
	op := g.op
	if op == nil {
		return true
	}
	if op.m <= 0 {
		return false
	}
	var key types.Row
	if op.spec.Group != nil {
		key = op.spec.Group(row)
	}
	p := op.index.find(key, op.index.hash(key))
	if p < 0 {
		return true
	}
	grp := op.groups[p]
	if grp.units < op.m {
		return true
	}
	last := grp.rows[len(grp.rows)-1].item
	if op.spec.SortKey == nil {
		return op.spec.Compare == nil || op.spec.Compare(row, last.row) <= 0
	}
	g.kbuf = op.spec.SortKey(g.kbuf[:0], row)
	if c := headOf(g.kbuf).compare(last.head); c != 0 {
		return c < 0
	}
	return bytes.Compare(g.kbuf, stored(last.e.key)) <= 0
}
