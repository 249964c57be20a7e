package engine

import (
	"container/heap"
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/storage"
)

// coordReq is one unit of work for the tick loop: a transaction's writes
// or a catalog change.
type coordReq struct {
	writes *WriteSet
	// source and batch are a source's batch to ingest.
	source *runningSource
	batch  *sources.Batch
	// reset is a source to start over (ResetSource).
	reset *sourceReset
	// call runs on the coordinator outside any tick, with the tick
	// loop's context.
	call func(ctx context.Context, e *Engine) error
	ddl  func(ctx context.Context, tx *DDL) error
	err  error
	done chan struct{}
}

// maxGroupCommit bounds how many transactions share one tick.
const maxGroupCommit = 256

// submit hands a request to the tick loop and waits until the tick that
// contains it has been published. A submitted request is never abandoned:
// once the loop has it, its outcome is waited for even if ctx ends, so the
// client learns whether its write committed.
func (e *Engine) submit(ctx context.Context, r *coordReq) error {
	if p := e.failed.Load(); p != nil {
		return pgerr.Wrap(*p, pgerr.IOError, "the engine stopped after a storage failure: %v", *p)
	}
	done := make(chan struct{})
	r.done = done
	select {
	case e.reqs <- r:
	case <-ctx.Done():
		return pgerr.Canceled()
	case <-e.stopped:
		return errShutdown()
	}
	select {
	case <-done:
		return r.err
	case <-e.stopped:
		// The loop may have finished the request just before stopping.
		select {
		case <-done:
			return r.err
		default:
			return errShutdown()
		}
	}
}

// errShutdown is the error of work submitted while the engine stops.
func errShutdown() error {
	return pgerr.New(pgerr.AdminShutdown, "terminating connection due to administrator command")
}

// drain fails requests that arrive after a fatal error, until shutdown.
func (e *Engine) drain(err error) {
	go func() {
		for r := range e.reqs {
			r.err = pgerr.Wrap(err, pgerr.IOError, "could not commit: %v", err)
			close(r.done)
		}
	}()
}

// process runs consecutive write requests as one tick and each catalog
// change as a tick of its own, in arrival order. Requests that must wait
// for a hydration wait (see hydrate.go).
func (e *Engine) process(ctx context.Context, reqs []*coordReq) error {
	var writes []*coordReq
	for _, r := range reqs {
		if e.waits(r) {
			e.hydration.deferred = append(e.hydration.deferred, r)
			continue
		}
		if r.call != nil {
			r.err = r.call(ctx, e)
			close(r.done)
			r.done = nil
			continue
		}
		if r.ddl == nil {
			writes = append(writes, r)
			continue
		}
		if len(writes) > 0 {
			if err := e.writeTick(ctx, writes); err != nil {
				return err
			}
			writes = nil
		}
		if err := e.ddlTick(ctx, r); err != nil {
			return err
		}
	}
	if len(writes) > 0 {
		return e.writeTick(ctx, writes)
	}
	return nil
}

// maxClockLead bounds how far the logical clock may run ahead of the
// engine's Clock, in milliseconds. Tick timestamps are milliseconds and
// strictly increasing, so more than a thousand ticks a second (a client
// inserting row by row) would carry them ever further past the wall
// clock, and mz_now() with them: a temporal filter would let rows go
// early (15 s early after 20,000 single-row INSERTs in 5 s, before this
// bound). Within the bound a burst ticks at full speed; past it each tick
// waits for the clock, so sustained single ticks run at a thousand a
// second (concurrent writers still share ticks) and mz_now() is never
// more than this ahead of the time.
const maxClockLead = 250

// nextTS advances the logical clock: milliseconds of the engine's Clock,
// strictly increasing, at most maxClockLead ahead of it.
func (e *Engine) nextTS() uint64 {
	now := uint64(e.clock.Now().UnixMilli())
	if now > e.ts {
		return now
	}
	next := e.ts + 1
	if next > now+maxClockLead {
		e.waitClock(next-maxClockLead, time.Duration(next-maxClockLead-now)*time.Millisecond)
	}
	return next
}

// waitClock waits until the engine's Clock reaches the millisecond ms,
// or for d of real time at the most: a ManualClock that a test holds
// still must not stop the engine.
func (e *Engine) waitClock(ms uint64, d time.Duration) {
	reached, release := e.clock.After(time.UnixMilli(int64(ms)))
	defer release()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-reached:
	case <-timer.C:
	}
}

