package dataflow

import (
	"container/heap"

	"github.com/streamdb/streamdb/types"
)

// expire drops the groups whose expiring key column the watermark has
// passed (see GroupExpiry). It runs after a tick's changes are applied
// and emitted: a row accepted in this tick before its table's watermark
// moved past it still counts in its group's final row. A group that
// the heap names may be gone (its rows were retracted) or another at
// the same position; one whose column has the same value is closed as
// well, and is dropped.
func (op *reduceOp) expire() {
	x := op.spec.Expire
	w, ok := x.Watermark()
	if !ok || w.IsNull() {
		return
	}
	for len(op.closing) > 0 && types.Compare(op.closing[0].value, w) < 0 {
		c := heap.Pop(&op.closing).(groupClosing)
		key := op.index.keys[c.pos]
		if key == nil || types.Compare(key[x.Key], c.value) != 0 {
			continue
		}
		if op.sk.on() {
			op.persistExpired(c.pos)
		}
		grp := op.groups.at(c.pos)
		op.bytes -= grp.size + statesBytes(grp.states(op.nstates))
		op.index.remove(c.pos)
		*grp = group{}
	}
}

// sizeGroupClosing is the bytes of a groupClosing.
const sizeGroupClosing = 40

// groupClosing is a group in reduceOp.closing: the value of its
// expiring key column and its position.
type groupClosing struct {
	value types.Datum
	pos   int32
}

// groupHeap orders groups by the value of their expiring key column; a
// NULL, which types.Compare sorts last, never expires.
type groupHeap []groupClosing

func (h groupHeap) Len() int           { return len(h) }
func (h groupHeap) Less(i, j int) bool { return types.Compare(h[i].value, h[j].value) < 0 }
func (h groupHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *groupHeap) Push(x any)        { *h = append(*h, x.(groupClosing)) }
func (h *groupHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = groupClosing{}
	*h = old[:len(old)-1]
	return x
}
