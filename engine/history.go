package engine

import (
	"context"
	"time"

	"github.com/streamdb/streamdb/dataflow"
)

// history retains the recent changes of the engine's stored collections
// (tables and source relations) in memory, so that a change feed can
// start in the past: SUBSCRIBE … AS OF t rebuilds its query's inputs as
// they were at t and replays every tick since (see replay in
// subscribe.go). Views are not retained: a feed that starts in the past
// reads their definitions instead (the front end inlines them), which
// costs nothing while nobody asks.
//
// A tick's changes are kept by reference (the batches the tick pushed
// into the dataflows, which nothing modifies), except for cold
// relations, whose rows are never in memory: for them a tick keeps only
// the row ids it appended, and a replay reads those rows back from the
// store. Relations that are not stored keep no history: a feed over
// them cannot start in the past. History is kept for Config.RetainHistory and at most
// Config.RetainHistoryBytes, oldest ticks forgotten first; it starts
// empty when the engine starts.
type history struct {
	window   time.Duration
	maxBytes int64
	ticks    []histTick
	bytes    int64
	// since is the time after which every tick is retained: the
	// earliest AS OF a feed over any collection can start at.
	since uint64
	// created is when each collection created since the engine started
	// was created: a feed cannot start before its inputs existed.
	created map[uint64]uint64
}

// histTick is one tick's changes to the stored collections.
type histTick struct {
	ts   uint64
	wall time.Time
	// deltas are the changes of in-memory collections.
	deltas map[uint64]dataflow.Batch
	// appended are the row ids [from, to) a cold relation appended.
	appended map[uint64][2]int64
	bytes    int64
}

func newHistory(window time.Duration, maxBytes int64, since uint64) *history {
	return &history{window: window, maxBytes: maxBytes, since: since, created: map[uint64]uint64{}}
}

// record retains the changes a write tick at ts made to the stored
// collections, and forgets what falls out of the window. deltas holds
// only stored collections when record runs (before maintenance adds the
// views' changes).
func (h *history) record(ts uint64, deltas map[uint64]dataflow.Batch, tables map[uint64]*tableState) {
	if h.window <= 0 || h.maxBytes <= 0 {
		h.since = ts
		return
	}
	ht := histTick{ts: ts, wall: time.Now(), bytes: tickOverhead}
	for id, d := range deltas {
		t := tables[id]
		if t == nil || t.notStored() {
			// A relation that is not stored has no contents to
			// rebuild a past state from (contentsAt fails on it),
			// so its changes would be kept for nothing.
			continue
		}
		if t.store != nil {
			if ht.appended == nil {
				ht.appended = map[uint64][2]int64{}
			}
			ht.appended[id] = [2]int64{t.nextRowID - int64(len(d)), t.nextRowID}
			ht.bytes += tickOverhead
			continue
		}
		if ht.deltas == nil {
			ht.deltas = map[uint64]dataflow.Batch{}
		}
		ht.deltas[id] = d
		ht.bytes += batchBytes(d)
	}
	h.ticks = append(h.ticks, ht)
	h.bytes += ht.bytes
	h.trim(ht.wall)
}

// trim forgets the ticks older than the window, and the oldest ones
// while the history holds too many bytes.
func (h *history) trim(now time.Time) {
	n := 0
	for n < len(h.ticks) && (h.bytes > h.maxBytes || now.Sub(h.ticks[n].wall) > h.window) {
		h.bytes -= h.ticks[n].bytes
		h.since = h.ticks[n].ts
		n++
	}
	if n > 0 {
		clear(h.ticks[:n])
		h.ticks = h.ticks[n:]
	}
}

// after returns the retained ticks after ts, oldest first.
func (h *history) after(ts uint64) []histTick {
	i := len(h.ticks)
	for i > 0 && h.ticks[i-1].ts > ts {
		i--
	}
	return h.ticks[i:]
}

// sinceOf returns the earliest time a feed reading collection id can
// start at.
func (h *history) sinceOf(id uint64) uint64 {
	return max(h.since, h.created[id])
}

// HistorySince returns, for every stored collection, the earliest time a
// change feed reading it can start at (SUBSCRIBE … AS OF): the history
// before it is gone, or the collection did not exist yet.
func (e *Engine) HistorySince(ctx context.Context) (map[uint64]uint64, error) {
	out := map[uint64]uint64{}
	err := e.call(ctx, func(e *Engine) error {
		for id := range e.tables {
			out[id] = e.hist.sinceOf(id)
		}
		return nil
	})
	return out, err
}