// replayable reports whether a tick carries only replayable source
// batches (sources.Batch.Replayable), which need not wait for the disk:
// a client's write, and any other source's batch, must.
func replayable(reqs []*coordReq) bool {
	for _, r := range reqs {
		if r.source == nil || !r.batch.Replayable {
			return false
		}
	}
	return true
}

func tsValue(ts uint64) []byte { return binary.BigEndian.AppendUint64(nil, ts) }

// writeTick applies a group of transactions, makes them durable in one
// batch, maintains every dataflow and publishes the new snapshot.
func (e *Engine) writeTick(ctx context.Context, reqs []*coordReq) error {
	fromSource := slices.ContainsFunc(reqs, func(r *coordReq) bool { return r.source != nil })
	var batch *storage.Batch
	if fromSource {
		batch = e.store.NewBatchSized(e.sourceBatchBytes)
	} else {
		batch = e.store.NewBatch()
	}
	deltas := map[uint64]dataflow.Batch{}
	pending := uniqueDelta{} // unique keys added by the tick's transactions so far
	resets := false
	for _, r := range reqs {
		if r.reset != nil {
			if err := e.applyReset(r.reset, batch, deltas); err != nil {
				if pgerr.As(err) == nil {
					batch.Discard()
					return err
				}
				r.err = err
				continue
			}
			resets = true
			continue
		}
		if r.source != nil {
			if err := e.applySource(ctx, r.source, r.batch, batch, deltas); err != nil {
				if pgerr.As(err) == nil {
					batch.Discard()
					return err
				}
				r.err = err
			}
			continue
		}
		if err := e.validate(r.writes); err != nil {
			r.err = err
			continue
		}
		ud, err := e.validateUnique(r.writes, pending)
		if err != nil {
			r.err = err
			continue
		}
		if err := e.screen(r.writes); err != nil {
			r.err = err
			continue
		}
		pending.merge(ud)
		if err := e.apply(r.writes, batch, deltas); err != nil {
			batch.Discard()
			return err
		}
	}
	// Rows that were all late change no relation, but their count.
	if !e.saveWatermarks(batch) && len(deltas) == 0 && !resets {
		batch.Discard()
		e.finish(reqs)
		return nil
	}
	ts := e.nextTS()
	batch.SetMeta("ts", tsValue(ts))
	for _, id := range e.emptied {
		e.hist.created[id] = ts
	}
	e.emptied = e.emptied[:0]
	e.saveRowCounts(batch, deltas)
	// The commit (Pebble's memtable insert and WAL fsync) runs beside
	// view maintenance, which needs only memory: the tick's cost is the
	// longer of the two instead of their sum. Maintenance is handed to
	// the maintainer goroutine and the commit runs here, not the other
	// way round: a goroutine readied by another waits behind it until an
	// idle thread takes it, after a pause (tens of microseconds on a
	// virtual machine), often on the same CPU, where it preempts the one
	// that readied it. A commit handed off that way stopped maintenance
	// midway in a third of bench/refresh's ticks (0.6–1.5 ms instead of
	// 0.13–0.2); maintenance handed off that way begins on another
	// thread or here once the commit waits for its fsync, and was
	// stopped in 3%. The coordinator's state is maintenance's alone
	// until it ends. Nothing of the tick becomes visible before both are
	// done: publish and the subscriptions' pushes come after the commit,
	// and a failed commit stops the engine.
	//
	// A tick that changes a view whose state is persisted commits after
	// maintenance instead: the views write their state changes into the
	// tick's batch, so that the state on disk is always the state of
	// the tick on disk (see the package documentation). So does a tick
	// of which a sink reads a view: the view's changes go into the
	// tick's batch (its history commits with the tick).
	e.ts = ts
	e.ticked = true
	e.hist.record(ts, deltas, e.tables)
	e.trimSinkHistory(batch)
	var written []*runningSink
	viewSinks := e.sinksReadViews(deltas)
	if !viewSinks {
		written = e.writeSinkHistory(batch, ts, deltas)
	}
	var pushes []subPush
	var err error
	maintained := make(chan struct{})
	persisted := e.reachesState(deltas)
	if persisted {
		e.state = batch
	}
	e.maintain <- func() {
		defer close(maintained)
		pushes, err = e.propagate(ctx, deltas, ts)
	}
	commit := batch.Commit
	if replayable(reqs) {
		commit = batch.CommitUnsynced
	}
	var cerr error
	after := persisted || viewSinks
	if !after {
		if fromSource {
			e.sourceBatchBytes = batch.Len()
		}
		cerr = commit()
	}
	<-maintained
	e.state = nil
	if after && err == nil {
		if viewSinks {
			written = e.writeSinkHistory(batch, ts, deltas)
		}
		if fromSource {
			e.sourceBatchBytes = batch.Len()
		}
		cerr = commit()
	} else if after {
		batch.Discard()
	}
	if cerr != nil {
		return fmt.Errorf("commit tick: %w", cerr)
	}
	if err != nil {
		return err
	}
	for _, p := range pushes {
		if p.sub.tick(ts, p.delta, p.errs, p.share) {
			e.removeSubscription(p.sub)
		}
	}
	e.maybeRebase()
	wakeSinks(written, ts)
	e.publish()
	for _, r := range reqs {
		if r.reset != nil && r.err == nil {
			e.restartSource(ctx, r.reset)
		}
	}
	e.finish(reqs)
	if len(e.errFlows) > 0 {
		e.trackViewErrors(ctx, e.errFlows, deltas, reqs)
		clear(e.errFlows)
		e.errFlows = e.errFlows[:0]
	} else {
		e.releaseBatches(reqs, deltas)
	}
	return nil
}

