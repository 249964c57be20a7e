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

func (g groupClosing) expiresBy() types.Datum { return g.value }
