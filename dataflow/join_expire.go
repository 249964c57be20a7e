package dataflow

import (
	"container/heap"

	"github.com/streamdb/streamdb/types"
)

// RowExpiry forgets the rows of one side of a join that can match no row
// still to come: those whose column Col lies below Threshold. The
// planner derives it from the join's condition and the watermarks of both
// sides (an interval join, b.ts BETWEEN a.ts AND a.ts + INTERVAL '10
// minutes': an a row is dead once b's watermark passes a.ts + 10
// minutes) and from the watermark of the side's own column, so that a
// forgotten row can no longer be retracted either. A row is forgotten
// from the arrangement without output: every join result it took part
// in stays as it is downstream.
type RowExpiry struct {
	Col       int
	Threshold Watermark
}

// expiringRows holds the arranged changes of a side with a RowExpiry, in
// a min-heap by the value of its column: applying the opposite of each
// change once the threshold has passed it removes the row.
type expiringRows struct {
	heap  expiryHeap[arranged]
	bytes int64
}

// arranged is one change made to an arrangement: the row's stored form
// under its key and hash, with its weight, and the value of its
// expiring column.
type arranged struct {
	value    types.Datum
	key, row string
	h        uint64
	diff     int64
}

// sizeArranged is an arranged change's bytes beside its key and row.
const sizeArranged = 32 + 2*16 + 16

// track records a change of a side's arrangement when the side expires;
// key and h are its key and hash, and op.vbuf its stored row.
func (op *joinOp) track(u Update, key []byte, h uint64, right bool) {
	x, side := op.spec.LeftExpire, 0
	if right {
		x, side = op.spec.RightExpire, 1
	}
	if x == nil {
		return
	}
	v := u.Row[x.Col]
	if v.IsNull() {
		return
	}
	e := &op.expiring[side]
	a := arranged{value: v, key: string(key), row: string(op.vbuf), h: h, diff: u.Diff}
	heap.Push(&e.heap, a)
	e.bytes += sizeArranged + int64(len(a.key)+len(a.row))
}

// expire removes from each side's arrangement the rows its threshold
// has passed.
func (op *joinOp) expire() {
	for side, x := range [2]*RowExpiry{op.spec.LeftExpire, op.spec.RightExpire} {
		if x == nil {
			continue
		}
		w, ok := x.Threshold()
		if !ok || w.IsNull() {
			continue
		}
		a := op.la
		if side == 1 {
			a = op.ra
		}
		e := &op.expiring[side]
		for len(e.heap) > 0 && types.Compare(e.heap[0].value, w) < 0 {
			c := heap.Pop(&e.heap).(arranged)
			e.bytes -= sizeArranged + int64(len(c.key)+len(c.row))
			a.update([]byte(c.key), c.h, []byte(c.row), -c.diff)
		}
	}
}

// rebuildExpiry lists the rows of a restored side with a RowExpiry, as
// track listed them when they arrived: the persisted state holds the
// arrangements and not the schedule, which their rows determine. Each
// row is listed once with its net multiplicity, so that expire removes
// it whole. Without this a restored join kept every row it had when
// persisted until the view was dropped.
func (op *joinOp) rebuildExpiry() error {
	for side, x := range [2]*RowExpiry{op.spec.LeftExpire, op.spec.RightExpire} {
		if x == nil {
			continue
		}
		a := op.la
		if side == 1 {
			a = op.ra
		}
		e := &op.expiring[side]
		var row types.Row
		var err error
		a.tab.each(func(i int) bool {
			key := a.tab.key(i)
			h := a.tab.hash(key)
			for it := a.get(key, h); it.next(); {
				if row, err = decodeRowValue(it.row, row); err != nil {
					return false
				}
				if x.Col >= len(row) || row[x.Col].IsNull() {
					continue
				}
				c := arranged{value: row[x.Col], key: string(key), row: string(it.row), h: h, diff: it.n}
				e.heap = append(e.heap, c)
				e.bytes += sizeArranged + int64(len(c.key)+len(c.row))
			}
			return true
		})
		if err != nil {
			return err
		}
		heap.Init(&e.heap)
	}
	return nil
}

func (a arranged) expiresBy() types.Datum { return a.value }

// expiring is what an expiryHeap holds: state that expires once the
// watermark passes its value.
type expiring interface{ expiresBy() types.Datum }

// expiryHeap orders expiring state by its value (container/heap); a
// NULL, which types.Compare sorts last, never expires.
type expiryHeap[T expiring] []T

func (h expiryHeap[T]) Len() int { return len(h) }
func (h expiryHeap[T]) Less(i, j int) bool {
	return types.Compare(h[i].expiresBy(), h[j].expiresBy()) < 0
}
func (h expiryHeap[T]) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap[T]) Push(x any)   { *h = append(*h, x.(T)) }
func (h *expiryHeap[T]) Pop() any {
	old := *h
	x := old[len(old)-1]
	var zero T
	old[len(old)-1] = zero
	*h = old[:len(old)-1]
	return x
}
