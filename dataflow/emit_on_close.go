package dataflow

import (
	"context"

	"github.com/tidwall/btree"

	"github.com/streamdb/streamdb/types"
)

// Watermark returns the current watermark of a column: every change
// still to come carries a value at least this large in the column (a
// window that ends before it is closed). ok is false while no watermark
// is known. The planner derives a column's from the watermark of a
// table or source (see planner.Watermarks); it only ever grows.
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
// State is the rows still held, those of the windows still open, each
// once (a row whose changes cancel is forgotten at once), ordered by the
// key encoding of col and then of the row, so that the watermark closes
// a prefix. A row whose col is NULL, which the encoding sorts last, is
// never final and stays held.
func (g *Graph) EmitOnClose(src Node, col int, wm Watermark) Node {
	out := new(stream)
	op := &emitOnCloseOp{in: g.input(src), out: out, col: col, wm: wm}
	return g.add(op, out)
}

type emitOnCloseOp struct {
	in, out *stream
	// staged keeps a final step's chunks for one Step at its finish.
	staged heldInput
	col    int
	wm     Watermark
	// held maps the key encoding of each held row's col followed by the
	// row's own to the row and its accumulated weight.
	held  btree.Map[string, heldRow]
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
		op.kbuf = types.AppendKeyRow(types.AppendKeyRow(op.kbuf[:0], u.Row[op.col:op.col+1]), u.Row)
		h, ok := op.held.Get(string(op.kbuf))
		switch {
		case !ok:
			op.held.Set(string(op.kbuf), heldRow{row: u.Row, diff: u.Diff})
			op.bytes += sizeHeld + int64(len(op.kbuf)) + rowBytes(u.Row)
		case h.diff+u.Diff == 0:
			// An aggregate's old row, replaced: forgotten now.
			op.held.Delete(string(op.kbuf))
			op.bytes -= sizeHeld + int64(len(op.kbuf)) + rowBytes(h.row)
		default:
			h.diff += u.Diff
			op.held.Set(string(op.kbuf), h)
		}
	}
	w, ok := op.wm()
	if !ok || w.IsNull() {
		return nil
	}
	limit := string(types.AppendKeyRow(op.kbuf[:0], types.Row{w}))
	for {
		k, h, ok := op.held.Min()
		if !ok || k >= limit {
			return nil
		}
		op.held.Delete(k)
		op.bytes -= sizeHeld + int64(len(k)) + rowBytes(h.row)
		op.out.delta = append(op.out.delta, Update{Row: h.row, Diff: h.diff})
	}
}

func (op *emitOnCloseOp) StateBytes() int64 { return op.bytes }

// sizeHeld is a held row's bytes beside its key and row: its B-tree
// entry.
const sizeHeld = 64

func (op *emitOnCloseOp) absorb(context.Context, int) error {
	op.staged.absorb(op.in)
	return nil
}

func (op *emitOnCloseOp) finish(ctx context.Context) error {
	return op.staged.finish(ctx, op.in, op.Step)
}
