package sql

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"time"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/sql/pgerr"
	"github.com/streamdb/streamdb/sql/types"
	"github.com/streamdb/streamdb/storage"
)

// runningSource is a source the engine ingests from. Its goroutine runs
// the sources.Source; every batch it emits becomes part of a tick, which
// commits the batch's rows together with its resume positions.
type runningSource struct {
	obj *Object
	src sources.Source
	// outputs holds the relation id of each output; progress and errors
	// are the companion relations.
	outputs  []uint64
	progress uint64
	errors   uint64
	resume   map[string][]byte

	mu     sync.Mutex
	state  sources.State
	reason string

	cancel  context.CancelFunc
	dropped bool // set by the coordinator when the source is dropped
}

// status returns the state SHOW SOURCES reports.
func (rs *runningSource) status() string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.state == sources.Stalled && rs.reason != "" {
		return string(rs.state) + ": " + rs.reason
	}
	if rs.state == "" {
		return string(sources.Starting)
	}
	return string(rs.state)
}

// sourceSink is the engine side of a running source.
type sourceSink struct {
	c  *coordinator
	rs *runningSource
}

// Emit hands a batch to the tick loop and waits until it is committed.
func (k *sourceSink) Emit(ctx context.Context, b *sources.Batch) error {
	return k.c.submit(ctx, &coordReq{source: k.rs, batch: b})
}

// Status records the source's state.
func (k *sourceSink) Status(s sources.State, reason string) {
	k.rs.mu.Lock()
	k.rs.state, k.rs.reason = s, reason
	k.rs.mu.Unlock()
}

// startSource runs a source's goroutine until its context ends.
func (c *coordinator) startSource(ctx context.Context, rs *runningSource) {
	ctx, rs.cancel = context.WithCancel(ctx)
	sink := &sourceSink{c: c, rs: rs}
	go func() {
		err := rs.src.Run(ctx, rs.resume, sink)
		if err != nil && ctx.Err() == nil {
			sink.Status(sources.Stalled, err.Error())
			c.log.Error("source stopped", "source", rs.obj.Name, "err", err)
		}
	}()
}

// applySource writes a source batch into the source's relations and the
// store, with the positions it reads up to, and records the deltas.
func (c *coordinator) applySource(rs *runningSource, b *sources.Batch, batch *storage.Batch, deltas map[uint64]dataflow.Batch) error {
	if rs.dropped {
		return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "source %q was dropped", rs.obj.Name)
	}
	for i, changes := range b.Changes {
		if i >= len(rs.outputs) || len(changes) == 0 {
			continue
		}
		if err := c.applyChanges(rs.outputs[i], changes, batch, deltas); err != nil {
			return err
		}
	}
	if len(b.DeadLetters) > 0 {
		changes := make([]sources.Change, len(b.DeadLetters))
		for i, dl := range b.DeadLetters {
			at := dl.Time
			if at.IsZero() {
				at = time.Now()
			}
			changes[i] = sources.Change{Diff: 1, Row: types.Row{
				types.NewText(dl.Partition), types.NewText(dl.Position),
				nullableBytes(dl.Key), nullableBytes(dl.Value),
				types.NewText(dl.Err), types.NewTimestampTZ(at.UnixMicro()),
			}}
		}
		if err := c.applyChanges(rs.errors, changes, batch, deltas); err != nil {
			return err
		}
	}
	if len(b.Progress) > 0 {
		changes := make([]sources.Change, 0, len(b.Progress))
		for part, pos := range b.Progress {
			batch.SetPosition(rs.obj.ID, part, pos)
			offset := types.Null
			if len(pos) == 8 {
				offset = types.NewInt8(int64(binary.BigEndian.Uint64(pos)))
			}
			key := types.Row{types.NewText(part)}
			changes = append(changes, sources.Change{Key: key, Row: types.Row{key[0], offset}})
		}
		if err := c.applyChanges(rs.progress, changes, batch, deltas); err != nil {
			return err
		}
	}
	return nil
}

func nullableBytes(b []byte) types.Datum {
	if b == nil {
		return types.Null
	}
	return types.NewBytea(b)
}

// applyChanges applies a source's changes to one of its relations. Upsert
// relations key rows by their key columns; append relations store each
// row under its key encoding plus a sequence number, so that a retraction
// finds a row equal to the one it retracts.
func (c *coordinator) applyChanges(id uint64, changes []sources.Change, batch *storage.Batch, deltas map[uint64]dataflow.Batch) error {
	t, ok := c.tables[id]
	if !ok {
		return fmt.Errorf("source relation %d is missing", id)
	}
	d := deltas[id]
	var buf []byte
	retract := func(key string) error {
		old, ok := t.remove(key)
		if !ok {
			return nil
		}
		batch.Delete(id, []byte(key))
		row, err := types.DecodeRow([]byte(old), nil)
		if err != nil {
			return err
		}
		d = append(d, dataflow.Update{Row: row, Diff: -1})
		return nil
	}
	insert := func(key string, row types.Row) {
		buf = types.AppendRow(buf[:0], row)
		t.put(key, string(buf))
		batch.Put(id, []byte(key), buf)
		d = append(d, dataflow.Update{Row: row, Diff: 1})
	}
	for _, ch := range changes {
		if !t.obj.Appends {
			key := string(types.AppendKeyRow(nil, ch.Key))
			if err := retract(key); err != nil {
				return err
			}
			if ch.Row != nil {
				insert(key, ch.Row)
			}
			continue
		}
		prefix := types.AppendKeyRow(nil, ch.Row)
		for n := ch.Diff; n > 0; n-- {
			key := binary.BigEndian.AppendUint64(append([]byte(nil), prefix...), uint64(t.nextRowID))
			t.nextRowID++
			insert(string(key), ch.Row)
		}
		for n := ch.Diff; n < 0; n++ {
			key, ok := t.firstWithPrefix(string(prefix))
			if !ok {
				break
			}
			if err := retract(key); err != nil {
				return err
			}
		}
	}
	if len(d) > 0 {
		deltas[id] = d
		c.dirty[id] = true
	}
	return nil
}

// sourceStatus returns a source's state for SHOW SOURCES.
func (c *Engine) sourceStatus(id uint64) string {
	c.c.sourcesMu.Lock()
	rs := c.c.running[id]
	c.c.sourcesMu.Unlock()
	if rs == nil {
		return "stopped"
	}
	return rs.status()
}

// progressColumns and errorsColumns are the companion relations' columns.
var (
	progressColumns = []ColumnDef{
		{Name: "partition", Type: types.TypeText, NotNull: true},
		{Name: "offset", Type: types.TypeInt8},
	}
	errorsColumns = []ColumnDef{
		{Name: "partition", Type: types.TypeText},
		{Name: "position", Type: types.TypeText},
		{Name: "key", Type: types.TypeBytea},
		{Name: "value", Type: types.TypeBytea},
		{Name: "error", Type: types.TypeText, NotNull: true},
		{Name: "ingested_at", Type: types.TypeTimestampTZ, NotNull: true},
	}
)
