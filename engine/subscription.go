package engine

import (
	"context"
	"io"
	"slices"
	"sync"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// Subscription is a change feed of one query for one consumer (a
// client's SUBSCRIBE): a dataflow maintained like a materialized view,
// except that each tick's changes are queued for the consumer instead of
// kept. The coordinator pushes a tick once it is durable; the consumer
// pops ticks in timestamp order with Next.
//
// What a feed delivers, in order:
//
//	progress asOf                  the time the feed starts at
//	asOf    the snapshot           with FeedOptions.Snapshot, if not empty
//	progress asOf+1
//	t1      t1's changes           every tick after asOf that changed the result
//	progress t1+1
//	…
//	progress now+1                 at least once a second, also when idle
//
// A progress tick at t says that every change before t has been
// delivered (Materialize's mz_progressed). With FeedOptions.UpTo the
// feed delivers the changes before UpTo, then progress UpTo, and ends:
// Next returns io.EOF.
//
// The queue is bounded in bytes (FeedOptions.MaxBytes): a consumer that
// falls further behind ends its feed with an error (53200) and the
// queue is freed at once, so a paused client never holds the server's
// memory. Dropping an object the query reads ends the feed with an error
// too.
type Subscription struct {
	flow    *flow
	collect *dataflow.Collector
	opts    FeedOptions
	// direct is the object a subscription to a whole table or
	// materialized view reads: it takes the object's changes as they
	// are, shared with the other subscriptions of the object, and its
	// flow only computed the snapshot. A hundred subscribers of a view
	// then cost a hundred queue pushes a tick, not a hundred dataflow
	// steps and copies.
	direct uint64

	// The coordinator's: where the feed stands.
	asOf uint64
	// frontier is the last progress pushed: every change before it has
	// been pushed.
	frontier uint64
	// waiting holds the snapshot of a feed whose AS OF is still in the
	// future: later ticks up to asOf fold into it.
	waiting  bool
	snapshot dataflow.Batch
	// done is set once the feed ended (UP TO reached, an error, the
	// consumer fell behind): the coordinator stops feeding it.
	done bool

	mu    sync.Mutex
	queue []Tick
	// keepFirst keeps the queue's first tick, the progress at the start
	// time, from being folded into the next progress.
	keepFirst bool
	bytes     int64
	err       error
	notify    chan struct{}
}

// Tick is one tick's changes to a subscription's query: the rows with
// their weights, consolidated, at the tick's timestamp. A progress tick
// has no rows: it says that every change before TS has been delivered.
type Tick struct {
	TS       uint64
	Delta    dataflow.Batch
	Progress bool
	// Shared, when not nil, is the same for every feed that got this
	// Delta (the subscriptions of one whole table or view): see
	// TickShare.
	Shared *TickShare
}

// TickShare holds what the consumers of one tick's changes derive from
// them, to be computed once: a hundred clients of a view that subscribe
// alike receive the same bytes, which the first one to read the tick
// encodes for all (package sql). It is safe for concurrent use.
type TickShare struct {
	mu   sync.Mutex
	vals map[string]any
}

// Load returns the value stored under key, storing compute's result
// first if there is none. Consumers asking for the same key wait for
// the first one's compute.
func (s *TickShare) Load(key string, compute func() any) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.vals[key]
	if !ok {
		if s.vals == nil {
			s.vals = map[string]any{}
		}
		v = compute()
		s.vals[key] = v
	}
	return v
}

// FeedOptions say where a change feed starts and ends.
type FeedOptions struct {
	// Snapshot delivers the query's result at the start time, as
	// insertions, before the changes after it.
	Snapshot bool
	// AsOf, when HasAsOf is set, is the start time: the snapshot is the
	// result at AsOf and the changes of every tick after it follow. A
	// time in the past replays the retained history (see history.go)
	// and fails with 22023 when it is older than the history of an
	// input; with AtLeast it starts at the oldest time it can instead.
	// A time in the future waits for it. Without HasAsOf the feed
	// starts at the latest tick.
	AsOf    uint64
	HasAsOf bool
	AtLeast bool
	// UpTo, when not zero, ends the feed once every change before UpTo
	// has been delivered.
	UpTo uint64
	// MaxBytes bounds the changes queued for the consumer; zero means
	// the engine's Config.FeedBufferBytes.
	MaxBytes int64
	// Dependencies are the catalog objects the query reads, views
	// included: dropping one of them ends the feed with an error.
	Dependencies []uint64
}

// tickOverhead is the memory of a queued tick besides its rows.
const tickOverhead = 64

// batchBytes estimates the memory a batch keeps: each update, its row's
// Datums and the bytes they point to.
func batchBytes(b dataflow.Batch) int64 {
	n := int64(len(b)) * 48
	for _, u := range b {
		n += int64(len(u.Row)) * 32
		for _, d := range u.Row {
			switch d.Kind() {
			case types.Text, types.Varchar, types.Char, types.Name, types.Bytea, types.JSON, types.JSONB:
				n += int64(len(d.Str()))
			}
		}
	}
	return n
}

