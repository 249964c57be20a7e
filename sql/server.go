package sql

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/internal/authfile"
	"github.com/streamdb/streamdb/internal/egress"
	"github.com/streamdb/streamdb/internal/secretkey"
	"github.com/streamdb/streamdb/pgwire"
	"golang.org/x/sync/errgroup"
)

// Config configures a Frontend.
type Config struct {
	// DataDir is where the Pebble store lives.
	DataDir string
	Logger  *slog.Logger
	// MemoryLimit is the size of the heap above which running
	// statements are canceled (see memoryGuard); zero means three
	// quarters of the memory the process may use.
	MemoryLimit uint64
	// RecomputeViews, CacheSize and Testing are the engine's
	// (engine.Config).
	RecomputeViews bool
	CacheSize      int64
	Testing        *engine.TestingKnobs
	// Clock is the engine's time (nil: the wall clock): tests inject an
	// engine.ManualClock to drive mz_now() and temporal filters.
	Clock engine.Clock
	// SubscribeBufferBytes bounds the changes a subscription holds for
	// a client that does not read them (engine.Config.FeedBufferBytes).
	SubscribeBufferBytes int64
	// RetainHistory and RetainHistoryBytes bound the changes kept for
	// SUBSCRIBE … AS OF a past time (engine.Config).
	RetainHistory      time.Duration
	RetainHistoryBytes int64
	// LogParameters logs the values of statements' parameters with the
	// statements at debug level; without it they are redacted.
	LogParameters bool
	// StorageFiles bounds the files the store keeps open; 0 keeps the
	// store's default.
	StorageFiles int
	// Egress limits the hosts connections may reach (--allow-egress);
	// nil allows every host.
	Egress *egress.Policy
	// InitialPassword is the password the superuser streamdb gets at
	// first start (STREAMDB_PASSWORD); empty generates one into
	// <data-dir>/initial-password (see internal/authfile).
	InitialPassword string
}

// Frontend is streamdb's SQL front end: it opens sessions for pgwire
// (it implements pgwire.Engine) and runs their statements on the engine.
type Frontend struct {
	eng     *engine.Engine
	log     *slog.Logger
	started time.Time
	// logParams is Config.LogParameters.
	logParams bool
	// advisory holds the advisory locks, notify routes NOTIFY.
	advisory *advisoryLocks
	notify   *notifyHub
	// mockNonce is MockNonce's secret.
	mockNonce []byte
	// egress is Config.Egress.
	egress *egress.Policy

	// opened is closed once the engine has opened (eng, mockNonce and
	// started set) or failed to (openErr set); see Start. empty is what
	// snapshot returns before.
	opened  chan struct{}
	openErr error
	empty   *engine.Snapshot

	mu       sync.Mutex
	sessions map[uint32]*session
	guard    *memoryGuard
}

var _ pgwire.Engine = (*Frontend)(nil)

// Open opens the engine on the data directory, which replays the catalog
// and rebuilds every table and dataflow from durable state, and returns
// once it has: Start and Wait. It serves once Run is running.
func Open(ctx context.Context, cfg Config) (*Frontend, error) {
	e := Start(ctx, cfg)
	if err := e.Wait(ctx); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// openEngine opens the engine and sets up what the front end needs of
// it before anyone is admitted: the bootstrap roles, and the secret the
// salts of unknown roles derive from.
func openEngine(ctx context.Context, cfg Config, log *slog.Logger) (*engine.Engine, []byte, error) {
	// The directory holds the key and the store: only the server's user
	// may read it, as PostgreSQL requires of its data directory.
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, nil, err
	}
	key, err := secretkey.Open(cfg.DataDir)
	if err != nil {
		return nil, nil, err
	}
	eng, err := engine.Open(ctx, engine.Config{DataDir: cfg.DataDir, Logger: log, Binder: binderHooks{log: log, egress: cfg.Egress}, Keyring: key,
		RecomputeViews: cfg.RecomputeViews, CacheSize: cfg.CacheSize, Testing: cfg.Testing, Clock: cfg.Clock,
		FeedBufferBytes: cfg.SubscribeBufferBytes, RetainHistory: cfg.RetainHistory, RetainHistoryBytes: cfg.RetainHistoryBytes,
		StorageFiles: cfg.StorageFiles})
	if err != nil {
		return nil, nil, err
	}
	nonce, err := bootstrap(ctx, eng, cfg.DataDir, cfg.InitialPassword, log)
	if err != nil {
		eng.Close()
		return nil, nil, err
	}
	return eng, nonce, nil
}

// Run runs the tick loop and the memory guard until ctx ends, once the
// engine has opened; it returns at once the error of an engine that
// failed to open.
func (e *Frontend) Run(ctx context.Context) error {
	if err := e.Wait(ctx); err != nil {
		return err
	}
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		e.guard.run(ctx)
		return nil
	})
	g.Go(func() error { return e.eng.Run(ctx) })
	return g.Wait()
}

// Engine returns the engine, for tools and benchmarks that write to it
// or read its statistics directly, beside SQL.
func (e *Frontend) Engine() *engine.Engine { return e.eng }

// Tick runs a tick at the engine clock's time and waits until it is
// published (engine.Engine.Tick), for tests and tools that move the
// clock themselves.
func (e *Frontend) Tick(ctx context.Context) error { return e.eng.Tick(ctx) }

// Objects counts the schema objects in the catalog (not roles and
// databases): what Open rehydrated.
func (e *Frontend) Objects() int {
	n := 0
	for o := range e.snapshot().Catalog().All() {
		if o.Kind != catalog.KindRole && o.Kind != catalog.KindDatabase {
			n++
		}
	}
	return n
}

// Close closes the store, once the engine has opened or failed to.
// Run must have returned.
func (e *Frontend) Close() error {
	<-e.opened
	if e.eng == nil {
		return nil
	}
	return e.eng.Close()
}

// Connect opens a session for a client (pgwire.Engine).
func (e *Frontend) Connect(ctx context.Context, st pgwire.Startup) (pgwire.Session, error) {
	user := st.User
	if user == "" {
		user = authfile.Superuser
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var s *session
	if e.ready() && e.openErr == nil {
		role, err := e.loginRole(e.snapshot().Catalog(), user, st.Database)
		if err != nil {
			return nil, err
		}
		s = newSession(e, st, role)
	} else {
		// Admitted when its first statement needs the engine (admit).
		s = newSession(e, st, &catalog.Object{Name: user, RoleDef: &catalog.RoleDef{}})
		s.pending = true
	}
	if err := s.applyStartupParams(st.Params); err != nil {
		return nil, err
	}
	e.sessions[st.ProcessID] = s
	return s, nil
}

// sessionsOf returns the open sessions of a role.
func (e *Frontend) sessionsOf(role uint64) []*session {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []*session
	for _, s := range e.sessions {
		if s.info.loginRole == role {
			out = append(out, s)
		}
	}
	return out
}

func (e *Frontend) forget(s *session) {
	e.mu.Lock()
	delete(e.sessions, s.pid)
	e.mu.Unlock()
}

// snapshot returns the latest published snapshot; an empty one until
// the engine has opened, against which pending sessions bind what needs
// no engine.
func (e *Frontend) snapshot() *engine.Snapshot {
	if !e.ready() || e.eng == nil {
		return e.empty
	}
	return e.eng.Snapshot()
}

// now is the engine clock's time (the wall clock's until it opens).
func (e *Frontend) now() time.Time {
	if !e.ready() || e.eng == nil {
		return time.Now()
	}
	return e.eng.Now()
}
