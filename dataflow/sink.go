package dataflow

import (
	"context"
	"errors"
	"fmt"
)

// Sink hands the rows of a one-tick query to fn as they are produced: in
// a final step, each chunk that reaches the sink, so that the query's
// first rows reach its client while the rest are still being computed;
// in a Step, the whole delta at once. fn sees insertions only, each
// batch valid only during the call (the rows, though, never change);
// its error stops the step. An error travelling with the rows (a
// division by zero) stops the step too: it is the query's error.
//
// A chunk may only be passed on while no later chunk can take it back.
// When the sink's input may carry retractions (see finalStep.retracts),
// the sink keeps the chunks, consolidates them at the end and hands on
// the result.
//
//	input:  +(1) +(2)  (chunk 1)   +(3)  (chunk 2)
//	fn:     +(1) +(2)              +(3)
func (g *Graph) Sink(src Node, fn func(ctx context.Context, b Batch) error) {
	g.add(&sinkOp{in: g.input(src), fn: fn}, new(stream))
}

type sinkOp struct {
	in   *stream
	fn   func(ctx context.Context, b Batch) error
	held Batch
	cons consolidator
}

var _ operator = (*sinkOp)(nil)

func (op *sinkOp) Name() string { return "Sink" }

func (op *sinkOp) Step(ctx context.Context) error {
	if len(op.in.errs) > 0 {
		return op.in.errs[0].Err
	}
	return op.send(ctx, op.in.delta)
}

func (op *sinkOp) absorb(ctx context.Context, _ int) error {
	if len(op.in.errs) > 0 {
		return op.in.errs[0].Err
	}
	if op.in.mayRetract() {
		op.held = append(op.held, op.in.delta...)
		return nil
	}
	if len(op.in.delta) == 0 {
		return nil
	}
	if !positive(op.in.delta) {
		return errSinkRetraction
	}
	return op.fn(ctx, op.in.delta)
}

func (op *sinkOp) finish(ctx context.Context) error {
	if op.held == nil {
		return nil
	}
	held := op.held
	op.held = nil
	return op.send(ctx, held)
}

// errSinkRetraction reports a retraction that reached a sink whose input
// was not expected to carry one (see finalStep.retracts).
var errSinkRetraction = errors.New("dataflow: a retraction reached a sink that had sent rows")

// send hands b on in chunks, consolidated first unless it only inserts.
func (op *sinkOp) send(ctx context.Context, b Batch) error {
	if !positive(b) {
		b = op.cons.into(nil, b)
		if !positive(b) {
			return fmt.Errorf("negative multiplicity in a query's result")
		}
	}
	n := op.in.g.chunkSize()
	for start := 0; start < len(b); start += n {
		if err := op.fn(ctx, b[start:min(start+n, len(b))]); err != nil {
			return err
		}
	}
	return nil
}

func (op *sinkOp) StateBytes() int64 { return int64(cap(op.held)) * sizeUpdate }
