package dataflow

import (
	"container/heap"
	"context"

	"github.com/streamdb/streamdb/types"
)

// Watermark returns the current watermark of a column: every change
// still to come carries a value at least this large in the column (a
// window that ends before it is closed). ok is false while no watermark
// is known. The planner derives a column's from the watermark of a
// table or source (see planner.WatermarkOf); it only ever grows.
type Watermark func() (w types.Datum, ok bool)

// EmitOnClose holds the changes of src back until they are final: a row
// is emitted once the watermark of its column col has passed its value,
// after which no change with that value can come (EMIT ON WINDOW CLOSE:
// col is a window's start or end, and each window's rows are emitted
// once, when the watermark passes it, never retracted). Changes to a row
// still held consolidate, so a group's row that an aggregate replaced ten
// times is emitted once, in its final form.
//
//	watermark: 0                 10                 20
//	input:     +(w=0, 1)         -(w=0, 1) +(w=0, 2) +(w=10, 1)
//	output:    (nothing)         +(w=0, 2)          +(w=10, 1)
//
// State is the rows still held: those of the windows still open. A row
// whose col is NULL is never final and stays held.
func (g *Graph) EmitOnClose(src Node, col int, wm Watermark) Node {
	out := new(stream)
	op := &emitOnCloseOp{in: g.input(src), out: out, col: col, wm: wm, held: map[string]*heldRow{}}
	return g.add(op, out)
}

type emitOnCloseOp struct {
	in, out *stream
	col     int
	wm      Watermark
	// held maps the key encoding of each held row to it, and order is
	// a min-heap of the held rows by the value of col.
	held  map[string]*heldRow
	order closeHeap
	kbuf  []byte
	bytes int64
}

// heldRow is a row held back with its accumulated weight.
type heldRow struct {
	row  types.Row
	diff int64
}

var _ operator = (*emitOnCloseOp)(nil)

func (op *emitOnCloseOp) Name() string { return "EmitOnClose" }

// Step adds the input delta to the held rows, then emits and forgets
// every held row whose col the watermark has passed.
func (op *emitOnCloseOp) Step(context.Context) error {
	op.out.passErrors(op.in)
	for _, u := range op.in.delta {
		op.kbuf = types.AppendKeyRow(op.kbuf[:0], u.Row)
		if h, ok := op.held[string(op.kbuf)]; ok {
			h.diff += u.Diff
			continue
		}
		k := string(op.kbuf)
		op.held[k] = &heldRow{row: u.Row, diff: u.Diff}
		op.bytes += sizeHeld + int64(len(k)) + rowBytes(u.Row)
		if v := u.Row[op.col]; !v.IsNull() {
			heap.Push(&op.order, closing{value: v, key: k})
		}
	}
	w, ok := op.wm()
	if !ok || w.IsNull() {
		return nil
	}
	for len(op.order) > 0 && types.Compare(op.order[0].value, w) < 0 {
		c := heap.Pop(&op.order).(closing)
		h, ok := op.held[c.key]
		if !ok {
			continue
		}
		delete(op.held, c.key)
		op.bytes -= sizeHeld + int64(len(c.key)) + rowBytes(h.row)
		if h.diff != 0 {
			op.out.delta = append(op.out.delta, Update{Row: h.row, Diff: h.diff})
		}
	}
	return nil
}

func (op *emitOnCloseOp) StateBytes() int64 {
	return op.bytes + int64(cap(op.order))*sizeClosing
}

// sizeHeld is a held row's bytes beside its key and row: the map entry
// and the heldRow; sizeClosing a heap entry's.
const (
	sizeHeld    = 48 + 32
	sizeClosing = 48
)

// closing is a held row in the heap: the value of its column and its key.
type closing struct {
	value types.Datum
	key   string
}

// closeHeap orders held rows by the value of their column.
type closeHeap []closing

func (h closeHeap) Len() int           { return len(h) }
func (h closeHeap) Less(i, j int) bool { return types.Compare(h[i].value, h[j].value) < 0 }
func (h closeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *closeHeap) Push(x any)        { *h = append(*h, x.(closing)) }
func (h *closeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = closing{}
	*h = old[:len(old)-1]
	return x
}
