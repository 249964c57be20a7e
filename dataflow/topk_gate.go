package dataflow

import (
	"bytes"
	"slices"

	"github.com/streamdb/streamdb/types"
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
// input of it), and every row it admits, and every row it drops, must
// otherwise reach the top-k unchanged in the columns of its group and
// order, without an error and with a positive weight: the planner gates
// only a join whose rows go to the top-k through filters that cannot
// fail, and tests those filters before the gate. A gate is bound by
// passing it in the TopKSpec of a MonotonicTopK; until then, or when the
// top-k is a TopK, it admits every row.
//
// Within a tick the gate also counts the rows it admitted: they are on
// their way to the top-k, so once a group has m of them (m the window's
// units), a row sorting after all of them cannot enter either. A hot
// auction's bids in one tick are mostly compared with its best bids of
// that tick, not only with those of the ticks before. This needs the
// sort keys of the admitted rows (with a Compare it would need copies of
// the rows), so it is done with a SortKey and a window of at most
// gateTickMax units.
type TopKGate struct {
	op   *monoTopKOp
	kbuf []byte
	// tick is the graph tick the per-tick state is of; keys holds, per
	// group touched in it (at its monoTopKGroup.gateAt), up to m sort
	// keys of admitted rows in order, and counts how many.
	tick   uint64
	keys   []string
	counts []int
}

// gateTickMax is the largest window whose tick's admitted rows the gate
// keeps: the top-N-per-group case, where it keeps N keys per group.
const gateTickMax = 16

// Admits reports whether row may enter its group's window: false only
// when the group's window is full and row sorts strictly after its last
// row, or when m rows admitted to the group in this tick sort strictly
// before it. Only the columns of the top-k's group and order are read; a
// row whose sort key ties is admitted, since the order then depends on
// the whole row.
func (g *TopKGate) Admits(row types.Row) bool {
	op := g.op
	if op == nil {
		return true
	}
	if op.m <= 0 {
		return false
	}
	if op.spec.SortKey == nil {
		return g.admitsCompare(row)
	}
	g.kbuf = op.spec.SortKey(g.kbuf[:0], row)
	if op.m > gateTickMax {
		grp := g.find(row)
		return grp == nil || grp.units < op.m || !g.afterLast(grp)
	}
	// The group is created for a row that is admitted: the row is on its
	// way to the top-k, which would create it.
	grp := op.lookup(row)
	if grp.units >= op.m && g.afterLast(grp) {
		return false
	}
	if g.tick != op.g.tick {
		g.tick = op.g.tick
		clear(g.keys)
		g.keys, g.counts = g.keys[:0], g.counts[:0]
	}
	if grp.gateTick != g.tick {
		grp.gateTick, grp.gateAt = g.tick, int32(len(g.counts))
		g.counts = append(g.counts, 0)
		g.keys = append(g.keys, make([]string, op.m)...)
	}
	m := int(op.m)
	n := g.counts[grp.gateAt]
	keys := g.keys[int(grp.gateAt)*m : int(grp.gateAt)*m+m]
	i, _ := slices.BinarySearchFunc(keys[:n], g.kbuf, func(k string, key []byte) int { return bytes.Compare(stored(k), key) })
	if i == m {
		return false
	}
	if n < m {
		n++
		g.counts[grp.gateAt] = n
	}
	copy(keys[i+1:n], keys[i:n-1])
	keys[i] = string(g.kbuf)
	return true
}

// find returns the group of row, or nil when it has none yet.
func (g *TopKGate) find(row types.Row) *monoTopKGroup {
	op := g.op
	var key types.Row
	if op.spec.Group != nil {
		key = op.spec.Group(row)
	}
	p := op.index.find(key, op.index.hash(key))
	if p < 0 {
		return nil
	}
	return op.groups[p]
}

// afterLast reports whether the sort key in kbuf sorts strictly after
// the last row of the group's window.
func (g *TopKGate) afterLast(grp *monoTopKGroup) bool {
	last := grp.rows[len(grp.rows)-1].item
	if c := headOf(g.kbuf).compare(last.head); c != 0 {
		return c > 0
	}
	return bytes.Compare(g.kbuf, sortKey(last.e)) > 0
}

// admitsCompare is Admits for a top-k ordered by a Compare: against the
// window of the last tick only.
func (g *TopKGate) admitsCompare(row types.Row) bool {
	grp := g.find(row)
	if grp == nil || grp.units < g.op.m {
		return true
	}
	return g.op.spec.Compare == nil || g.op.spec.Compare(row, grp.rows[len(grp.rows)-1].item.row) <= 0
}
