package dataflow

import (
	"context"

	"github.com/streamdb/streamdb/types"
)

// FlatMap replaces every row of src by the rows fn emits for it, each with
// the input row's weight (table functions, unnest, generate_series).
//
// FlatMap is linear and stateless. When fn fails, the rows it emitted for
// that input row are discarded and the error takes their place, so that a
// retraction of the row, failing the same way, cancels exactly.
//
//	input:  +(2)          -(2)
//	fn:     x -> generate_series(1, x)
//	output: +(1) +(2)     -(1) -(2)
//
// emit returns false once the step's context is canceled: fn should stop
// then, since one input row can expand into millions
// (generate_series(1, 1e8)).
func (g *Graph) FlatMap(src Node, fn func(row types.Row, emit func(types.Row) bool) error) Node {
	out := new(stream)
	op := &flatMapOp{in: g.input(src), out: out, fn: fn}
	return g.add(op, out)
}

type flatMapOp struct {
	in, out *stream
	fn      func(row types.Row, emit func(types.Row) bool) error
	// diff is the weight of the row being expanded.
	diff int64
	// emitted counts the rows emitted, for checking the Step's context
	// every cancelCheckRows rows. Once it is canceled, err holds why and
	// emit refuses the rest of the expansion.
	emitted int
	err     error
	// mark is where the output of the row being expanded starts.
	mark int
}

// cancelCheckRows is how many output rows an operator that can expand its
// input produces between checks for cancellation.
const cancelCheckRows = 1 << 16

var _ operator = (*flatMapOp)(nil)

func (op *flatMapOp) Name() string { return "FlatMap" }

func (op *flatMapOp) Step(ctx context.Context) error { return op.absorb(ctx, 0) }

// absorb expands the input's rows. In a final step the output is flushed
// whenever it fills a chunk, also in the middle of one row's expansion;
// if the expansion then fails, only the rows not yet flushed are taken
// back, which is enough: the error reaches the end of a one-tick graph
// and fails its query.
func (op *flatMapOp) absorb(ctx context.Context, _ int) error {
	op.out.passErrors(op.in)
	op.err = ctx.Err()
	// One closure per step, not per input row.
	emit := func(r types.Row) bool { return op.emitRow(ctx, r) }
	for _, u := range op.in.delta {
		if op.err != nil {
			break
		}
		op.mark = len(op.out.delta)
		op.diff = u.Diff
		if err := op.fn(u.Row, emit); err != nil && op.err == nil {
			clear(op.out.delta[op.mark:])
			op.out.delta = op.out.delta[:op.mark]
			op.out.errs = append(op.out.errs, ErrorUpdate{Err: dataError(err), Diff: u.Diff})
		}
	}
	return op.err
}

func (op *flatMapOp) emitRow(ctx context.Context, r types.Row) bool {
	if op.err != nil {
		return false
	}
	if op.emitted++; op.emitted%cancelCheckRows == 0 {
		if op.err = ctx.Err(); op.err != nil {
			return false
		}
	}
	op.out.delta = append(op.out.delta, Update{Row: r, Diff: op.diff})
	if !op.out.streaming() {
		return true
	}
	if op.out.built(r); len(op.out.delta) >= op.out.g.chunkSize() || op.out.bytes >= flushBytes {
		if op.err = op.out.flushIfFull(ctx); op.err != nil {
			return false
		}
		op.mark = 0
	}
	return true
}

func (op *flatMapOp) finish(context.Context) error { return nil }

func (op *flatMapOp) StateBytes() int64 { return 0 }
