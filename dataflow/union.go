package dataflow

import "context"

// Union returns the sum of its inputs' collections (UNION ALL): each
// output delta is the concatenation of the input deltas.
//
//	input a: +(1)        -(1)
//	input b: +(1) +(2)
//	output:  +(1) +(1) +(2)   -(1)
func (g *Graph) Union(srcs ...Node) Node {
	out := new(stream)
	op := &unionOp{out: out}
	for _, s := range srcs {
		op.ins = append(op.ins, g.input(s))
	}
	return g.add(op, out)
}

type unionOp struct {
	ins []*stream
	out *stream
}

var _ operator = (*unionOp)(nil)

func (op *unionOp) Name() string { return "Union" }

func (op *unionOp) Step(ctx context.Context) error {
	for i := range op.ins {
		if err := op.absorb(ctx, i); err != nil {
			return err
		}
	}
	return nil
}

func (op *unionOp) absorb(_ context.Context, slot int) error {
	in := op.ins[slot]
	op.out.passErrors(in)
	op.out.delta = append(op.out.delta, in.delta...)
	return nil
}

func (op *unionOp) finish(context.Context) error { return nil }

func (op *unionOp) StateBytes() int64 { return 0 }
