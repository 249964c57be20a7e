package dataflow

import (
	"context"
	"fmt"
)

// Graph is a dataflow: operators created in topological order (every
// operator after its inputs) and stepped together once per tick. A Graph is
// driven by one goroutine; only Output and Index snapshots are shared with
// other goroutines.
type Graph struct {
	ops     []operator
	streams []*stream
	// readers[i] is the number of operators that read stream i.
	readers []int
	// edges[i] lists the readers of stream i with the input slot each
	// reads it on, and inputs[i] the streams operator i reads, by slot:
	// a final step hands each chunk of a stream to its readers (see
	// StepFinal). slot counts the inputs of the operator being built.
	edges  [][]edge
	inputs [][]int
	slot   int
	// tick counts completed and running Steps; operators use it to mark
	// state touched in the current tick without clearing marks afterwards.
	tick uint64
	// final is set by StepFinal: the running Step is the graph's last,
	// so operators may skip state that only a later tick would read.
	final bool
	// fin is the state of a running final step (see final.go).
	fin finalStep
	// err is the failure that poisoned the graph: a Step that fails
	// half-way leaves operator state inconsistent, so every later Step
	// returns the same error and the graph must be rebuilt.
	err error
	// ps, when set, receives every change of the operators' state (see
	// Persist); restoring is set while Restore loads it back.
	ps        StateWriter
	restoring bool
	// derive marks the operators a Derive runs, nil when the graph has
	// no derived state (see derive.go); restored is set from a Restore
	// to the first Step, while Derive may run.
	derive   []bool
	restored bool
	// appending holds the arrangements that persist entries appended in
	// the running Step at its end (see arrangement.flushAppends).
	appending []*arrangement
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
//
// A final step (StepFinal) hands an operator its input in chunks
// instead: absorb takes the chunk staged on one input slot, and finish,
// called once every input has delivered its last chunk, emits what the
// operator kept for the end of the tick. An operator's Step is its
// absorb of every input followed by its finish, so both modes run the
// same code; its output may be flushed downstream while it emits (see
// stream.flushIfFull), which a Step never does.
type operator interface {
	Name() string
	Step(ctx context.Context) error
	StateBytes() int64
	absorb(ctx context.Context, slot int) error
	finish(ctx context.Context) error
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
	// g and id are the graph and the operator the stream belongs to.
	g  *Graph
	id int
	// bytes estimates the bytes of the values operators built into
	// delta, in a final step (see built).
	bytes int64
}

func (s *stream) reset() {
	if s.borrowed {
		s.delta, s.borrowed = nil, false
	}
	s.bytes = 0
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
	out.g, out.id = g, len(g.ops)
	g.ops = append(g.ops, op)
	g.streams = append(g.streams, out)
	g.readers = append(g.readers, 0)
	g.edges = append(g.edges, nil)
	for len(g.inputs) < len(g.ops) {
		g.inputs = append(g.inputs, nil)
	}
	g.slot = 0
	return Node{g: g, id: out.id}
}

// input returns n's output stream, checking that n belongs to g. Building
// a graph from another graph's nodes is a programming error.
func (g *Graph) input(n Node) *stream {
	if n.g != g {
		panic("dataflow: node belongs to another graph")
	}
	// The reader is the operator being built, added next.
	reader := len(g.ops)
	g.readers[n.id]++
	g.edges[n.id] = append(g.edges[n.id], edge{op: reader, slot: g.slot})
	for len(g.inputs) <= reader {
		g.inputs = append(g.inputs, nil)
	}
	g.inputs[reader] = append(g.inputs[reader], n.id)
	g.slot++
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
	g.restored = false
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
	}
	g.flushState()
	return nil
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

// StateBytes returns the approximate bytes of state held by all operators
// of the graph: arrangements, group accumulators and maintained outputs.
func (g *Graph) StateBytes() int64 {
	var n int64
	for _, op := range g.ops {
		n += op.StateBytes()
	}
	return n
}
