package engine

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/btree"
	"golang.org/x/sync/errgroup"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sinks"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/storage"
)

// Engine owns all mutable state of a streamdb instance and runs the tick
// loop; see the package documentation. Its goroutine, the coordinator,
// is the only one that reads or writes that state: exported methods hand
// work to it and wait, or read what it published (Snapshot). Unexported
// methods run on the coordinator (or in Open, before it starts), unless
// their comment says otherwise.
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
	// sinks holds the sinks being fed, by sink id; sinksMu guards it for
	// SHOW SINKS on other goroutines (the coordinator alone changes it).
	// sinkRels counts the recording sinks of each relation: a view a
	// sink records has its changes computed every tick, before the
	// tick commits (see writeTick).
	sinksMu  sync.Mutex
	sinks    map[uint64]*runningSink
	sinkRels map[uint64]int
	// subs are the change feeds of subscriptions; feedBufferBytes is
	// their default bound (Config.FeedBufferBytes).
	subs            map[*Subscription]bool
	directSubs      map[uint64][]*Subscription
	feedBufferBytes int64
	// hist retains recent changes of stored collections for feeds that
	// start in the past.
	hist *history
	// ticked says a tick ran since the last heartbeat.
	ticked bool
	// instanceID names this data directory among others sharing an
	// external system (a sink's Kafka transactional id).
	instanceID string
	ts         uint64
	// sourceBatchBytes is the size of the last tick's batch that carried
	// a source's changes: the next such tick starts its batch that large.
	sourceBatchBytes int

	// The published contents, updated for the objects in dirty.
	snapTables *btree.Map[uint64, *TableSnap]
	snapViews  *btree.Map[uint64, *dataflow.Snapshot]
	dirty      map[uint64]bool

	// viewErrs records, by view id and error, the errors views are in
	// (see view_errors.go); errFlows are the flows of the current tick
	// whose errors may have changed.
	viewErrs map[uint64]map[string]*viewErrorState
	errFlows []*flow
	// errInfo is viewErrs as last published, for readers.
	errInfo atomic.Pointer[map[uint64]map[string]*viewErrorState]

	// maintain carries each write tick's view maintenance to the
	// maintainer goroutine (see writeTick).
	maintain chan func()

	// base is the store snapshot under the tables' overlays, bases the
	// ones still open, and overlaid the rows the overlays hold (see
	// table_base.go).
	base       *baseSnap
	bases      bases
	overlaid   int
	lastRebase time.Time
	// bypassed is set by a tick that wrote rows to the store only, not
	// to their table's overlay (see bulk.go): it takes a new base before
	// it publishes. emptied lists the relations it emptied without
	// retracting their rows, which history cannot go back past.
	bypassed bool
	emptied  []uint64
	// recompute is set when views are not persisted (Config).
	recompute bool
	// state is the batch that flows write their state changes to while
	// a tick maintains them (see flowState).
	state *storage.Batch
	// hydration tracks the flows being restored or rebuilt in the
	// background, and the requests that wait for them (hydrate.go).
	hydration hydration
	testing   *TestingKnobs
	// clock gives ticks their timestamps and wakes the loop when a
	// timed flow's next change falls due; timed holds the flows whose
	// output changes with time alone (temporal filters).
	clock Clock
	timed []*flow
	// wms holds the watermarks of tables and source relations that have
	// one; wmMu guards the map for LateRows on other goroutines.
	wmMu sync.Mutex
	wms  map[uint64]*watermark
	// coldScratch holds the buffers of appends to cold tables.
	coldScratch runningSource
}

// Binder rebuilds, on start, what the engine cannot from stored data
// alone: the plan of a view and the runtime of a source, from the SQL
// statements that created them. The SQL front end implements it; the
// engine calls it while it replays the catalog, with the catalog as
// loaded so far (every object the one at hand can read).
type Binder interface {
	// PlanView binds and optimises a view's or materialized view's
	// stored definition.
	PlanView(cat *catalog.Catalog, o *catalog.Object) (planner.Node, error)
	// OpenSource builds the source a stored CREATE SOURCE describes. The
	// engine starts it with the positions stored last.
	OpenSource(cat *catalog.Catalog, o *catalog.Object) (sources.Source, error)
	// OpenSink builds the sink a stored CREATE SINK describes, for the
	// engine whose InstanceID is instance. The sink resumes after the
	// progress it committed externally.
	OpenSink(cat *catalog.Catalog, o *catalog.Object, instance string) (sinks.Sink, error)
}

