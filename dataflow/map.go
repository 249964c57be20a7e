package dataflow

import (
	"context"
	"slices"

	"github.com/streamdb/streamdb/types"
)

// Map replaces every row of src by fn's result (projections and computed
// columns).
//
// Map is linear and stateless. Distinct rows may map to equal rows; the
// output is a correct Z-set but not necessarily consolidated. A row on
// which fn fails contributes its error with the row's weight.
//
//	input:  +(1, 10) +(2, 20)   -(1, 10)
//	fn:     (a, b) -> (a + b)
//	output: +(11) +(22)         -(11)
func (g *Graph) Map(src Node, fn func(types.Row) (types.Row, error)) Node {
	out := new(stream)
	return g.add(&mapOp{in: g.input(src), out: out, fn: fn}, out)
}

// MapNew is Map for an fn that builds every row it returns in memory of
// its own, copying values out of its argument, never returning the
// argument or a slice of it. The rows of src then go no further than
// the Map, which lets their producer reuse their memory after the Step
// (see Input.KeepsRows).
func (g *Graph) MapNew(src Node, fn func(types.Row) (types.Row, error)) Node {
	out := new(stream)
	return g.add(&mapOp{in: g.input(src), out: out, fn: fn, fresh: true}, out)
}

type mapOp struct {
	in, out *stream
	fn      func(types.Row) (types.Row, error)
	// fresh says fn builds new rows (MapNew).
	fresh bool
}

var _ operator = (*mapOp)(nil)

func (op *mapOp) Name() string { return "Map" }

func (op *mapOp) Step(ctx context.Context) error { return op.absorb(ctx, 0) }

// absorb maps a delta, or a final step's chunk; the output of a final
// step is flushed as soon as it holds a chunk's worth of built values.
func (op *mapOp) absorb(ctx context.Context, _ int) error {
	op.out.passErrors(op.in)
	op.out.delta = slices.Grow(op.out.delta, len(op.in.delta))
	streaming := op.out.streaming()
	for i, u := range op.in.delta {
		if err := op.out.canceled(ctx, i); err != nil {
			return err
		}
		r, err := op.fn(u.Row)
		if err != nil {
			op.out.errs = append(op.out.errs, ErrorUpdate{Err: dataError(err), Diff: u.Diff})
			continue
		}
		op.out.delta = append(op.out.delta, Update{Row: r, Diff: u.Diff})
		if streaming {
			op.out.built(r)
			if err := op.out.flushIfFull(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

func (op *mapOp) finish(context.Context) error { return nil }

func (op *mapOp) StateBytes() int64 { return 0 }
