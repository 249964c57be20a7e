package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sinks"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// A sink's history is the relation's changes of every tick after the
// time it last committed externally, kept in the store under the sink's
// id: key the tick's time and a chunk number (big-endian, 8 and 4
// bytes), value the chunk's changes, each a zigzag varint weight, a
// uvarint length and the row's value encoding. Each tick's changes are
// written in the tick's own batch, with the relation's rows: the history
// holds exactly the ticks that committed, so that after a crash the
// sink resumes after its externally committed time and finds every tick
// since (see the package documentation). The feed reads the history
// back, so a sink that falls behind holds disk, not memory.
const sinkChunkBytes = 64 << 10

func sinkKey(ts uint64, chunk uint32) []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, ts), chunk)
}

// writeSinkHistory adds the tick's changes of every relation a
// recording sink reads to the tick's batch, and returns the sinks
// written, to wake once the batch is durable. deltas must hold the
// changes of the views sinks read (maintenance has run) or of tables
// only.
func (e *Engine) writeSinkHistory(batch *storage.Batch, ts uint64, deltas map[uint64]dataflow.Batch) []*runningSink {
	var written []*runningSink
	cache := map[uint64][][]byte{}
	for _, rs := range e.sinks {
		if !rs.recording {
			continue
		}
		d := deltas[rs.rel]
		if len(d) == 0 {
			continue
		}
		chunks, ok := cache[rs.rel]
		if !ok {
			chunks = encodeChanges(slices.Clone(d).Consolidate())
			cache[rs.rel] = chunks
		}
		for i, c := range chunks {
			batch.Put(rs.obj.ID, sinkKey(ts, uint32(i)), c)
		}
		if len(chunks) > 0 {
			written = append(written, rs)
		}
	}
	return written
}

