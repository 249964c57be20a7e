package dataflow

import "context"

// Input returns a new input collection: the way changes enter the graph.
// Tables, sources and upstream views each feed one Input per graph that
// reads them.
func (g *Graph) Input() *Input {
	out := new(stream)
	in := new(Input)
	in.node = g.add(&inputOp{in: in, out: out}, out)
	return in
}

// Input is a graph's entry point. Push stages a delta for the next Step;
// the Step hands everything staged so far to the operators downstream, in
// one batch. An Input is driven by the graph's goroutine.
type Input struct {
	node        Node
	pending     Batch
	pendingErrs []ErrorUpdate
	// borrowed is the tick's only batch, not yet copied: most ticks push
	// one batch, which the graph then reads in place.
	borrowed Batch
}

// Node returns the input's collection, for building operators on it.
func (in *Input) Node() Node { return in.node }

// Push stages the updates of b for the next Step. b need not be
// consolidated. Neither b nor its rows are copied: b must not be modified
// until the next Step has returned, and its rows never.
func (in *Input) Push(b Batch) {
	switch {
	case len(b) == 0:
	case len(in.pending) == 0 && in.borrowed == nil:
		in.borrowed = b
	default:
		if in.borrowed != nil {
			in.pending = append(in.pending, in.borrowed...)
			in.borrowed = nil
		}
		in.pending = append(in.pending, b...)
	}
}

// PushErrors stages errors for the next Step, for a graph fed from another
// graph's view (Output.DeltaErrors): an error upstream keeps the dependent
// view in error.
func (in *Input) PushErrors(errs []ErrorUpdate) {
	in.pendingErrs = append(in.pendingErrs, errs...)
}

// inputOp is the operator of an Input: the source of the graph. It keeps
// no state between ticks.
type inputOp struct {
	in  *Input
	out *stream
}

var _ operator = (*inputOp)(nil)

func (op *inputOp) Name() string { return "Input" }

// Step hands the staged updates to the output stream: a single pushed
// batch as it is, several by swapping buffers with the staging area.
func (op *inputOp) Step(context.Context) error {
	if b := op.in.borrowed; b != nil {
		op.out.delta, op.out.borrowed = b, true
		op.in.borrowed = nil
	} else {
		op.out.delta, op.in.pending = op.in.pending, op.out.delta[:0]
	}
	op.out.errs, op.in.pendingErrs = op.in.pendingErrs, op.out.errs[:0]
	return nil
}

func (op *inputOp) StateBytes() int64 { return 0 }