// Config configures an Engine.
type Config struct {
	// DataDir is where the Pebble store lives.
	DataDir string
	Logger  *slog.Logger
	// Binder rebuilds views' plans, sources and sinks on start.
	Binder Binder
	// RecomputeViews makes the engine keep no state of materialized
	// views and indexes in the store: each restart recomputes them from
	// their inputs, as streamdb did before view state was persisted.
	// For comparisons; a source that is not stored needs persisted
	// views.
	RecomputeViews bool
	// CacheSize is the store's block cache in bytes, through which
	// tables are read; 0 picks the default (DefaultCacheSize).
	CacheSize int64
	// Testing holds hooks for tests; nil in a server.
	Testing *TestingKnobs
	// StorageFiles bounds the files the store keeps open (see
	// storage.Options.MaxOpenFiles); 0 keeps the store's default.
	StorageFiles int
	// Keyring seals and opens secrets' values (catalog.Catalog.Seal,
	// SecretValue); without one, secrets cannot be created or read.
	Keyring catalog.Keyring
	// Clock is the engine's time (nil: the wall clock); tests inject a
	// ManualClock.
	Clock Clock
	// FeedBufferBytes bounds the changes a subscription queues for a
	// client that does not read them; past it the subscription ends
	// with an error. Zero means DefaultFeedBufferBytes.
	FeedBufferBytes int64
	// RetainHistory and RetainHistoryBytes bound the recent changes kept
	// for subscriptions AS OF a past time (see history.go). Zero means
	// the defaults; a negative value keeps none.
	RetainHistory      time.Duration
	RetainHistoryBytes int64
}

// TestingKnobs are hooks into the engine's work that tests use to hold
// it at a chosen point.
type TestingKnobs struct {
	// BeforeHydrate is called, on the hydrating goroutine, before a
	// view or index named object is restored or rebuilt after a start.
	BeforeHydrate func(object string)
	// BeforeOpen is called by Open before it opens the store; an error
	// fails the opening.
	BeforeOpen func() error
}

// Defaults of Config.
const (
	DefaultFeedBufferBytes    = 64 << 20
	DefaultRetainHistory      = time.Minute
	DefaultRetainHistoryBytes = 32 << 20
	// DefaultCacheSize is the store's block cache unless configured:
	// tables are read through it, so it is what memory holds of them.
	DefaultCacheSize = 256 << 20
)

// Open opens the store in cfg.DataDir, replays the catalog and rebuilds
// every table and dataflow from durable state. The engine serves once Run
// is running.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	if k := cfg.Testing; k != nil && k.BeforeOpen != nil {
		if err := k.BeforeOpen(); err != nil {
			return nil, err
		}
	}
	cache := cfg.CacheSize
	if cache <= 0 {
		cache = DefaultCacheSize
	}
	store, err := storage.Open(cfg.DataDir, storage.Options{Logger: log, CacheSize: cache, MaxOpenFiles: cfg.StorageFiles})
	if err != nil {
		return nil, err
	}
	e := &Engine{
		store:           store,
		log:             log,
		binder:          cfg.Binder,
		reqs:            make(chan *coordReq, maxGroupCommit),
		stopped:         make(chan struct{}),
		cat:             catalog.New(),
		tables:          map[uint64]*tableState{},
		readers:         map[uint64][]*flow{},
		flowIndex:       map[uint64]*flow{},
		running:         map[uint64]*runningSource{},
		sinks:           map[uint64]*runningSink{},
		sinkRels:        map[uint64]int{},
		subs:            map[*Subscription]bool{},
		directSubs:      map[uint64][]*Subscription{},
		feedBufferBytes: cmp.Or(cfg.FeedBufferBytes, DefaultFeedBufferBytes),
		snapTables:      new(btree.Map[uint64, *TableSnap]),
		snapViews:       new(btree.Map[uint64, *dataflow.Snapshot]),
		dirty:           map[uint64]bool{},
		recompute:       cfg.RecomputeViews,
		testing:         cfg.Testing,
		clock:           cfg.Clock,
		wms:             map[uint64]*watermark{},
		viewErrs:        map[uint64]map[string]*viewErrorState{},
	}
	if e.clock == nil {
		e.clock = wallClock{}
	}
	if e.instanceID, err = instanceID(store); err != nil {
		store.Close()
		return nil, err
	}
	e.base = e.bases.newBase(store)
	e.lastRebase = time.Now()
	e.cat.SetKeyring(cfg.Keyring)
	if err := e.recover(ctx); err != nil {
		e.bases.closeAll()
		store.Close()
		return nil, err
	}
	e.hist = newHistory(cmp.Or(cfg.RetainHistory, DefaultRetainHistory), cmp.Or(cfg.RetainHistoryBytes, DefaultRetainHistoryBytes), e.ts)
	e.publish()
	return e, nil
}