// encodeChanges encodes a consolidated batch in chunks of about
// sinkChunkBytes.
func encodeChanges(b dataflow.Batch) [][]byte {
	var chunks [][]byte
	var cur []byte
	for _, u := range b {
		cur = binary.AppendVarint(cur, u.Diff)
		row := types.AppendRow(nil, u.Row)
		cur = binary.AppendUvarint(cur, uint64(len(row)))
		cur = append(cur, row...)
		if len(cur) >= sinkChunkBytes {
			chunks = append(chunks, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		chunks = append(chunks, cur)
	}
	return chunks
}

// decodeChanges appends the changes of one chunk to out.
func decodeChanges(out []sinks.Change, v []byte) ([]sinks.Change, error) {
	for len(v) > 0 {
		diff, n := binary.Varint(v)
		if n <= 0 {
			return out, fmt.Errorf("corrupt sink history")
		}
		v = v[n:]
		l, n := binary.Uvarint(v)
		if n <= 0 || l > uint64(len(v)-n) {
			return out, fmt.Errorf("corrupt sink history")
		}
		row, err := types.DecodeRow(v[n:n+int(l)], nil)
		if err != nil {
			return out, fmt.Errorf("corrupt sink history: %w", err)
		}
		out = append(out, sinks.Change{Row: row, Diff: diff})
		v = v[n+int(l):]
	}
	return out, nil
}

// trimSinkHistory forgets, in batch, each sink's history up to the time
// it last committed externally.
func (e *Engine) trimSinkHistory(batch *storage.Batch) {
	for _, rs := range e.sinks {
		c := rs.committed.Load()
		if !rs.recording || c <= rs.since {
			continue
		}
		batch.DeleteRange(rs.obj.ID, nil, sinkKey(c+1, 0))
		batch.SetPosition(rs.obj.ID, sinceKey, tsValue(c))
		rs.since = c
	}
}

// wakeSinks tells the feeds of the sinks written in a tick at ts that it
// is durable.
func wakeSinks(written []*runningSink, ts uint64) {
	for _, rs := range written {
		rs.last.Store(ts)
		rs.wake()
	}
}

// Open implements sinks.Engine: it starts the sink's feed where the sink
// asks (see package sinks). A sink resuming after a time its history
// covers gets the ticks after it, and one starting without SNAPSHOT
// for the first time the ticks since it was created; otherwise it gets
// the relation's contents now, flagged a snapshot, and its history
// starts again from now.
func (se *sinkEngine) Open(ctx context.Context, start sinks.Start) (sinks.Feed, error) {
	var feed *sinkFeed
	err := se.e.call(ctx, func(e *Engine) error {
		rs := se.rs
		if rs.dropped.Load() {
			return pgerr.New(pgerr.UndefinedObject, "sink %q was dropped", rs.obj.Name)
		}
		if start.Resume && start.After > e.ts {
			// The sink committed a time the engine's stored clock has not
			// reached (a clock tick lost with the machine): move the clock
			// past it, so that later ticks come after.
			e.ts = start.After
		}
		feed = &sinkFeed{e: e, rs: rs}
		if start.Resume && rs.recording && start.After >= rs.since {
			feed.cursor = start.After
			if start.After > rs.committed.Load() {
				rs.committed.Store(start.After)
			}
			return nil
		}
		if !start.Resume && !start.Snapshot && rs.recording {
			// A first start without SNAPSHOT: the history kept since
			// CREATE SINK follows an empty tick at its time.
			feed.first, feed.cursor = &sinks.Tick{Time: rs.since}, rs.since
			return nil
		}
		first := &sinks.Tick{Time: e.ts}
		if start.Resume || start.Snapshot {
			rows, err := e.relationRows(rs.rel)
			if err != nil {
				return err
			}
			first.Changes, first.Snapshot = rows, true
		}
		batch := e.store.NewBatch()
		batch.DropCollection(rs.obj.ID)
		batch.SetPosition(rs.obj.ID, sinceKey, tsValue(e.ts))
		batch.SetMeta("ts", tsValue(e.ts))
		if err := batch.Commit(); err != nil {
			return fmt.Errorf("start the history of sink %s: %w", rs.obj.Name, err)
		}
		if !rs.recording {
			e.sinkRels[rs.rel]++
		}
		rs.recording, rs.since = true, e.ts
		rs.committed.Store(e.ts)
		rs.last.Store(e.ts)
		feed.first, feed.cursor = first, e.ts
		return nil
	})
	if err != nil {
		return nil, err
	}
	return feed, nil
}

// sinkFeed is a running sink's feed: the first tick Open settled, then
// the sink's history after it, read back from the store tick by tick.
type sinkFeed struct {
	e     *Engine
	rs    *runningSink
	first *sinks.Tick
	// cursor is the time of the last tick delivered.
	cursor uint64
}

var _ sinks.Feed = (*sinkFeed)(nil)

// Next returns the next tick, waiting for it.
func (f *sinkFeed) Next(ctx context.Context) (sinks.Tick, error) {
	if f.first != nil {
		t := *f.first
		f.first = nil
		return t, nil
	}
	for {
		if f.rs.dropped.Load() {
			return sinks.Tick{}, pgerr.New(pgerr.UndefinedObject, "sink %q was dropped", f.rs.obj.Name)
		}
		t, ok, err := f.read()
		if err != nil {
			return sinks.Tick{}, err
		}
		if ok {
			f.cursor = t.Time
			return t, nil
		}
		select {
		case <-f.rs.notify:
		case <-ctx.Done():
			return sinks.Tick{}, ctx.Err()
		case <-f.e.stopped:
			return sinks.Tick{}, errShutdown()
		}
	}
}

// read reads the first tick after the cursor from the history.
func (f *sinkFeed) read() (sinks.Tick, bool, error) {
	var t sinks.Tick
	found := false
	var err error
	serr := f.e.store.ScanRange(f.rs.obj.ID, sinkKey(f.cursor+1, 0), nil, func(k, v []byte) error {
		if len(k) != 12 {
			return fmt.Errorf("corrupt sink history key %x", k)
		}
		ts := binary.BigEndian.Uint64(k)
		if found && ts != t.Time {
			return storage.ErrStop
		}
		t.Time, found = ts, true
		t.Changes, err = decodeChanges(t.Changes, v)
		return err
	})
	if serr != nil {
		return t, false, serr
	}
	return t, found, nil
}

// Pending reports whether Next would return at once.
func (f *sinkFeed) Pending() bool {
	return f.first != nil || f.rs.last.Load() > f.cursor || f.rs.dropped.Load()
}

// Committed records how far the sink has committed; the coordinator
// forgets the history up to it at its next tick.
func (f *sinkFeed) Committed(t uint64) {
	for {
		c := f.rs.committed.Load()
		if t <= c || f.rs.committed.CompareAndSwap(c, t) {
			return
		}
	}
}

// Close releases the feed. The history stays: the sink's next run
// resumes from it.
func (f *sinkFeed) Close() {}
