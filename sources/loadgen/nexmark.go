package loadgen

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// nexmarkSource is NEXMARK: the NexmarkGenerator stream cut into batches of
// at most MaxBatchChanges events, either as fast as the sink accepts them
// or paced at EVENTS PER SECOND.
type nexmarkSource struct {
	gen   *NexmarkGenerator
	clk   clock
	rate  float64 // events per second; 0 is saturation
	tick  time.Duration
	limit int64 // total events; math.MaxInt64 when unbounded
	// free holds the batch memory the engine handed back
	// (sources.Batch.Release), for the next batches: at saturation two
	// batches are in flight (one generated while the engine ticks the
	// other), so a third is the most that can wait here.
	free chan *nexBatchMem
}

var _ sources.Source = (*nexmarkSource)(nil)

func newNexmarkSource(opts Options, clk clock) *nexmarkSource {
	limit := opts.MaxEvents
	if limit == 0 {
		limit = math.MaxInt64
	}
	return &nexmarkSource{
		gen:   NewNexmarkGenerator(opts.Seed, opts.EventsPerSecond),
		clk:   clk,
		rate:  opts.EventsPerSecond,
		tick:  opts.tickInterval(10 * time.Millisecond),
		limit: limit,
		free:  make(chan *nexBatchMem, 3),
	}
}

// nexmarkOutputs are the person, auction and bid relations with the
// columns and types of RisingWave's nexmark source.
func nexmarkOutputs() []sources.Output {
	i8, text, ts := types.TypeInt8, types.TypeText, types.TypeTimestamp
	return []sources.Output{
		NexmarkPerson: {Name: "person", Columns: notNull(
			col("id", i8), col("name", text), col("email_address", text), col("credit_card", text),
			col("city", text), col("state", text), col("date_time", ts), col("extra", text))},
		NexmarkAuction: {Name: "auction", Columns: notNull(
			col("id", i8), col("item_name", text), col("description", text), col("initial_bid", i8),
			col("reserve", i8), col("date_time", ts), col("expires", ts), col("seller", i8),
			col("category", i8), col("extra", text))},
		NexmarkBid: {Name: "bid", Columns: notNull(
			col("auction", i8), col("bidder", i8), col("price", i8), col("channel", text),
			col("url", text), col("date_time", ts), col("extra", text))},
	}
}

func (s *nexmarkSource) Outputs() []sources.Output { return nexmarkOutputs() }

func (s *nexmarkSource) Run(ctx context.Context, resume map[string][]byte, sink sources.Sink) error {
	pos, err := decodePosition(resume)
	if err != nil {
		return err
	}
	sink.Status(sources.Running, "")
	if s.rate > 0 {
		err = s.paced(ctx, pos, sink)
	} else {
		_, err = s.emitUpTo(ctx, pos, s.limit, sink)
	}
	if err != nil {
		return err
	}
	return idle(ctx)
}

// emitUpTo emits events pos to end-1 in batches and returns end. When
// there is more than one batch to emit, a goroutine generates the next
// batch while the engine commits the current one (Emit returns only after
// the commit), so that generation and the engine's tick run on two cores
// instead of taking turns.
func (s *nexmarkSource) emitUpTo(ctx context.Context, pos, end int64, sink sources.Sink) (int64, error) {
	if end-pos <= MaxBatchChanges {
		if err := ctx.Err(); err != nil || pos >= end {
			return pos, err
		}
		return end, sink.Emit(ctx, s.next(pos, end))
	}
	ctx, cancel := context.WithCancel(ctx)
	batches := make(chan *sources.Batch, 1)
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(batches)
		for p := pos; p < end; p += MaxBatchChanges {
			select {
			case batches <- s.next(p, end):
			case <-ctx.Done():
				return
			}
		}
	})
	defer wg.Wait()
	defer cancel()
	for b := range batches {
		if err := sink.Emit(ctx, b); err != nil {
			return pos, err
		}
		pos = min(pos+MaxBatchChanges, end)
	}
	return pos, ctx.Err()
}

// next generates the batch of at most MaxBatchChanges events that starts
// at event pos, in memory the engine handed back if there is some.
func (s *nexmarkSource) next(pos, end int64) *sources.Batch {
	n := min(end-pos, MaxBatchChanges)
	var m *nexBatchMem
	select {
	case m = <-s.free:
	default:
		m = new(nexBatchMem)
	}
	b := newBatch(s.gen.batch(pos, n, m), pos+n, s.clk.Now())
	b.Replayable = true
	b.Release = func() {
		select {
		case s.free <- m:
		default:
		}
	}
	return b
}

// paced schedules event start+k at k/rate seconds after Run began. Every
// wake-up emits all events whose time has come, then sleeps until the next
// one is due, but at least until a tick after the wake-up, so that events
// gather into batches. The tick counts from the wake-up, not from the end
// of the emission (which waits for the engine's commit): an event then
// waits at most a tick or one emission's time to be emitted, not both.
func (s *nexmarkSource) paced(ctx context.Context, pos int64, sink sources.Sink) error {
	t0, n0 := s.clk.Now(), pos
	for pos < s.limit {
		woke := s.clk.Now()
		elapsed := woke.Sub(t0).Seconds()
		due := min(n0+int64(elapsed*s.rate)+1, s.limit)
		var err error
		if pos, err = s.emitUpTo(ctx, pos, due, sink); err != nil {
			return err
		}
		if pos >= s.limit {
			break
		}
		nextDue := time.Duration(float64(pos-n0) / s.rate * float64(time.Second))
		now := s.clk.Now()
		wait := max(nextDue-now.Sub(t0), s.tick-now.Sub(woke))
		if err := s.clk.Sleep(ctx, wait); err != nil {
			return err
		}
	}
	return nil
}