// Setup runs a catalog change after Open and before Run: what the front
// end must have in place before anyone connects (the bootstrap roles, a
// store's upgrade). It runs as RunDDL's changes do, on the caller's
// goroutine, which is the coordinator's until Run starts.
func (e *Engine) Setup(ctx context.Context, fn func(ctx context.Context, tx *DDL) error) error {
	if e.group != nil {
		return pgerr.New(pgerr.InternalError, "engine setup after the engine started")
	}
	r := &coordReq{ddl: fn, done: make(chan struct{})}
	if err := e.ddlTick(ctx, r); err != nil {
		return err
	}
	return r.err
}

// Meta returns a named value of the store's metadata (DDL.SetMeta).
func (e *Engine) Meta(name string) ([]byte, bool, error) { return e.store.Meta(name) }

// Close saves the sequences' exact state and closes the store. Run must
// have returned.
func (e *Engine) Close() error {
	saveErr := e.saveSequences()
	e.bases.closeAll()
	if err := e.store.Close(); err != nil {
		return err
	}
	return saveErr
}

// InstanceID returns the random name this data directory got when it
// was created: sinks put it in the names of their external state, so
// that two servers writing to one Kafka cluster never share a
// transactional id.
func (e *Engine) InstanceID() string { return e.instanceID }

// instanceID reads the store's instance id, making one on first use.
func instanceID(store *storage.DB) (string, error) {
	v, ok, err := store.Meta("instance_id")
	if err != nil || ok {
		return string(v), err
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	id := hex.EncodeToString(b[:])
	batch := store.NewBatch()
	batch.SetMeta("instance_id", []byte(id))
	return id, batch.Commit()
}

// Snapshot returns the latest published snapshot.
func (e *Engine) Snapshot() *Snapshot { return e.snap.Load() }

// Run runs the tick loop, and the sources under it, until ctx ends or a
// tick cannot be made durable (its error is returned; the engine then
// fails every request, since memory and disk may disagree).
func (e *Engine) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	e.group = new(errgroup.Group)
	e.maintain = make(chan func())
	e.group.Go(func() error {
		maintainer(e.maintain)
		return nil
	})
	e.sourcesMu.Lock()
	for _, rs := range e.running {
		e.startSource(ctx, rs)
	}
	e.sourcesMu.Unlock()
	e.startHydration(ctx)
	for _, rs := range e.sinks {
		e.startSink(ctx, rs)
	}
	err := e.loop(ctx)
	// Requests still queued will not be served: closing stopped before
	// waiting for the sources fails them, where a source blocked on its
	// last batch would otherwise keep Run from returning.
	close(e.stopped)
	cancel()
	close(e.maintain)
	e.group.Wait()
	return err
}

// loop gathers requests into ticks until ctx ends or a tick fails; a
// heartbeat runs between them (see clock.go). When a timed flow has a
// change due, a tick runs at its time with no request (timeTick).
func (e *Engine) loop(ctx context.Context) error {
	beat := time.NewTicker(heartbeatInterval)
	defer beat.Stop()
	for {
		var first *coordReq
		wake, stop := e.wakeup()
		select {
		case <-ctx.Done():
			stop()
			return nil
		case <-beat.C:
			stop()
			ticked := e.ticked
			e.ticked = false
			if err := e.heartbeat(ticked); err != nil {
				return e.fail(err, nil)
			}
			continue
		case first = <-e.reqs:
			stop()
		case <-wake:
			stop()
			if err := e.timeTick(ctx); err != nil {
				e.failed.Store(&err)
				e.log.Error("tick failed; engine stopped", "err", err)
				e.drain(err)
				return err
			}
			continue
		}
		reqs := []*coordReq{first}
	gather:
		for len(reqs) < maxGroupCommit {
			select {
			case r := <-e.reqs:
				reqs = append(reqs, r)
			default:
				break gather
			}
		}
		err := e.process(ctx, reqs)
		for err == nil && e.hydration.retry {
			// A hydration ended: the requests that waited for it go, and
			// the sources waiting for a view to read them start.
			e.hydration.retry = false
			deferred := e.hydration.deferred
			e.hydration.deferred = nil
			e.startStreams(ctx)
			err = e.process(ctx, deferred)
		}
		if err != nil {
			return e.fail(err, reqs)
		}
	}
}

// fail stops the engine after a tick could not be made durable: reqs and
// every later request fail with err.
func (e *Engine) fail(err error, reqs []*coordReq) error {
	e.failed.Store(&err)
	e.log.Error("tick failed; engine stopped", "err", err)
	for _, r := range reqs {
		if r.done != nil {
			r.err = pgerr.Wrap(err, pgerr.IOError, "could not commit: %v", err)
			close(r.done)
			r.done = nil
		}
	}
	e.drain(err)
	return err
}
