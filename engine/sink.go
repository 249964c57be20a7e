package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sinks"
	"github.com/streamdb/streamdb/types"
)

// runningSink is a sink the engine feeds: a relation's changes written
// to an external system by a sinks.Sink, which runs on a goroutine of the
// tick loop's group and reads its ticks through a sinkFeed.
type runningSink struct {
	obj  *catalog.Object
	rel  uint64 // the relation it reads
	cols []sinks.Column
	sink sinks.Sink

	// The coordinator's: the sink's history (see sink_feed.go) holds
	// the relation's changes of every tick after since while recording.
	recording bool
	since     uint64
	// committed is the latest time the sink committed externally
	// (sinks.Feed.Committed); the coordinator forgets the history up to
	// it at its next tick.
	committed atomic.Uint64
	// last is the time of the last tick written to the history.
	last atomic.Uint64
	// notify wakes the sink's feed when a tick is written, or the sink
	// is dropped.
	notify  chan struct{}
	dropped atomic.Bool

	mu     sync.Mutex
	state  sinks.State
	reason string

	cancel context.CancelFunc
}

// sinceKey is where a sink's history position is stored, among the
// positions of the sink's id.
const sinceKey = "history_since"

func (rs *runningSink) wake() {
	select {
	case rs.notify <- struct{}{}:
	default:
	}
}

// status returns the state SHOW SINKS reports.
func (rs *runningSink) status() string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	switch {
	case rs.state == "":
		return string(sinks.Starting)
	case rs.state == sinks.Stalled && rs.reason != "":
		return string(rs.state) + ": " + rs.reason
	}
	return string(rs.state)
}

// SinkStatus returns a sink's state for SHOW SINKS.
func (e *Engine) SinkStatus(id uint64) string {
	e.sinksMu.Lock()
	rs := e.sinks[id]
	e.sinksMu.Unlock()
	if rs == nil {
		return "stopped"
	}
	return rs.status()
}

// sinkEngine is the engine side of one running sink (sinks.Engine).
type sinkEngine struct {
	e  *Engine
	rs *runningSink
}

var _ sinks.Engine = (*sinkEngine)(nil)

// Status records the sink's state.
func (se *sinkEngine) Status(s sinks.State, reason string) {
	se.rs.mu.Lock()
	se.rs.state, se.rs.reason = s, reason
	se.rs.mu.Unlock()
}

// sinkRestartMax bounds the wait before a failed sink runs again.
const sinkRestartMax = time.Minute

// startSink runs a sink in the tick loop's group until ctx ends or the
// sink is dropped. A sink whose Run fails is run again after a backoff,
// unless another instance of it took over (sinks.ErrFenced): running it
// again would fence that instance in turn. Neither stops the engine.
func (e *Engine) startSink(ctx context.Context, rs *runningSink) {
	ctx, rs.cancel = context.WithCancel(ctx)
	se := &sinkEngine{e: e, rs: rs}
	e.group.Go(func() error {
		backoff := time.Second
		for {
			err := rs.sink.Run(ctx, se)
			if ctx.Err() != nil || rs.dropped.Load() {
				return nil
			}
			if err == nil {
				err = errors.New("the sink stopped")
			}
			se.Status(sinks.Stalled, err.Error())
			if errors.Is(err, sinks.ErrFenced) {
				e.log.Error("sink stopped: another instance took over", "sink", rs.obj.Name, "err", err)
				return nil
			}
			e.log.Warn("sink failed; restarting", "sink", rs.obj.Name, "err", err, "backoff", backoff)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, sinkRestartMax)
		}
	})
}

// SinkDef describes a new sink for CreateSink.
type SinkDef struct {
	// ID is the sink's catalog id, reserved with NextID: the sink's
	// external state is named after it.
	ID   uint64
	Name string
	// SQL is the statement that created the sink, which the Binder
	// rebuilds it from on start.
	SQL string
	// From is the relation the sink reads: a table, a source's relation
	// or a materialized view.
	From uint64
	// DependsOn lists the objects the sink uses besides From (its
	// connection).
	DependsOn []uint64
	// Key are the sink's KEY columns; CheckKey checks that they are
	// unique in the relation now (KEY without NOT ENFORCED).
	Key      []int
	CheckKey bool
}

