package engine

import (
	"container/heap"
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/btree"
	"golang.org/x/sync/errgroup"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// coordinator owns all mutable engine state and runs the tick loop; see
// the package documentation. Every method without a "submit" in its name
// runs on the coordinator's goroutine (or during open, before it starts).
type Engine struct {
	store *storage.DB
	log   *slog.Logger
	seqs  sequences
	reqs  chan *coordReq
	// stopped is closed when the tick loop has returned.
	stopped chan struct{}
	snap    atomic.Pointer[Snapshot]
	// failed is set when a tick could not be made durable; from then on
	// every request fails, since memory and disk may disagree.
	failed atomic.Pointer[error]

	// cat is the live catalog; readers get frozen copies.
	cat    *catalog.Catalog
	tables map[uint64]*tableState
	// readers maps an object to the flows that read it.
	readers map[uint64][]*flow
	// flowIndex finds a flow by the id of its object.
	flowIndex map[uint64]*flow
	// running holds the sources being ingested, by source id; sourcesMu
	// guards it for SHOW SOURCES on other goroutines.
	sourcesMu sync.Mutex
	running   map[uint64]*runningSource
	// group runs the sources while the tick loop runs; the loop waits
	// for them when it stops.
	group *errgroup.Group
	// binder rebuilds what recovery cannot from stored data alone.
	binder Binder
	// pendingSources are sources found during recovery, wired to their
	// relations once the whole catalog is loaded.
	pendingSources []pendingSource
	ts             uint64
	// sourceBatchBytes is the size of the last tick's batch that carried
	// a source's changes: the next such tick starts its batch that large.
	sourceBatchBytes int

	// The published contents, updated for the objects in dirty.
	snapTables *btree.Map[uint64, *TableSnap]
	snapViews  *btree.Map[uint64, *dataflow.Snapshot]
	dirty      map[uint64]bool

	// maintain carries each write tick's view maintenance to the
	// maintainer goroutine (see writeTick).
	maintain chan func()
}

// coordReq is one unit of work for the tick loop: a transaction's writes
// or a catalog change.
type coordReq struct {
	writes *WriteSet
	// source and batch are a source's batch to ingest.
	source *runningSource
	batch  *sources.Batch
	// call runs on the coordinator outside any tick.
	call func(c *Engine) error
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
func (c *Engine) submit(ctx context.Context, r *coordReq) error {
	if p := c.failed.Load(); p != nil {
		return pgerr.Wrap(*p, pgerr.IOError, "the engine stopped after a storage failure: %v", *p)
	}
	done := make(chan struct{})
	r.done = done
	select {
	case c.reqs <- r:
	case <-ctx.Done():
		return pgerr.Canceled()
	case <-c.stopped:
		return errShutdown()
	}
	select {
	case <-done:
		return r.err
	case <-c.stopped:
		// The loop may have finished the request just before stopping.
		select {
		case <-done:
			return r.err
		default:
			return errShutdown()
		}
	}
}

// Commit applies a transaction's writes in the next tick and waits until
// that tick is durable and published, so that the writer reads its own
// writes in every view. It fails with 40001 when a row the transaction
// read has changed since, and with a unique violation when a key it
// creates has appeared.
func (c *Engine) Commit(ctx context.Context, w *WriteSet) error {
	return c.submit(ctx, &coordReq{writes: w})
}

// errShutdown is the error of work submitted while the engine stops.
func errShutdown() error {
	return pgerr.New(pgerr.AdminShutdown, "terminating connection due to administrator command")
}

// Run is the tick loop. It closes stopped when it returns.
func (c *Engine) Run(ctx context.Context) error {
	defer close(c.stopped)
	c.maintain = make(chan func())
	defer close(c.maintain)
	go maintainer(c.maintain)
	ctx, cancel := context.WithCancel(ctx)
	c.group = new(errgroup.Group)
	defer func() {
		cancel()
		c.group.Wait()
	}()
	c.sourcesMu.Lock()
	for _, rs := range c.running {
		c.startSource(ctx, rs)
	}
	c.sourcesMu.Unlock()
	for {
		var first *coordReq
		select {
		case <-ctx.Done():
			return nil
		case first = <-c.reqs:
		}
		reqs := []*coordReq{first}
	gather:
		for len(reqs) < maxGroupCommit {
			select {
			case r := <-c.reqs:
				reqs = append(reqs, r)
			default:
				break gather
			}
		}
		if err := c.process(ctx, reqs); err != nil {
			c.failed.Store(&err)
			c.log.Error("tick failed; engine stopped", "err", err)
			for _, r := range reqs {
				if r.done != nil {
					r.err = pgerr.Wrap(err, pgerr.IOError, "could not commit: %v", err)
					close(r.done)
					r.done = nil
				}
			}
			c.drain(err)
			return err
		}
	}
}

// drain fails requests that arrive after a fatal error, until shutdown.
func (c *Engine) drain(err error) {
	go func() {
		for r := range c.reqs {
			r.err = pgerr.Wrap(err, pgerr.IOError, "could not commit: %v", err)
			close(r.done)
		}
	}()
}

// process runs consecutive write requests as one tick and each catalog
// change as a tick of its own, in arrival order.
func (c *Engine) process(ctx context.Context, reqs []*coordReq) error {
	var writes []*coordReq
	for _, r := range reqs {
		if r.call != nil {
			r.err = r.call(c)
			close(r.done)
			r.done = nil
			continue
		}
		if r.ddl == nil {
			writes = append(writes, r)
			continue
		}
		if len(writes) > 0 {
			if err := c.writeTick(ctx, writes); err != nil {
				return err
			}
			writes = nil
		}
		if err := c.ddlTick(ctx, r); err != nil {
			return err
		}
	}
	if len(writes) > 0 {
		return c.writeTick(ctx, writes)
	}
	return nil
}

// nextTS advances the logical clock: milliseconds, strictly increasing.
func (c *Engine) nextTS() uint64 {
	now := uint64(time.Now().UnixMilli())
	if now <= c.ts {
		now = c.ts + 1
	}
	return now
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
func (c *Engine) writeTick(ctx context.Context, reqs []*coordReq) error {
	fromSource := slices.ContainsFunc(reqs, func(r *coordReq) bool { return r.source != nil })
	var batch *storage.Batch
	if fromSource {
		batch = c.store.NewBatchSized(c.sourceBatchBytes)
	} else {
		batch = c.store.NewBatch()
	}
	deltas := map[uint64]dataflow.Batch{}
	pending := uniqueDelta{} // unique keys added by the tick's transactions so far
	for _, r := range reqs {
		if r.source != nil {
			if err := c.applySource(r.source, r.batch, batch, deltas); err != nil {
				if pgerr.As(err) == nil {
					batch.Discard()
					return err
				}
				r.err = err
			}
			continue
		}
		if err := c.validate(r.writes); err != nil {
			r.err = err
			continue
		}
		ud, err := c.validateUnique(r.writes, pending)
		if err != nil {
			r.err = err
			continue
		}
		pending.merge(ud)
		if err := c.apply(r.writes, batch, deltas); err != nil {
			batch.Discard()
			return err
		}
	}
	if len(deltas) == 0 {
		batch.Discard()
		c.finish(reqs)
		return nil
	}
	ts := c.nextTS()
	batch.SetMeta("ts", tsValue(ts))
	if fromSource {
		c.sourceBatchBytes = batch.Len()
	}
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
	c.ts = ts
	var pushes []subPush
	var err error
	maintained := make(chan struct{})
	c.maintain <- func() {
		defer close(maintained)
		pushes, err = c.propagate(ctx, deltas)
	}
	commit := batch.Commit
	if replayable(reqs) {
		commit = batch.CommitUnsynced
	}
	cerr := commit()
	<-maintained
	if cerr != nil {
		return fmt.Errorf("commit tick: %w", cerr)
	}
	if err != nil {
		return err
	}
	for _, p := range pushes {
		p.sub.push(ts, p.delta, p.errs)
	}
	c.publish()
	c.finish(reqs)
	return nil
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

// subPush is one subscription's changes of a tick, pushed to its client
// once the tick is durable.
type subPush struct {
	sub   *Subscription
	delta dataflow.Batch
	errs  []dataflow.ErrorUpdate
}

func (c *Engine) finish(reqs []*coordReq) {
	for _, r := range reqs {
		close(r.done)
		r.done = nil
	}
}

// validate checks a transaction's writes against the current contents:
// rows it changed must still hold what it read, and keys it created must
// still be free.
func (c *Engine) validate(w *WriteSet) error {
	for _, id := range w.tableIDs() {
		t, ok := c.tables[id]
		if !ok {
			return pgerr.New(pgerr.UndefinedTable, "table was dropped by a concurrent transaction")
		}
		for _, ch := range w.Tables[id] {
			if ch.Key == "" {
				continue
			}
			cur, exists := t.get(ch.Key)
			switch {
			case ch.Existed && (!exists || cur != ch.Expect):
				return pgerr.New(pgerr.SerializationFailure, "could not serialize access due to concurrent update").
					WithHint("Retry the transaction.")
			case !ch.Existed && exists:
				return UniqueViolation(t.obj, ch.Row)
			}
		}
	}
	return nil
}

// UniqueViolation is PostgreSQL's error for a duplicate primary key.
func UniqueViolation(obj *catalog.Object, row types.Row) error {
	names, vals := keyText(obj, obj.PrimaryKey, row)
	return pgerr.New(pgerr.UniqueViolation, "duplicate key value violates unique constraint %q", obj.Name+"_pkey").
		WithDetail("Key (%s)=(%s) already exists.", names, vals)
}

// apply writes validated changes to the tables and the batch and records
// the Z-set delta of each table.
func (c *Engine) apply(w *WriteSet, batch *storage.Batch, deltas map[uint64]dataflow.Batch) error {
	var buf []byte
	for _, id := range w.tableIDs() {
		t := c.tables[id]
		// Room for every change up front: append's growth of a large
		// slice (1.25×) would copy a bulk load's delta many times over.
		d := slices.Grow(deltas[id], len(w.Tables[id]))
		for _, ch := range w.Tables[id] {
			key := ch.Key
			if ch.Row == nil {
				old, ok := t.remove(key)
				if !ok {
					continue
				}
				batch.Delete(id, []byte(key))
				oldRow, err := types.DecodeRow([]byte(old), nil)
				if err != nil {
					return fmt.Errorf("table %s: %w", t.obj.Name, err)
				}
				d = append(d, dataflow.Update{Row: oldRow, Diff: -1})
				continue
			}
			if key == "" {
				key = rowIDKey(t.nextRowID)
				t.nextRowID++
			}
			buf = types.AppendRow(buf[:0], ch.Row)
			val := string(buf)
			if old, replaced := t.put(key, val); replaced {
				oldRow, err := types.DecodeRow([]byte(old), nil)
				if err != nil {
					return fmt.Errorf("table %s: %w", t.obj.Name, err)
				}
				d = append(d, dataflow.Update{Row: oldRow, Diff: -1})
			}
			batch.Put(id, []byte(key), buf)
			d = append(d, dataflow.Update{Row: ch.Row, Diff: 1})
		}
		if len(d) > 0 {
			deltas[id] = d
			c.dirty[id] = true
		}
	}
	return nil
}

// propagate pushes each changed object's delta into the dataflows that
// read it, in dependency (id) order, so that views over views see their
// inputs' changes of the same tick. Only flows downstream of a change are
// visited. It returns the subscriptions' changes, for the caller to push
// once the tick is durable.
func (c *Engine) propagate(ctx context.Context, deltas map[uint64]dataflow.Batch) ([]subPush, error) {
	var pushes []subPush
	errDeltas := map[uint64][]dataflow.ErrorUpdate{}
	var work flowQueue
	queued := map[*flow]bool{}
	enqueue := func(id uint64) {
		for _, f := range c.readers[id] {
			if !queued[f] {
				queued[f] = true
				heap.Push(&work, f)
			}
		}
	}
	for id := range deltas {
		enqueue(id)
	}
	for work.Len() > 0 {
		f := heap.Pop(&work).(*flow)
		changed := false
		for id, in := range f.inputs {
			if d := deltas[id]; len(d) > 0 {
				in.Push(d)
				changed = true
			}
			if e := errDeltas[id]; len(e) > 0 {
				in.PushErrors(e)
				changed = true
			}
		}
		if !changed {
			continue
		}
		start := time.Now()
		if err := f.graph.Step(ctx); err != nil {
			return nil, fmt.Errorf("maintain %s %s: %w", f.obj.Kind, f.obj.Name, err)
		}
		f.stats.record(time.Since(start))
		if f.sub != nil {
			pushes = append(pushes, subPush{f.sub, f.sub.collect.Delta(), f.sub.collect.Errors()})
			continue
		}
		c.dirty[f.obj.ID] = true
		// A view's delta is asked for only when a flow reads the view:
		// a GROUP BY view's Output builds its delta's rows on demand.
		if f.out == nil || len(c.readers[f.obj.ID]) == 0 {
			continue
		}
		d, e := f.out.Delta(), f.out.DeltaErrors()
		if len(d) > 0 {
			deltas[f.obj.ID] = d
		}
		if len(e) > 0 {
			errDeltas[f.obj.ID] = e
		}
		if len(d) > 0 || len(e) > 0 {
			enqueue(f.obj.ID)
		}
	}
	return pushes, nil
}

// flowQueue orders flows by object id: every flow after the flows it reads.
type flowQueue []*flow

func (q flowQueue) Len() int           { return len(q) }
func (q flowQueue) Less(i, j int) bool { return q[i].obj.ID < q[j].obj.ID }
func (q flowQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *flowQueue) Push(x any)        { *q = append(*q, x.(*flow)) }
func (q *flowQueue) Pop() any {
	old := *q
	f := old[len(old)-1]
	*q = old[:len(old)-1]
	return f
}

// addFlow installs a flow and indexes the objects it reads.
func (c *Engine) addFlow(f *flow) {
	c.flowIndex[f.obj.ID] = f
	for id := range f.inputs {
		c.readers[id] = append(c.readers[id], f)
	}
	c.dirty[f.obj.ID] = true
}

// dropFlows removes the flows of dropped objects.
func (c *Engine) dropFlows(dropped map[uint64]bool) {
	for id := range dropped {
		f := c.flowIndex[id]
		if f == nil {
			continue
		}
		for id := range f.inputs {
			rs := c.readers[id]
			for i, r := range rs {
				if r == f {
					c.readers[id] = append(rs[:i:i], rs[i+1:]...)
					break
				}
			}
		}
	}
	for id := range dropped {
		delete(c.readers, id)
		delete(c.flowIndex, id)
		c.dirty[id] = true
	}
}

// publish makes the current state visible to readers, refreshing the
// published contents of the objects changed since the last publish.
func (c *Engine) publish() {
	for id := range c.dirty {
		if t, ok := c.tables[id]; ok {
			c.snapTables.Set(id, t.snapshot())
		} else {
			c.snapTables.Delete(id)
		}
		if f := c.flowByID(id); f != nil {
			c.snapViews.Set(id, f.publish())
		} else {
			c.snapViews.Delete(id)
		}
	}
	clear(c.dirty)
	old := c.snap.Swap(&Snapshot{ts: c.ts, cat: c.cat.Frozen(), tables: c.snapTables.Copy(), views: c.snapViews.Copy(), next: make(chan struct{})})
	if old != nil {
		close(old.next)
	}
}
