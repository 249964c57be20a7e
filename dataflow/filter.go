package dataflow

import (
	"context"

	"github.com/streamdb/streamdb/types"
)

// Filter returns the rows of src for which pred holds (WHERE, HAVING).
//
// Filter is linear: it applies to each delta on its own, with no state.
// A row on which pred fails contributes its error, with the row's weight,
// to the error stream instead.
//
//	input:  +(1) +(2) +(3)   -(2)
//	pred:   x <> 2
//	output: +(1) +(3)        (nothing)
func (g *Graph) Filter(src Node, pred func(types.Row) (bool, error)) Node {
	out := new(stream)
	return g.add(&filterOp{in: g.input(src), out: out, pred: pred}, out)
}

type filterOp struct {
	in, out *stream
	pred    func(types.Row) (bool, error)
}

var _ operator = (*filterOp)(nil)

func (op *filterOp) Name() string { return "Filter" }

func (op *filterOp) Step(ctx context.Context) error { return op.absorb(ctx, 0) }

func (op *filterOp) absorb(ctx context.Context, _ int) error {
	op.out.passErrors(op.in)
	for i, u := range op.in.delta {
		if err := op.out.canceled(ctx, i); err != nil {
			return err
		}
		ok, err := op.pred(u.Row)
		switch {
		case err != nil:
			op.out.errs = append(op.out.errs, ErrorUpdate{Err: dataError(err), Diff: u.Diff})
		case ok:
			op.out.delta = append(op.out.delta, u)
		}
	}
	return nil
}

func (op *filterOp) finish(context.Context) error { return nil }

func (op *filterOp) StateBytes() int64 { return 0 }
