package dataflow

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/streamdb/streamdb/types"
)

// A final step streams. The one-tick dataflow of an ad hoc query sees its
// whole input in its only tick, and a Step would hold every operator's
// whole delta at once: a cross join's billions of matches, the billion
// rows of generate_series(1, 1e9) on their way to a count(*). StepFinal
// instead moves rows between operators in chunks of at most about
// chunkRows: an input hands its rows to its readers chunk by chunk, each
// reader absorbs a chunk and passes on what it emits as soon as that
// fills a chunk, depth first, and the chunk is then dropped. Operators
// that keep state (an aggregate's groups, a join's inputs, a top-k's
// window) keep it as in any tick, and emit when finish tells them that
// all their input has arrived. So a final step holds the state of its
// operators and a chunk per stream, not its deltas, and a sink at the
// end (Sink) receives the result as it is produced.
//
//	graph:  Input → FlatMap → Reduce → Sink
//	chunks: Input 1 → FlatMap 4096 rows → Reduce absorbs; FlatMap 4096
//	        rows → Reduce absorbs; … Input done, FlatMap done; Reduce
//	        finishes: its groups → Sink
//
// Operators finish in the order of creation, as they step in a Step, so
// that each finishes only after everything upstream of it has finished
// and flushed: by then each of its inputs has delivered everything. Every few
// thousand rows moved the step checks ctx and the graph's memory (see
// SetMemoryCheck), so that a statement that grows too large fails early
// and alone.

const (
	// chunkRows is the size at which an operator's output is flushed to
	// its readers during a final step: large enough that per-chunk work
	// is amortised, small enough to stay in the caches.
	chunkRows = 4096
	// checkRows is how many rows a final step moves between two checks
	// of ctx and memory.
	checkRows = 1 << 15
	// flushBytes and checkpointBytes bound the same by the bytes of the
	// values operators build (see stream.built): a chunk of rows of ten
	// megabytes each would otherwise hold forty gigabytes.
	flushBytes      = 4 << 20
	checkpointBytes = 64 << 20
)

// sizeUpdate is the bytes of an Update beside its row.
const sizeUpdate = int64(unsafe.Sizeof(Update{}))

// edge is a reader of a stream: the operator and its input slot.
type edge struct{ op, slot int }

// finalStep is the state of a running final step.
type finalStep struct {
	running bool
	// retracts[i] is set when stream i may carry a retraction in this
	// step: the step's inputs are insertions, and only a Negate (or a
	// top-k's offset without a limit) makes them negative until an
	// operator that starts from empty state and emits at its finish (an
	// aggregate, a distinct, a top-k) takes them in. A reader that cannot take a
	// retraction before the insertion it cancels (a sink that sends
	// rows at once, an aggregate's order statistics) waits for the end
	// of the step when its input may retract.
	retracts []bool
	// moved and movedBytes count the rows and bytes moved since the
	// last check.
	moved      int
	movedBytes int64
	check      func(held int64) error
	// chunk overrides chunkRows, for tests.
	chunk int
}

// chunkSize is the number of rows at which a final step flushes.
func (g *Graph) chunkSize() int {
	if g.fin.chunk > 0 {
		return g.fin.chunk
	}
	return chunkRows
}

// SetMemoryCheck sets a function a final step calls every few thousand
// rows with the bytes its operators hold (StateBytes); its error stops
// the step. It is how a statement's memory budget reaches the dataflow.
func (g *Graph) SetMemoryCheck(check func(held int64) error) { g.fin.check = check }

