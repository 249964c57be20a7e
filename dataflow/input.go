package dataflow

import (
	"context"
	"errors"
)

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
	// feeds produce the rest of the next Step's insertions (see Feed),
	// about fedRows of them.
	feeds   []FeedFunc
	fedRows int
	// keeps is KeepsRows's answer for a graph of keepsOps operators: the
	// engine asks after every tick, and the answer changes only when
	// operators are added.
	keeps    bool
	keepsOps int
	// replayable marks an input whose relation can be fed again whole
	// at restore (see Replayable).
	replayable bool
}

// FeedFunc produces an input's insertions lazily: it calls emit with
// batches of them, each valid only during the call (the rows, though,
// must never change), and stops when emit returns an error, which it
// returns.
type FeedFunc func(ctx context.Context, emit func(Batch) error) error

// Feed stages insertions that fn produces when the next Step runs, about
// rows of them, for a one-tick query's scan of a table or view: a final
// step hands them on in chunks as fn produces them (see StepFinal), so
// that the rows of a large relation are never all held at once; a Step
// gathers them into one delta. fn is called once, after the batches
// pushed for that Step.
func (in *Input) Feed(rows int, fn FeedFunc) {
	in.feeds = append(in.feeds, fn)
	in.fedRows += rows
}

// rows estimates the rows staged for the next Step.
func (in *Input) rows() int { return len(in.borrowed) + len(in.pending) + in.fedRows }

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

// KeepsRows reports whether the graph may refer to a row pushed into in
// (the Row, the slice of Datums, not the values it holds) after the Step
// that read it has returned, so that the row's memory must stay as it
// is. It is false only when every operator that sees the rows is known
// to let go of them: Filter, Union and Negate pass them on within the
// Step, MapNew replaces them by rows of its own; any other operator, an
// Output's delta included, may keep them. Streams keep the last Step's
// deltas until the next Step resets them, but nothing reads them in
// between.
func (in *Input) KeepsRows() bool {
	if n := len(in.node.g.ops); n != in.keepsOps {
		in.keeps, in.keepsOps = in.keepsRows(), n
	}
	return in.keeps
}

// keepsRows walks the graph from in for KeepsRows.
func (in *Input) keepsRows() bool {
	g := in.node.g
	seen := map[int]bool{}
	work := []int{in.node.id}
	for len(work) > 0 {
		s := work[len(work)-1]
		work = work[:len(work)-1]
		for _, e := range g.edges[s] {
			switch op := g.ops[e.op].(type) {
			case *mapOp:
				if op.fresh {
					continue
				}
			case *filterOp, *unionOp, *negateOp:
			default:
				return true
			}
			if !seen[e.op] {
				seen[e.op] = true
				work = append(work, e.op)
			}
		}
	}
	return false
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
// batch as it is, several by swapping buffers with the staging area;
// then the feeds' insertions.
func (op *inputOp) Step(ctx context.Context) error {
	if b := op.in.borrowed; b != nil {
		op.out.delta, op.out.borrowed = b, true
		op.in.borrowed = nil
	} else {
		op.out.delta, op.in.pending = op.in.pending, op.out.delta[:0]
	}
	op.out.errs, op.in.pendingErrs = op.in.pendingErrs, op.out.errs[:0]
	feeds := op.in.feeds
	op.in.feeds, op.in.fedRows = nil, 0
	for _, f := range feeds {
		if op.out.borrowed {
			op.out.delta, op.out.borrowed = append(Batch(nil), op.out.delta...), false
		}
		err := f(ctx, func(b Batch) error {
			op.out.delta = append(op.out.delta, b...)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// absorb is never called: an input reads no stream.
func (op *inputOp) absorb(context.Context, int) error { return nil }

// finish hands a final step's staged updates on in chunks, then runs the
// feeds, each batch they produce handed on in chunks as it comes.
func (op *inputOp) finish(ctx context.Context) error {
	b := op.in.borrowed
	if b == nil {
		b = op.in.pending
	}
	op.in.borrowed, op.in.pending = nil, nil
	op.out.errs, op.in.pendingErrs = append(op.out.errs, op.in.pendingErrs...), nil
	if err := op.handOn(ctx, b); err != nil {
		return err
	}
	feeds := op.in.feeds
	op.in.feeds, op.in.fedRows = nil, 0
	for _, f := range feeds {
		err := f(ctx, func(b Batch) error {
			if !positive(b) {
				return errFedRetraction
			}
			return op.handOn(ctx, b)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// handOn flushes b to the readers a chunk at a time, borrowed.
func (op *inputOp) handOn(ctx context.Context, b Batch) error {
	n := op.out.g.chunkSize()
	for start := 0; start < len(b); start += n {
		if err := op.out.g.flush(ctx, op.out.id); err != nil {
			return err
		}
		op.out.delta, op.out.borrowed = b[start:min(start+n, len(b))], true
	}
	return op.out.g.flush(ctx, op.out.id)
}

// errFedRetraction reports a Feed that produced a retraction.
var errFedRetraction = errors.New("dataflow: a feed produced a retraction")

func (op *inputOp) StateBytes() int64 { return 0 }
