package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/internal/pgtest"
	"github.com/streamdb/streamdb/sources"
)

// The tests share one PostgreSQL 15 cluster; each test works in a
// database of its own with slots named after it. Tests that restart the
// server start a cluster of their own.
var (
	sharedOnce    sync.Once
	sharedCluster *pgtest.Cluster
	sharedErr     error
	dbCounter     atomic.Int64
)

// clusterSettings leave room for the tests' slots and connections.
var clusterSettings = []string{"max_replication_slots=40", "max_wal_senders=40", "max_connections=100"}

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedCluster != nil {
		sharedCluster.Stop()
	}
	os.Exit(code)
}

func shared(t testing.TB) *pgtest.Cluster {
	t.Helper()
	if !pgtest.Available() {
		t.Skipf("PostgreSQL 15 server binaries not found in %s", pgtest.BinDir)
	}
	sharedOnce.Do(func() { sharedCluster, sharedErr = pgtest.StartCluster(clusterSettings...) })
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return sharedCluster
}

// upstream is a test's database on a cluster.
type upstream struct {
	t    testing.TB
	c    *pgtest.Cluster
	db   string
	conn *pgx.Conn
}

// newUpstream creates a fresh database on c (the shared cluster when nil).
func newUpstream(t testing.TB, c *pgtest.Cluster) *upstream {
	t.Helper()
	if c == nil {
		c = shared(t)
	}
	db := fmt.Sprintf("t%d_%s", dbCounter.Add(1), strings.ToLower(strings.NewReplacer("/", "_", "#", "_").Replace(t.Name())))
	if len(db) > 40 {
		db = db[:40]
	}
	c.CreateDatabase(t, db)
	u := &upstream{t: t, c: c, db: db}
	u.conn = connect(t, c, db)
	t.Cleanup(func() { u.conn.Close(context.Background()) })
	return u
}

func connect(t testing.TB, c *pgtest.Cluster, db string) *pgx.Conn {
	t.Helper()
	return c.Connect(t, db, sessionSettings)
}

// exec runs statements (several per string are fine) upstream.
func (u *upstream) exec(sqls ...string) {
	u.t.Helper()
	for _, s := range sqls {
		if _, err := u.conn.Exec(context.Background(), s); err != nil {
			u.t.Fatalf("%s: %v", s, err)
		}
	}
}

// reconnect replaces the test's connection (after an upstream restart).
func (u *upstream) reconnect() {
	u.t.Helper()
	u.conn.Close(context.Background())
	u.conn = connect(u.t, u.c, u.db)
}

// rows returns a query's rows as formatRow renders them, sorted.
func (u *upstream) rows(query string) []string {
	u.t.Helper()
	res, err := u.conn.PgConn().Exec(context.Background(), query).ReadAll()
	if err != nil {
		u.t.Fatalf("%s: %v", query, err)
	}
	var out []string
	for _, row := range res[len(res)-1].Rows {
		parts := make([]string, len(row))
		for i, v := range row {
			if v == nil {
				parts[i] = `\N`
			} else {
				parts[i] = string(v)
			}
		}
		out = append(out, strings.Join(parts, " | "))
	}
	slices.Sort(out)
	return out
}

// connection is how the source reaches the database.
func (u *upstream) connection() Connection {
	return Connection{Host: "127.0.0.1", Port: u.c.Port, User: "postgres", Database: u.db}
}

// config is a source configuration for the test database with short
// intervals.
func (u *upstream) config(slot, pub string) Config {
	return Config{
		Connection: u.connection(), Publication: pub, Slot: slot, AllTables: true,
		StatusInterval: 200 * time.Millisecond, RetryMin: 50 * time.Millisecond, RetryMax: 500 * time.Millisecond,
		Logger: testLogger(),
	}
}

func testLogger() *slog.Logger {
	if os.Getenv("STREAMDB_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

// running is a Run in progress.
type running struct {
	cancel context.CancelFunc
	done   chan error
	err    error
	ended  bool
}

// start runs src into m until the test ends or stop is called.
func start(t testing.TB, src *Source, m *model, resume map[string][]byte) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- src.Run(ctx, resume, m) }()
	t.Cleanup(func() {
		if r.ended {
			return
		}
		if err := r.stop(); err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return r
}

// stop cancels the run and returns its result.
func (r *running) stop() error {
	if !r.ended {
		r.cancel()
		select {
		case r.err = <-r.done:
		case <-time.After(30 * time.Second):
			r.err = errors.New("Run did not return within 30s of its cancellation")
		}
		r.ended = true
	}
	return r.err
}

// wait waits for Run to return on its own.
func (r *running) wait(t testing.TB, d time.Duration) error {
	t.Helper()
	select {
	case r.err = <-r.done:
		r.ended = true
		return r.err
	case <-time.After(d):
		t.Fatalf("Run did not return within %s", d)
		return nil
	}
}

// open builds a source from cfg's discovery.
func open(t testing.TB, cfg Config) *Source {
	t.Helper()
	src, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return src
}

// waitEqual waits until each output named in tables holds the rows of the
// upstream query given for it.
func waitEqual(t testing.TB, m *model, u *upstream, tables map[string]string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var diff string
		for out, q := range tables {
			want, got := u.rows(q), m.rows(out)
			if !slices.Equal(want, got) {
				diff = fmt.Sprintf("output %s:\nwant %d rows:\n%s\ngot %d rows:\n%s", out, len(want), clip(want), len(got), clip(got))
				break
			}
		}
		if diff == "" {
			m.checkAnomalies(t)
			return
		}
		if time.Now().After(deadline) {
			m.mu.Lock()
			st, reason, batches := m.state, m.reason, len(m.batches)
			m.mu.Unlock()
			pos, err := decodePosition(m.committed())
			t.Fatalf("outputs differ from upstream (state %s %s, %d batches, committed position %+v %v):\n%s", st, reason, batches, pos, err, diff)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func clip(rows []string) string {
	if len(rows) > 20 {
		rows = append(rows[:20:20], fmt.Sprintf("… %d more", len(rows)-20))
	}
	return strings.Join(rows, "\n")
}

// slotExists reports whether a replication slot exists upstream.
func (u *upstream) slotExists(name string) bool {
	u.t.Helper()
	var n int
	if err := u.conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_replication_slots WHERE slot_name = $1", name).Scan(&n); err != nil {
		u.t.Fatal(err)
	}
	return n > 0
}

// outputIndex returns the index of the output named name.
func outputIndex(outputs []sources.Output, name string) int {
	return slices.IndexFunc(outputs, func(o sources.Output) bool { return o.Name == name })
}