// StepFinal is Step for a graph that is never stepped again, the one-tick
// dataflow of an ad hoc query: its result is the same, but it streams
// (see above), and operators may skip maintaining state that only later
// ticks would read (a Join matches its two inputs with a hash table of
// one and arranges neither). Every later Step fails.
func (g *Graph) StepFinal(ctx context.Context) error {
	if g.err != nil {
		return g.err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	g.final = true
	g.fin.running = true
	g.fin.retracts = g.retractions()
	g.tick++
	for _, s := range g.streams {
		s.reset()
	}
	err := g.runFinal(ctx)
	g.fin.running = false
	g.err = errSteppedAfterFinal
	if err != nil {
		g.err = err
	}
	return err
}

var errSteppedAfterFinal = errors.New("dataflow: graph stepped after its final step")

// runFinal finishes every operator, flushing its output and telling its
// readers that this input is done: the inputs first, smallest first,
// then the others in order. An input reads nothing, so it may finish at
// any time; finishing the small ones first lets an operator that must
// keep one of its inputs whole (a join's hash table, a semi-join's
// right side) have that one complete before the large one arrives,
// which then streams through.
func (g *Graph) runFinal(ctx context.Context) error {
	order := make([]int, 0, len(g.ops))
	for i, op := range g.ops {
		if _, ok := op.(*inputOp); ok {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(g.ops[a].(*inputOp).in.rows(), g.ops[b].(*inputOp).in.rows())
	})
	for i, op := range g.ops {
		if _, ok := op.(*inputOp); !ok {
			order = append(order, i)
		}
	}
	for _, i := range order {
		op := g.ops[i]
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("dataflow: step canceled before %s: %w", op.Name(), err)
		}
		if err := op.finish(ctx); err != nil {
			return stepError(op, err)
		}
		if err := g.flush(ctx, i); err != nil {
			return err
		}
		for _, e := range g.edges[i] {
			w, ok := g.ops[e.op].(inputWatcher)
			if !ok {
				continue
			}
			if err := w.inputDone(ctx, e.slot); err != nil {
				return stepError(g.ops[e.op], err)
			}
			if err := g.streams[e.op].flushIfFull(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// inputWatcher is an operator that acts when one of its inputs has
// delivered its last chunk of a final step: a Join builds its hash table
// on the first side complete and then streams the other through it.
type inputWatcher interface {
	inputDone(ctx context.Context, slot int) error
}

// flush hands stream id's chunk to its readers and empties it. A reader
// whose own output fills a chunk flushes it in turn, so rows travel to
// the end of the graph before the next chunk starts.
func (g *Graph) flush(ctx context.Context, id int) error {
	s := g.streams[id]
	if len(s.delta) == 0 && len(s.errs) == 0 {
		return nil
	}
	g.fin.moved += len(s.delta)
	if g.fin.movedBytes += s.bytes; g.fin.moved >= checkRows || g.fin.movedBytes >= checkpointBytes {
		g.fin.moved, g.fin.movedBytes = 0, 0
		if err := g.checkpoint(ctx); err != nil {
			return err
		}
	}
	for _, e := range g.edges[id] {
		op := g.ops[e.op]
		if err := op.absorb(ctx, e.slot); err != nil {
			return stepError(op, err)
		}
		if err := g.streams[e.op].flushIfFull(ctx); err != nil {
			return err
		}
	}
	s.reset()
	return nil
}

// checkpoint fails a final step that was canceled or holds more memory
// than its budget allows.
func (g *Graph) checkpoint(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if g.fin.check == nil {
		return nil
	}
	return g.fin.check(g.StateBytes())
}

// flushIfFull flushes the stream to its readers once it holds a chunk,
// of rows or of bytes, during a final step; a Step never flushes.
func (s *stream) flushIfFull(ctx context.Context) error {
	if !s.g.fin.running || len(s.delta) < s.g.chunkSize() && s.bytes < flushBytes {
		return nil
	}
	return s.g.flush(ctx, s.id)
}

// built counts the bytes of the values of a row an operator built, in a
// final step, so that rows of large values flush sooner.
func (s *stream) built(r types.Row) {
	if !s.g.fin.running {
		return
	}
	for i := range r {
		s.bytes += int64(len(r[i].Str()))
	}
}

// checkEvery is how many rows an operator whose work per row has no
// bound (expressions over values of any size) absorbs between checks of
// ctx in a final step.
const checkEvery = 64

// canceled checks ctx every checkEvery rows, the row's index i, in a
// final step.
func (s *stream) canceled(ctx context.Context, i int) error {
	if i%checkEvery != checkEvery-1 || !s.g.fin.running {
		return nil
	}
	return ctx.Err()
}

// streaming reports whether a final step is running, in which an
// operator's absorb sees one chunk of its input at a time.
func (s *stream) streaming() bool { return s.g.fin.running }

// mayRetract reports whether the stream may carry a retraction in the
// running final step.
func (s *stream) mayRetract() bool { return s.g.fin.retracts[s.id] }

// retractions computes finalStep.retracts.
func (g *Graph) retractions() []bool {
	r := make([]bool, len(g.ops))
	for i, op := range g.ops {
		switch op := op.(type) {
		case *negateOp:
			r[i] = true
		case *inputOp:
			r[i] = !positive(op.in.borrowed) || !positive(op.in.pending)
		case *topKOp:
			// Without a limit, its output is its input less the first
			// rows, emitted as such: Δgroup − Δprefix.
			r[i] = op.spec.Limit < 0 && op.spec.Offset > 0
		case *reduceOp, *thresholdOp, *monoTopKOp, *windowOp, *collectOp, *outputOp, *sinkOp:
			// They emit at finish, from state that started empty.
		case *semiJoinOp:
			// The right side is only counted.
			r[i] = r[g.inputs[i][0]]
		default:
			for _, in := range g.inputs[i] {
				r[i] = r[i] || r[in]
			}
		}
	}
	return r
}

// opError is an operator's failure, named once however deep in a final
// step's flushes it happened.
type opError struct {
	op  string
	err error
}

func (e *opError) Error() string { return "dataflow: " + e.op + ": " + e.err.Error() }
func (e *opError) Unwrap() error { return e.err }

func stepError(op operator, err error) error {
	var oe *opError
	if errors.As(err, &oe) {
		return err
	}
	return &opError{op: op.Name(), err: err}
}