// CreateSink creates a sink reading def.From and runs s once the change
// has committed. The sink records the relation's history from the
// change on.
func (tx *DDL) CreateSink(ctx context.Context, def SinkDef, s sinks.Sink) error {
	rel, ok := tx.cat.ByID(def.From)
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "relation %d does not exist", def.From)
	}
	switch {
	case rel.Kind == catalog.KindMaterializedView:
	case rel.HasRows():
	default:
		return pgerr.New(pgerr.FeatureNotSupported, "cannot sink %s %q: a sink reads a table, a source or a materialized view", rel.Kind, rel.Name).
			WithHint("Create a materialized view of it and sink that.")
	}
	if _, exists := tx.cat.Lookup(catalog.DefaultSchema, def.Name); exists {
		return pgerr.New(pgerr.DuplicateObject, "sink %q already exists", def.Name)
	}
	rs := &runningSink{rel: rel.ID, cols: sinkColumns(rel), sink: s, notify: make(chan struct{}, 1)}
	if def.CheckKey {
		rows, err := tx.e.relationRows(rel.ID)
		if err != nil {
			return err
		}
		if err := sinks.CheckUniqueKey(rs.cols, def.Key, rows); err != nil {
			return err
		}
	}
	deps := append([]uint64{rel.ID}, def.DependsOn...)
	rs.obj = &catalog.Object{Kind: catalog.KindSink, Schema: catalog.DefaultSchema, Name: def.Name, SQL: def.SQL,
		On: rel.ID, DependsOn: deps, ID: def.ID}
	if err := tx.Create(ctx, rs.obj); err != nil {
		return err
	}
	// The history starts now, not when the sink first reaches its
	// external system: a sink without SNAPSHOT writes every change
	// after CREATE SINK, the ones made while it was connecting too.
	created := tx.e.ts
	tx.batch.SetPosition(rs.obj.ID, sinceKey, tsValue(created))
	tx.afterCommit(func(ctx context.Context, e *Engine) {
		rs.recording, rs.since = true, created
		rs.committed.Store(created)
		rs.last.Store(created)
		e.sinkRels[rs.rel]++
		e.sinksMu.Lock()
		e.sinks[rs.obj.ID] = rs
		e.sinksMu.Unlock()
		e.startSink(ctx, rs)
	})
	return nil
}

// sinkColumns returns a relation's columns as a sink sees them.
func sinkColumns(o *catalog.Object) []sinks.Column {
	cols := make([]sinks.Column, len(o.Columns))
	for i, c := range o.Columns {
		cols[i] = sinks.Column{Name: c.Name, Type: c.Type}
	}
	return cols
}

// relationRows returns a table's, source relation's or materialized
// view's contents now, consolidated, as a sink's snapshot.
func (e *Engine) relationRows(id uint64) ([]sinks.Change, error) {
	var b dataflow.Batch
	if t, ok := e.tables[id]; ok {
		var err error
		if b, err = t.snapshot().batch(); err != nil {
			return nil, err
		}
		b = b.Consolidate()
	} else if f := e.flowByID(id); f != nil && f.out != nil {
		snap := f.out.Snapshot()
		if errs := snap.Errors(); len(errs) > 0 {
			return nil, errs[0].Err
		}
		if err := snapshotRows(snap, func(row types.Row, n int64) {
			b = append(b, dataflow.Update{Row: row, Diff: n})
		}); err != nil {
			return nil, err
		}
	} else {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %d does not exist", id)
	}
	out := make([]sinks.Change, len(b))
	for i, u := range b {
		out[i] = sinks.Change{Row: u.Row, Diff: u.Diff}
	}
	return out, nil
}

// recoverSink rebuilds a sink after a restart from its stored definition
// (through the binder) and history position. It starts with the sources
// when the tick loop starts.
func (e *Engine) recoverSink(o *catalog.Object) error {
	s, err := e.binder.OpenSink(e.cat, o, e.instanceID)
	if err != nil {
		return err
	}
	rel, ok := e.cat.ByID(o.On)
	if !ok {
		return pgerr.New(pgerr.DataCorrupted, "sink %q reads relation %d, which does not exist", o.Name, o.On)
	}
	rs := &runningSink{obj: o, rel: o.On, cols: sinkColumns(rel), sink: s, notify: make(chan struct{}, 1)}
	err = e.store.Positions(o.ID, func(part string, pos []byte) error {
		if part == sinceKey && len(pos) == 8 {
			rs.recording, rs.since = true, binary.BigEndian.Uint64(pos)
			rs.committed.Store(rs.since)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if rs.recording {
		e.sinkRels[rs.rel]++
		last, ok, err := e.store.LastKey(o.ID)
		if err != nil {
			return err
		}
		if ok && len(last) == 12 {
			rs.last.Store(binary.BigEndian.Uint64(last))
		}
	}
	e.sinks[o.ID] = rs
	return nil
}

// dropSink stops a dropped sink; its history went with the catalog
// change's batch.
func (e *Engine) dropSink(id uint64) {
	e.sinksMu.Lock()
	rs := e.sinks[id]
	delete(e.sinks, id)
	e.sinksMu.Unlock()
	if rs == nil {
		return
	}
	if rs.recording {
		if e.sinkRels[rs.rel]--; e.sinkRels[rs.rel] <= 0 {
			delete(e.sinkRels, rs.rel)
		}
		rs.recording = false
	}
	rs.dropped.Store(true)
	rs.wake()
	if rs.cancel != nil {
		rs.cancel()
	}
}
