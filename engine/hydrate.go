package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync/atomic"
	"time"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
)

// On start the engine serves at once, before its views are back: each
// materialized view and index is hydrated in the background, restored
// from its persisted state or, when it has none that this build can
// read, rebuilt from its inputs (restore.go decides which). A flow is
// installed, and readable, once its hydration ends. Until then:
//
//   - a read that needs it waits for it (Snapshot.Hydrating), as long as
//     its statement may run;
//   - a write whose changes would reach it, directly or through another
//     view, waits in the coordinator (hydration.deferred), and so does a
//     source's batch: the flow's inputs stay as they were when its state
//     was persisted, or when its rebuild read them;
//   - catalog changes wait, so that none reads a view not yet there.
//
// Everything else goes on: reads and writes of the tables and views that
// are ready. A hydration that fails (persisted state that does not read
// back, a view over a source that is not stored and whose state is gone)
// leaves the view failed: reads of it fail with the reason until it is
// dropped.

// hydration is the coordinator's record of the flows being hydrated.
type hydration struct {
	jobs map[uint64]*hydrationJob
	// failed holds the views whose hydration failed, with the reason.
	failed map[uint64]error
	// blocked holds the objects whose changes would reach a flow being
	// hydrated; deferred the requests that change them, or change the
	// catalog, in arrival order.
	blocked  map[uint64]bool
	deferred []*coordReq
	// retry is set when a hydration ended, so that the loop runs the
	// deferred requests again.
	retry bool
}

// hydrationJob is one flow's hydration.
type hydrationJob struct {
	f       *flow
	restore bool
	// reason says why a flow is rebuilt rather than restored.
	reason string
	// after are the jobs of the flows it reads, which a rebuild waits
	// for.
	after []*hydrationJob
	done  chan struct{}
	err   error
	// progress is the fraction done, as float64 bits; of a restore,
	// stateShare is the part of it that reading the persisted state
	// takes, the rest deriving state from tables.
	progress   atomic.Uint64
	stateShare float64
	start      time.Time
}

func (j *hydrationJob) setProgress(p float64) { j.progress.Store(math.Float64bits(p)) }

func (j *hydrationJob) fraction() float64 { return math.Float64frombits(j.progress.Load()) }

// status is the job's line in SHOW MATERIALIZED VIEWS.
func (j *hydrationJob) status() string {
	if j.restore {
		return "restoring"
	}
	return "rebuilding"
}

// addJob records a flow to hydrate once the engine runs.
func (e *Engine) addJob(j *hydrationJob) {
	h := &e.hydration
	if h.jobs == nil {
		h.jobs = map[uint64]*hydrationJob{}
	}
	j.done = make(chan struct{})
	h.jobs[j.f.obj.ID] = j
	e.dirty[j.f.obj.ID] = true
}

// startHydration starts the recorded hydrations, at most one per
// processor at a time: first the restores, smallest persisted state
// first, so that the views that come back quickly are read soon, then
// the rebuilds in id order, each after the flows it reads.
func (e *Engine) startHydration(ctx context.Context) {
	h := &e.hydration
	if len(h.jobs) == 0 {
		return
	}
	e.computeBlocked()
	order := make([]*hydrationJob, 0, len(h.jobs))
	size := map[*hydrationJob]uint64{}
	for _, j := range h.jobs {
		for in := range j.f.inputs {
			if dep := h.jobs[in]; dep != nil {
				j.after = append(j.after, dep)
			}
		}
		if j.restore {
			state, tables := e.restoreSize(j.f)
			size[j] = state + tables
			j.stateShare = 1
			if tables > 0 {
				j.stateShare = float64(state) / float64(state+tables)
			}
		}
		order = append(order, j)
	}
	sort.Slice(order, func(a, b int) bool {
		ja, jb := order[a], order[b]
		if ja.restore != jb.restore {
			return ja.restore
		}
		if size[ja] != size[jb] {
			return size[ja] < size[jb]
		}
		return ja.f.obj.ID < jb.f.obj.ID
	})
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	e.group.Go(func() error {
		for _, j := range order {
			if !j.restore {
				// The flows it reads come before it in order.
				for _, dep := range j.after {
					select {
					case <-dep.done:
					case <-ctx.Done():
						return nil
					}
				}
			}
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return nil
			}
			e.group.Go(func() error {
				defer func() { <-slots }()
				e.runJob(ctx, j)
				return nil
			})
		}
		return nil
	})
}