// reachesState reports whether a tick's changes reach a flow that
// persists its state, directly or through other views.
func (e *Engine) reachesState(deltas map[uint64]dataflow.Batch) bool {
	seen := map[uint64]bool{}
	var visit func(id uint64) bool
	visit = func(id uint64) bool {
		for _, f := range e.readers[id] {
			if seen[f.obj.ID] {
				continue
			}
			seen[f.obj.ID] = true
			if f.state != nil || visit(f.obj.ID) {
				return true
			}
		}
		return false
	}
	for id := range deltas {
		if visit(id) {
			return true
		}
	}
	return false
}

// sinksReadViews reports whether a recording sink reads a view that the
// tick's changes may reach: its history needs the view's changes before
// the tick commits.
func (e *Engine) sinksReadViews(deltas map[uint64]dataflow.Batch) bool {
	for id, n := range e.sinkRels {
		if n > 0 && e.flowByID(id) != nil {
			return len(deltas) > 0
		}
	}
	return false
}

// saveRowCounts records in the tick's batch the row counts of the
// relations it changed, which a restart reads instead of the rows.
func (e *Engine) saveRowCounts(batch *storage.Batch, deltas map[uint64]dataflow.Batch) {
	for id := range deltas {
		t, ok := e.tables[id]
		if !ok || t.store != nil {
			continue
		}
		batch.SetMeta(rowsKey(id), binary.AppendVarint(nil, t.rows))
		e.overlaid += len(deltas[id])
	}
}

// rebaseEvery is how long overlays may grow before the engine takes a
// new base, however few rows they hold.
const rebaseEvery = 10 * time.Second

// maybeRebase takes a new base for the tables once their overlays hold
// enough rows, or have for long enough (see table_base.go), and always
// after a tick that bypassed the overlays.
func (e *Engine) maybeRebase() {
	if !e.bypassed && e.overlaid < rebaseRows && (e.overlaid == 0 || time.Since(e.lastRebase) < rebaseEvery) {
		return
	}
	e.bypassed = false
	e.rebase()
}

// rebase takes a new base for the tables and empties their overlays.
func (e *Engine) rebase() {
	e.base = e.bases.newBase(e.store)
	e.lastRebase = time.Now()
	e.overlaid = 0
	for id, t := range e.tables {
		if t.overlay != nil && t.overlay.Len() > 0 {
			t.rebase()
			e.dirty[id] = true
		}
	}
}

// maintainer runs the view maintenance of write ticks, one after the
// other, until work closes. It lives as long as the tick loop rather
// than being started per tick because a goroutine's stack grows by
// copying: a new goroutine starts with a few kilobytes and maintenance
// needs tens, so each tick copied its stack two or three times, deep
// into the dataflow, ten microseconds each after other work had made
// the caches cold (a fifth of a 1,000-row GROUP BY update). The
// maintainer's stack stays grown from tick to tick: the collector halves
// an idle goroutine's stack at most once per cycle.
func maintainer(work <-chan func()) {
	for f := range work {
		f()
	}
}

func (e *Engine) finish(reqs []*coordReq) {
	for _, r := range reqs {
		close(r.done)
		r.done = nil
	}
}

