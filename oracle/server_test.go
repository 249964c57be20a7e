//go:build cgo

package oracle

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/streamdb/streamdb/internal/pgtest"
	"github.com/streamdb/streamdb/internal/testserver"
)

// liveServer is an in-process streamdb on its own data directory, which
// a restart reopens.
type liveServer struct {
	dir string
	srv *testserver.Server
}

func startServer(t testing.TB) *liveServer {
	t.Helper()
	l := &liveServer{dir: t.TempDir()}
	if err := l.start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.stop)
	return l
}

func (l *liveServer) start() error {
	srv, err := testserver.Run(testserver.Options{Dir: l.dir}, nil)
	if err != nil {
		return err
	}
	l.srv = srv
	return nil
}

func (l *liveServer) stop() {
	if l.srv != nil {
		l.srv.Stop()
		l.srv = nil
	}
}

func (l *liveServer) URL() string { return l.srv.URL }

func (l *liveServer) Restart(context.Context) error {
	l.stop()
	return l.start()
}

// postgres is the PostgreSQL cluster the tests of this package share,
// started by the first test that asks for it and stopped by TestMain.
var postgres struct {
	once    sync.Once
	cluster *pgtest.Cluster
	err     error
}

// postgresURL returns the shared cluster's URL, or "" when PostgreSQL is
// not installed or disabled with -oracle.pg=false.
func postgresURL(t testing.TB) string {
	if !*pgFlag || !pgtest.Available() {
		return ""
	}
	postgres.once.Do(func() {
		postgres.cluster, postgres.err = pgtest.StartCluster("fsync=off", "synchronous_commit=off", "full_page_writes=off")
	})
	if postgres.err != nil {
		t.Fatalf("starting PostgreSQL: %v", postgres.err)
	}
	return postgres.cluster.URL
}

func TestMain(m *testing.M) {
	code := m.Run()
	if postgres.cluster != nil {
		postgres.cluster.Stop()
	}
	os.Exit(code)
}

// runScenario runs sc on a fresh server and returns the outcome.
func runScenario(t testing.TB, sc *Scenario, opts RunOptions) *Outcome {
	t.Helper()
	srv := startServer(t)
	defer srv.stop() // the minimiser starts hundreds; do not keep them to the end of the test
	out, err := Run(context.Background(), sc, srv, opts)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return out
}

// summary is one line of counts for the test log.
func (o *Outcome) summary() string {
	unsupported := 0
	for _, n := range o.Unsupported {
		unsupported += n
	}
	return fmt.Sprintf("%d views (%d unsupported, %d rejected), %d checks, %d failures, %d PostgreSQL disagreements (%d views too slow on PostgreSQL)",
		o.Views, unsupported, len(o.Rejected), o.Checks, len(o.Failures), len(o.Disagreements), o.PostgresSlow)
}