// restoreSize estimates the bytes a restore of f reads: its persisted
// state, and the tables its derived state is rebuilt from, from the
// store's files (an error counts 0).
func (e *Engine) restoreSize(f *flow) (state, tables uint64) {
	state, _ = e.store.StateSize(f.obj.ID)
	for id, in := range f.inputs {
		if in.Derives() {
			n, _ := e.store.CollectionSize(id)
			tables += n
		}
	}
	return state, tables
}

// runJob hydrates one flow off the coordinator and hands it over.
func (e *Engine) runJob(ctx context.Context, j *hydrationJob) {
	err := func() error {
		for _, dep := range j.after {
			if !j.restore && dep.err != nil {
				return fmt.Errorf("it reads %s %q, which could not be hydrated", dep.f.obj.Kind, dep.f.obj.Name)
			}
		}
		if e.testing != nil && e.testing.BeforeHydrate != nil {
			e.testing.BeforeHydrate(j.f.obj.Name)
		}
		j.start = time.Now()
		stop := e.logProgress(j)
		defer stop()
		if j.restore {
			defer tightenGC()()
			n := 0
			if err := j.f.graph.Restore(ctx, stateReader{store: e.store, job: j, n: &n, done: ctx.Done()}); err != nil {
				return err
			}
			return e.derive(ctx, j)
		}
		return e.rebuild(ctx, j)
	}()
	if ctx.Err() != nil {
		return
	}
	if err := e.call(context.WithoutCancel(ctx), func(e *Engine) error {
		e.install(ctx, j, err)
		return nil
	}); err != nil && !errors.Is(err, errShutdown()) {
		e.log.Warn("hydrated flow not installed", "object", j.f.obj.Name, "err", err)
	}
}

// rebuild recomputes a flow from the current contents of its inputs,
// which the flows it reads are among now, persisting its state as it
// goes when it persists.
func (e *Engine) rebuild(ctx context.Context, j *hydrationJob) error {
	snap := e.Snapshot()
	var total int64
	for id := range j.f.inputs {
		if t, ok := snap.Table(id); ok {
			total += int64(t.SizeHint())
		}
	}
	var fed atomic.Int64
	progress := func(rows int64) {
		if total > 0 {
			j.setProgress(min(float64(fed.Add(rows))/float64(total), 1))
		}
	}
	var spill *spillBatch
	if j.f.state != nil {
		spill = j.f.spillTo(e.store)
		defer func() { j.f.state.spill = nil }()
	}
	if err := e.hydrate(ctx, j.f, snap, progress); err != nil {
		if spill != nil {
			_ = spill.flush()
		}
		return err
	}
	if spill != nil {
		return spill.flush()
	}
	return nil
}

// derive rebuilds a restored flow's derived state (dataflow/derive.go)
// from the tables it reads: their contents now are those of the tick its
// state was persisted at, since every change that would reach the flow
// waits for its hydration.
func (e *Engine) derive(ctx context.Context, j *hydrationJob) error {
	snap := e.Snapshot()
	dec := newReusingRowReader()
	var total, done int64
	for id, in := range j.f.inputs {
		if t, ok := snap.Table(id); ok && in.Derives() {
			total += int64(t.SizeHint())
		}
	}
	progress := func(rows int64) {
		if done += rows; total > 0 {
			j.setProgress(j.stateShare + (1-j.stateShare)*min(float64(done)/float64(total), 1))
		}
	}
	for id, in := range j.f.inputs {
		if !in.Derives() {
			continue
		}
		t, ok := snap.Table(id)
		if !ok {
			return fmt.Errorf("%s reads unknown table %d", j.f.obj.Name, id)
		}
		if err := e.hydrateTable(ctx, j.f, in, t, progress, j.f.graph.Derive, dec); err != nil {
			return err
		}
	}
	return j.f.graph.Derive(ctx)
}

// logProgress logs a long hydration's progress every ten seconds until
// the returned function is called.
func (e *Engine) logProgress(j *hydrationJob) func() {
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(10 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				e.log.Info("hydrating", "object", j.f.obj.Name, "how", j.status(), "progress", fmt.Sprintf("%.0f%%", 100*j.fraction()),
					"elapsed", time.Since(j.start).Round(time.Second))
			}
		}
	}()
	return func() { close(stop) }
}