// propagate pushes each changed object's delta into the dataflows that
// read it, in dependency (id) order, so that views over views see their
// inputs' changes of the same tick. Only flows downstream of a change are
// visited, and the timed flows with a change due at ts. Every flow
// stepped runs at time ts. It returns the subscriptions' changes, for the
// caller to push once the tick is durable.
func (e *Engine) propagate(ctx context.Context, deltas map[uint64]dataflow.Batch, ts uint64) ([]subPush, error) {
	var pushes []subPush
	errDeltas := map[uint64][]dataflow.ErrorUpdate{}
	var work flowQueue
	queued := map[*flow]bool{}
	enqueue := func(id uint64) {
		for _, f := range e.readers[id] {
			if !queued[f] {
				queued[f] = true
				heap.Push(&work, f)
			}
		}
	}
	for id, d := range deltas {
		enqueue(id)
		if subs := e.directSubs[id]; len(subs) > 0 {
			pushes = directPushes(pushes, subs, slices.Clone(d).Consolidate(), nil)
		}
	}
	now := int64(ts) * 1000
	due := map[*flow]bool{}
	for _, f := range e.timed {
		if at, ok := f.graph.NextWake(); ok && at <= now {
			due[f] = true
			if !queued[f] {
				queued[f] = true
				heap.Push(&work, f)
			}
		}
	}
	for work.Len() > 0 {
		f := heap.Pop(&work).(*flow)
		changed := due[f]
		for id, in := range f.inputs {
			if d := deltas[id]; len(d) > 0 {
				in.Push(f.narrow(id, d))
				changed = true
			}
			if errs := errDeltas[id]; len(errs) > 0 {
				in.PushErrors(errs)
				changed = true
			}
		}
		if !changed {
			continue
		}
		start := time.Now()
		f.graph.SetTime(now)
		if err := f.graph.Step(ctx); err != nil {
			return nil, fmt.Errorf("maintain %s %s: %w", f.obj.Kind, f.obj.Name, err)
		}
		f.stats.record(time.Since(start))
		if f.out != nil && f.sub == nil && (len(f.out.DeltaErrors()) > 0 || e.viewErrs[f.obj.ID] != nil) {
			e.errFlows = append(e.errFlows, f)
		}
		if f.sub != nil {
			pushes = append(pushes, subPush{f.sub, slices.Clone(f.sub.collect.Delta()), f.sub.collect.Errors(), nil})
			continue
		}
		e.dirty[f.obj.ID] = true
		// A view's delta is asked for only when a flow or a sink reads
		// the view: a GROUP BY view's Output builds its delta's rows on
		// demand.
		direct := e.directSubs[f.obj.ID]
		if f.out == nil || len(e.readers[f.obj.ID]) == 0 && e.sinkRels[f.obj.ID] == 0 && len(direct) == 0 {
			continue
		}
		d, errs := f.out.Delta(), f.out.DeltaErrors()
		if len(direct) > 0 {
			pushes = directPushes(pushes, direct, slices.Clone(d), errs)
		}
		if len(d) > 0 {
			deltas[f.obj.ID] = d
		}
		if len(errs) > 0 {
			errDeltas[f.obj.ID] = errs
		}
		if len(d) > 0 || len(errs) > 0 {
			enqueue(f.obj.ID)
		}
	}
	return pushes, nil
}

// publish makes the current state visible to readers, refreshing the
// published contents of the objects changed since the last publish.
func (e *Engine) publish() {
	for id := range e.dirty {
		if t, ok := e.tables[id]; ok {
			e.snapTables.Set(id, t.snapshot())
		} else {
			e.snapTables.Delete(id)
		}
		if f := e.flowByID(id); f != nil {
			e.snapViews.Set(id, f.publish())
		} else {
			e.snapViews.Delete(id)
		}
	}
	clear(e.dirty)
	s := &Snapshot{ts: e.ts, cat: e.cat.Frozen(), tables: e.snapTables.Copy(), views: e.snapViews.Copy(), next: make(chan struct{})}
	if h := &e.hydration; len(h.jobs) > 0 || len(h.failed) > 0 {
		s.hydrating, s.failed = maps.Clone(h.jobs), maps.Clone(h.failed)
	}
	old := e.snap.Swap(s)
	if old != nil {
		close(old.next)
	}
}

// directPushes queues one tick's changes of an object for each of its
// direct subscriptions, sharing one copy, and one TickShare for what
// their consumers make of it.
func directPushes(pushes []subPush, subs []*Subscription, delta dataflow.Batch, errs []dataflow.ErrorUpdate) []subPush {
	var share *TickShare
	if len(subs) > 1 {
		share = &TickShare{}
	}
	for _, s := range subs {
		// A relation widened since the feed began (sources.Batch.AddColumns)
		// has rows wider than the feed's columns: cut back per feed. The
		// feeds' consumers key what they share by their columns.
		pushes = append(pushes, subPush{s, s.flow.narrow(s.direct, delta), errs, share})
	}
	return pushes
}