// start pushes the feed's first ticks: its start time, the snapshot and
// the progress past it. It reports whether the feed ended (UP TO at the
// start time).
func (s *Subscription) start(snapshot dataflow.Batch, errs []dataflow.ErrorUpdate) bool {
	s.waiting = false
	s.frontier = s.asOf
	s.enqueue(Tick{TS: s.asOf, Progress: true})
	s.mu.Lock()
	s.keepFirst = true
	s.mu.Unlock()
	if s.opts.UpTo != 0 && s.opts.UpTo <= s.asOf {
		return s.end(io.EOF)
	}
	if s.opts.Snapshot && len(snapshot) > 0 {
		if s.enqueue(Tick{TS: s.asOf, Delta: slices.Clone(snapshot)}) {
			return true
		}
	}
	if len(errs) > 0 {
		return s.end(errs[0].Err)
	}
	return s.advance(s.asOf + 1)
}

// tick pushes the changes of the tick at ts, a consolidated batch the
// feed may keep (and share with others: nothing modifies it), with the
// TickShare of the feeds it is shared with, if any. It reports whether
// the feed ended.
func (s *Subscription) tick(ts uint64, delta dataflow.Batch, errs []dataflow.ErrorUpdate, share *TickShare) bool {
	if s.done {
		return true
	}
	if s.waiting {
		if ts <= s.asOf {
			s.snapshot = append(s.snapshot, delta...).Consolidate()
			if len(errs) > 0 {
				return s.end(errs[0].Err)
			}
			return false
		}
		if s.start(s.snapshot, nil) {
			return true
		}
		s.snapshot = nil
	}
	if s.opts.UpTo != 0 && ts >= s.opts.UpTo {
		return s.advance(ts + 1)
	}
	if len(delta) > 0 && s.enqueue(Tick{TS: ts, Delta: delta, Shared: share}) {
		return true
	}
	if len(errs) > 0 {
		return s.end(errs[0].Err)
	}
	return s.advance(ts + 1)
}

// heartbeat tells the feed that the engine's clock reached now with no
// change to its inputs since its last tick. It reports whether the feed
// ended.
func (s *Subscription) heartbeat(now uint64) bool {
	if s.done {
		return true
	}
	if s.waiting {
		if now < s.asOf {
			return false
		}
		if s.start(s.snapshot, nil) {
			return true
		}
		s.snapshot = nil
	}
	return s.advance(now + 1)
}

// advance moves the feed's progress to f, ending the feed at UP TO.
func (s *Subscription) advance(f uint64) bool {
	if s.opts.UpTo != 0 && f >= s.opts.UpTo {
		f = s.opts.UpTo
	}
	if f > s.frontier {
		s.frontier = f
		if s.enqueue(Tick{TS: f, Progress: true}) {
			return true
		}
	}
	if s.opts.UpTo != 0 && s.frontier >= s.opts.UpTo {
		return s.end(io.EOF)
	}
	return false
}

// enqueue queues a tick for the consumer, folding consecutive progress
// ticks into the last. It ends the feed, freeing the queue, when the
// queue would exceed its bound, and reports whether it did.
func (s *Subscription) enqueue(t Tick) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return true
	}
	if n := len(s.queue); t.Progress && n > 0 && s.queue[n-1].Progress && !(n == 1 && s.keepFirst) {
		s.queue[n-1] = t
	} else {
		s.queue = append(s.queue, t)
		s.bytes += tickOverhead + batchBytes(t.Delta)
	}
	if s.bytes > s.opts.MaxBytes {
		s.err = pgerr.New(pgerr.OutOfMemory, "subscription canceled: its client fell behind by more than %d bytes of changes", s.opts.MaxBytes).
			WithHint("Read the subscription's rows as they arrive, or raise the server's --subscribe-buffer-bytes.")
		s.queue, s.bytes = nil, 0
		s.done = true
	}
	s.wake()
	return s.done
}

// end ends the feed with err (io.EOF for a clean end) after the ticks
// already queued. It reports true, for the coordinator to stop feeding
// it.
func (s *Subscription) end(err error) bool {
	s.done = true
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
	s.wake()
	return true
}

func (s *Subscription) wake() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// Ready reports whether Next would return at once.
func (s *Subscription) Ready() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue) > 0 || s.err != nil
}

// Next returns the ticks queued since the last call, in timestamp order,
// waiting for one when none is; after them, the error that ended the
// feed, io.EOF when it ended at its UP TO.
func (s *Subscription) Next(ctx context.Context) ([]Tick, error) {
	for {
		s.mu.Lock()
		ticks, err := s.queue, s.err
		s.queue, s.bytes, s.keepFirst = nil, 0, false
		s.mu.Unlock()
		if len(ticks) > 0 {
			return ticks, nil
		}
		if err != nil {
			return nil, err
		}
		select {
		case <-s.notify:
		case <-ctx.Done():
			return nil, pgerr.Canceled()
		}
	}
}

// AsOf returns the time the feed starts at.
func (s *Subscription) AsOf() uint64 { return s.asOf }
