package dataflow

import (
	"container/heap"
	"context"
	"math"

	"github.com/streamdb/streamdb/types"
)

// TimeSpan is a half-open interval of times [From, To), in microseconds
// since 1970-01-01 UTC. MinTime and MaxTime leave a side unbounded.
type TimeSpan struct{ From, To int64 }

// The unbounded ends of a TimeSpan.
const (
	MinTime = math.MinInt64
	MaxTime = math.MaxInt64
)

// Validity computes the times at which a row belongs to a temporal
// filter's output: disjoint spans in increasing order, appended to dst.
// No span means never.
type Validity func(row types.Row, dst []TimeSpan) ([]TimeSpan, error)

// TemporalFilter keeps each row of src during the spans of time its
// validity gives (mz_now() <= ts + INTERVAL '5 minutes': from now on,
// until five minutes after ts): the row enters the output at the tick
// whose time reaches the start of a span and leaves it at the tick whose
// time reaches its end, with no input at all. The graph's time is the
// tick's (Graph.SetTime).
//
// A row arriving at time now is emitted at once where now lies in a span;
// the rest is scheduled: its insertion at the start of a later span, its
// retraction at the end of each span. State is the scheduled changes,
// bucketed by millisecond (the engine's ticks are milliseconds apart, so a
// bucket is released by one tick either way); a row whose spans are all
// past costs nothing, and a row past the filter's horizon is forgotten:
// the state of "the last hour" holds the last hour's rows. A retraction
// arriving before the row's scheduled end schedules the opposite change
// at the same time, and the bucket consolidates them away.
//
//	time:   0               10               20
//	input:  +(a, ts=5)      (nothing)        (nothing)
//	filter: mz_now() <= ts + 10
//	output: +(a, 5)         (nothing)        -(a, 5)      (released at 16)
//
// A row whose validity fails contributes its error instead, as in Filter.
func (g *Graph) TemporalFilter(src Node, valid Validity) Node {
	out := new(stream)
	op := &temporalFilterOp{g: g, in: g.input(src), out: out, valid: valid, buckets: map[int64]*scheduled{}}
	g.timed = append(g.timed, op)
	return g.add(op, out)
}

type temporalFilterOp struct {
	g       *Graph
	in, out *stream
	// staged keeps a final step's chunks for one Step at its finish.
	staged heldInput
	valid  Validity
	spans  []TimeSpan
	// buckets holds the scheduled changes by the millisecond (in
	// microseconds) at whose tick they are released, and times is a
	// min-heap of the buckets' times.
	buckets map[int64]*scheduled
	times   timeHeap
	bytes   int64
}

// scheduled is one bucket of changes waiting for its time; settled is
// its length after its last consolidation.
type scheduled struct {
	changes Batch
	settled int
	bytes   int64
}

var _ operator = (*temporalFilterOp)(nil)

func (op *temporalFilterOp) Name() string { return "TemporalFilter" }

// Step first releases the buckets whose time has come, then filters the
// input delta at the graph's time.
func (op *temporalFilterOp) Step(context.Context) error {
	op.out.passErrors(op.in)
	now := op.g.now
	for len(op.times) > 0 && op.times[0] <= now {
		t := heap.Pop(&op.times).(int64)
		b := op.buckets[t]
		delete(op.buckets, t)
		op.bytes -= b.bytes + sizeTimeBucket
		op.out.delta = append(op.out.delta, b.changes.Consolidate()...)
	}
	for _, u := range op.in.delta {
		spans, err := op.valid(u.Row, op.spans[:0])
		op.spans = spans[:0]
		if err != nil {
			op.out.errs = append(op.out.errs, ErrorUpdate{Err: dataError(err), Diff: u.Diff})
			continue
		}
		for _, s := range spans {
			if s.From >= s.To || s.To <= now {
				continue
			}
			if s.From <= now {
				op.out.delta = append(op.out.delta, u)
			} else {
				op.schedule(s.From, u)
			}
			if s.To != MaxTime {
				op.schedule(s.To, Update{Row: u.Row, Diff: -u.Diff})
			}
		}
	}
	return nil
}

// schedule adds a change to the bucket of the first millisecond at or
// after t.
func (op *temporalFilterOp) schedule(t int64, u Update) {
	at := ceilMilli(t)
	b, ok := op.buckets[at]
	if !ok {
		b = &scheduled{}
		op.buckets[at] = b
		heap.Push(&op.times, at)
		op.bytes += sizeTimeBucket
	}
	b.changes = append(b.changes, u)
	n := sizeUpdate + rowBytes(u.Row)
	b.bytes += n
	op.bytes += n
	if len(b.changes) >= 2*b.settled+64 {
		// Retractions that cancel insertions still waiting would
		// otherwise pile up until the bucket's time.
		b.changes = b.changes.Consolidate()
		b.settled = len(b.changes)
		op.bytes -= b.bytes
		b.bytes = 0
		for _, c := range b.changes {
			b.bytes += sizeUpdate + rowBytes(c.Row)
		}
		op.bytes += b.bytes
	}
}

// ceilMilli rounds a time in microseconds up to a whole millisecond.
func ceilMilli(t int64) int64 {
	if t >= math.MaxInt64-1000 {
		return t
	}
	if r := t % 1000; r > 0 {
		return t - r + 1000
	} else if r < 0 {
		return t - r
	}
	return t
}

func (op *temporalFilterOp) nextWake() (int64, bool) {
	if len(op.times) == 0 {
		return 0, false
	}
	return op.times[0], true
}

func (op *temporalFilterOp) StateBytes() int64 { return op.bytes }

// sizeTimeBucket is a bucket's bytes, with its map entry and heap slot.
const sizeTimeBucket = 64 + 48

// timeHeap is a min-heap of times.
type timeHeap []int64

func (h timeHeap) Len() int           { return len(h) }
func (h timeHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h timeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timeHeap) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *timeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (op *temporalFilterOp) absorb(context.Context, int) error {
	op.staged.absorb(op.in)
	return nil
}

func (op *temporalFilterOp) finish(ctx context.Context) error {
	return op.staged.finish(ctx, op.in, op.Step)
}