// install makes a hydrated flow the engine's, on the coordinator, or
// records its failure; the requests waiting for it go on.
func (e *Engine) install(ctx context.Context, j *hydrationJob, err error) {
	h := &e.hydration
	id := j.f.obj.ID
	delete(h.jobs, id)
	defer func() {
		// The snapshot published first holds the flow, so that a reader
		// woken by done finds it.
		j.err = err
		e.computeBlocked()
		h.retry = true
		e.dirty[id] = true
		e.publish()
		close(j.done)
	}()
	if _, ok := e.cat.ByID(id); !ok {
		// Dropped meanwhile: its state went with it.
		return
	}
	if err == nil && !j.restore && j.f.state != nil {
		b := e.store.NewBatch()
		b.PutStateHeader(id, j.f.header)
		err = b.Commit()
	}
	if err != nil {
		e.log.Error("view could not be hydrated; reads of it fail until it is dropped", "object", j.f.obj.Name, "err", err)
		if h.failed == nil {
			h.failed = map[uint64]error{}
		}
		h.failed[id] = hydrationFailed(j.f.obj, err)
		return
	}
	e.addFlow(ctx, j.f)
	e.log.Info("hydrated", "object", j.f.obj.Name, "how", j.status(), "reason", j.reason, "elapsed", time.Since(j.start).Round(time.Millisecond),
		"state_bytes", j.f.graph.StateBytes())
}

// hydrationFailed is the error reads of a view whose hydration failed
// get: 0A000 when it needs what is not stored, 55000 otherwise.
func hydrationFailed(o *catalog.Object, err error) error {
	code := pgerr.ObjectNotInPrerequisiteState
	var pe *pgerr.Error
	if errors.As(err, &pe) && pe.Code == pgerr.FeatureNotSupported {
		code = pe.Code
	}
	return pgerr.Wrap(err, code, "%s %q could not be restored after the restart: %v", o.Kind, o.Name, err).
		WithHint("Drop it and create it again.")
}

// computeBlocked finds the objects whose changes would reach a flow
// being hydrated: what the flows read, and everything upstream of it.
func (e *Engine) computeBlocked() {
	h := &e.hydration
	blocked := map[uint64]bool{}
	var visit func(id uint64)
	visit = func(id uint64) {
		if blocked[id] {
			return
		}
		blocked[id] = true
		var f *flow
		if j := h.jobs[id]; j != nil {
			f = j.f
		} else {
			f = e.flowIndex[id]
		}
		if f == nil {
			return
		}
		for in := range f.inputs {
			visit(in)
		}
	}
	for _, j := range h.jobs {
		for in := range j.f.inputs {
			visit(in)
		}
	}
	h.blocked = blocked
}

// waits reports whether a request must wait for hydrations to end: a
// catalog change while any runs, or changes to what one reads.
func (e *Engine) waits(r *coordReq) bool {
	h := &e.hydration
	switch {
	case len(h.jobs) == 0 || r.call != nil:
		return false
	case r.ddl != nil:
		return true
	case r.source != nil:
		rs := r.source
		if h.blocked[rs.progress] || h.blocked[rs.errors] {
			return true
		}
		for _, id := range rs.outputs {
			if h.blocked[id] {
				return true
			}
		}
		return false
	}
	for id := range r.writes.Tables {
		if h.blocked[id] {
			return true
		}
	}
	return false
}

// HydrationError is the error of a read of a view that is not ready yet:
// Ready is closed once it is.
type HydrationError struct {
	Name  string
	Ready <-chan struct{}
}

func (e *HydrationError) Error() string { return fmt.Sprintf("%q is still hydrating", e.Name) }

// viewErr returns why a snapshot has no contents for a materialized view
// or index that its catalog holds: it is hydrating, or it failed.
func (s *Snapshot) viewErr(id uint64) error {
	if j, ok := s.hydrating[id]; ok {
		return &HydrationError{Name: j.f.obj.Name, Ready: j.done}
	}
	if err, ok := s.failed[id]; ok {
		return err
	}
	return nil
}

// ViewErr returns, for a materialized view or index the snapshot has no
// contents of, a *HydrationError while it hydrates (wait for Ready, then
// read a newer snapshot) or the error its hydration failed with; nil
// when the view is readable or does not exist.
func (s *Snapshot) ViewErr(id uint64) error {
	if _, ok := s.views.Get(id); ok {
		return nil
	}
	return s.viewErr(id)
}

// hydrationStat is a flow's hydration state for SHOW MATERIALIZED VIEWS.
func (e *Engine) hydrationStat(id uint64) (string, float64) {
	h := &e.hydration
	if j := h.jobs[id]; j != nil {
		return j.status(), j.fraction()
	}
	if err := h.failed[id]; err != nil {
		return "failed: " + err.Error(), 0
	}
	return "ready", 1
}
