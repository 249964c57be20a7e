package dataflow

import (
	"context"
	"errors"
	"fmt"
)

// Graph is a dataflow: operators created in topological order (every
// operator after its inputs) and stepped together once per tick. A Graph is
// driven by one goroutine; only Output and Index snapshots are shared with
// other goroutines.
type Graph struct {
	ops     []operator
	streams []*stream
	// lastReader[i] is the last operator that reads stream i, -1 if none:
	// a final Step drops each delta once its last reader has run.
	lastReader []int
	// readers[i] is the number of operators that read stream i.
	readers []int
	// tick counts completed and running Steps; operators use it to mark
	// state touched in the current tick without clearing marks afterwards.
	tick uint64
	// final is set by StepFinal: the running Step is the graph's last,
	// so operators may skip state that only a later tick would read.
	final bool
	// err is the failure that poisoned the graph: a Step that fails
	// half-way leaves operator state inconsistent, so every later Step
	// returns the same error and the graph must be rebuilt.
	err error
	// now is the time of the current tick (see SetTime), and timed the
	// operators that schedule changes for later times.
	now   int64
	timed []timedOperator
}

// timedOperator is an operator whose output changes with time alone:
// it has changes scheduled for a future time, which a Step at or after
// that time emits.
type timedOperator interface {
	// nextWake returns the earliest time of a scheduled change, false
	// when none is scheduled.
	nextWake() (int64, bool)
}

// NewGraph returns an empty graph.
func NewGraph() *Graph { return &Graph{} }

// Node is a handle on one operator's output collection in a Graph; it is
// what later operators take as input. The zero Node is invalid.
type Node struct {
	g  *Graph
	id int
}

// Name returns the operator's name, e.g. "Join", for diagnostics.
func (n Node) Name() string { return n.g.ops[n.id].Name() }

// StateBytes returns the approximate bytes of state the operator keeps.
func (n Node) StateBytes() int64 { return n.g.ops[n.id].StateBytes() }

// operator is one node of a Graph. Step consumes the current tick's deltas
// of its inputs (read-only: other operators may read the same batches) and
// appends its own delta and new errors to its output stream, which the
// graph has emptied beforehand.
type operator interface {
	Name() string
	Step(ctx context.Context) error
	StateBytes() int64
}

// stream is an operator's output for the current tick: its data delta and
// its error delta. The error delta carries the operator's own errors and
// every error arriving on its inputs, so each sink sees the errors of
// everything upstream of it.
type stream struct {
	delta Batch
	errs  []ErrorUpdate
	// borrowed marks a delta that belongs to the caller of Input.Push:
	// it is dropped, not cleared and reused, at the next tick.
	borrowed bool
}

func (s *stream) reset() {
	if s.borrowed {
		s.delta, s.borrowed = nil, false
	}
	clear(s.delta)
	s.delta = s.delta[:0]
	clear(s.errs)
	s.errs = s.errs[:0]
}

// passErrors forwards the error deltas of the inputs unchanged. Errors are
// never negated or thresholded: an error upstream keeps the result in error
// whatever the operator does with rows.
func (s *stream) passErrors(ins ...*stream) {
	for _, in := range ins {
		s.errs = append(s.errs, in.errs...)
	}
}

// add appends op to the graph and returns the Node of its output.
func (g *Graph) add(op operator, out *stream) Node {
	g.ops = append(g.ops, op)
	g.streams = append(g.streams, out)
	g.lastReader = append(g.lastReader, -1)
	g.readers = append(g.readers, 0)
	return Node{g: g, id: len(g.ops) - 1}
}

// input returns n's output stream, checking that n belongs to g. Building
// a graph from another graph's nodes is a programming error.
func (g *Graph) input(n Node) *stream {
	if n.g != g {
		panic("dataflow: node belongs to another graph")
	}
	// The reader is the operator being built, added next.
	g.lastReader[n.id] = len(g.ops)
	g.readers[n.id]++
	return g.streams[n.id]
}

// Step runs one tick: every operator once, in the order of creation,
// consuming the deltas staged on the inputs since the last Step. Evaluation
// errors do not fail a Step (they travel as data); Step fails only when ctx
// is canceled or on an internal failure (corrupt state), and then the graph
// is poisoned: every later Step returns the same error. A Step canceled
// before it starts changes nothing and can be retried. Cancellation is
// noticed between operators and, in Join and Window, whose work can far
// exceed their input, within them.
func (g *Graph) Step(ctx context.Context) error {
	if g.err != nil {
		return g.err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	g.tick++
	for i, op := range g.ops {
		if err := ctx.Err(); err != nil {
			g.err = fmt.Errorf("dataflow: step canceled before %s: %w", op.Name(), err)
			return g.err
		}
		g.streams[i].reset()
		if err := op.Step(ctx); err != nil {
			g.err = fmt.Errorf("dataflow: %s: %w", op.Name(), err)
			return g.err
		}
		if g.final {
			g.dropRead(i)
		}
	}
	return nil
}

// dropRead lets go of the deltas whose last reader is operator i, so that
// a final Step holds only the deltas still to be read: a one-tick query's
// intermediate results are garbage as soon as they are consumed, and the
// heap need not hold all of them at once.
func (g *Graph) dropRead(i int) {
	for j, last := range g.lastReader[:i+1] {
		if last == i {
			g.streams[j].delta = nil
		}
	}
}

// SetTime sets the time of the next Steps, in microseconds since
// 1970-01-01 UTC: the engine's tick timestamp, which temporal filters
// compare the validity of rows with. Time never goes backwards: an
// earlier time than the graph's is ignored.
func (g *Graph) SetTime(us int64) {
	if us > g.now {
		g.now = us
	}
}

// Time returns the graph's time (see SetTime).
func (g *Graph) Time() int64 { return g.now }

// Timed reports whether the graph's output can change with time alone,
// without input: whether it has a temporal filter.
func (g *Graph) Timed() bool { return len(g.timed) > 0 }

// NextWake returns the earliest time at which an operator has changes
// scheduled, false when none has: a Step at that time or later, with
// or without input, emits them. The engine runs a tick when it comes.
func (g *Graph) NextWake() (int64, bool) {
	var at int64
	found := false
	for _, op := range g.timed {
		if t, ok := op.nextWake(); ok && (!found || t < at) {
			at, found = t, true
		}
	}
	return at, found
}

// StepFinal is Step for a graph that is never stepped again, the one-tick
// dataflow of an ad hoc query: its result is the same, but operators may
// skip maintaining state that only later ticks would read (a Join whose
// state is empty matches the two deltas with a hash table of one and does
// not arrange them). Every later Step fails.
func (g *Graph) StepFinal(ctx context.Context) error {
	g.final = true
	err := g.Step(ctx)
	if g.err == nil {
		g.err = errSteppedAfterFinal
	}
	return err
}

var errSteppedAfterFinal = errors.New("dataflow: graph stepped after its final step")

// StateBytes returns the approximate bytes of state held by all operators
// of the graph: arrangements, group accumulators and maintained outputs.
func (g *Graph) StateBytes() int64 {
	var n int64
	for _, op := range g.ops {
		n += op.StateBytes()
	}
	return n
}
