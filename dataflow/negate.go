package dataflow

import "context"

// Negate returns src with every weight negated; Union(a, Negate(b)) is the
// Z-set difference a − b, from which the planner builds EXCEPT ALL-like
// plans and outer-join padding.
//
// Errors pass through unnegated: an error in b must keep a − b in error,
// not cancel an error of a.
//
//	input:  +(1) +(2)   -(1)
//	output: -(1) -(2)   +(1)
func (g *Graph) Negate(src Node) Node {
	out := new(stream)
	return g.add(&negateOp{in: g.input(src), out: out}, out)
}

type negateOp struct {
	in, out *stream
}

var _ operator = (*negateOp)(nil)

func (op *negateOp) Name() string { return "Negate" }

func (op *negateOp) Step(ctx context.Context) error { return op.absorb(ctx, 0) }

func (op *negateOp) absorb(context.Context, int) error {
	op.out.passErrors(op.in)
	for _, u := range op.in.delta {
		op.out.delta = append(op.out.delta, Update{Row: u.Row, Diff: -u.Diff})
	}
	return nil
}

func (op *negateOp) finish(context.Context) error { return nil }

func (op *negateOp) StateBytes() int64 { return 0 }
