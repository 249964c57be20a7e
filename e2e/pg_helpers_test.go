package e2e

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb/internal/pgtest"
)

// The PostgreSQL CDC tests share one upstream cluster, each in a database
// of its own; a test that restarts upstream starts a cluster of its own.
var pgShared struct {
	once sync.Once
	c    *pgtest.Cluster
	err  error
	dbs  atomic.Int64
}

// pgSettings leave room for the tests' slots and walsenders.
var pgSettings = []string{"max_replication_slots=40", "max_wal_senders=40", "max_connections=100", "wal_sender_timeout=5s"}

func pgCluster(t testing.TB) *pgtest.Cluster {
	t.Helper()
	if !pgtest.Available() {
		t.Skipf("PostgreSQL 15 server binaries not found in %s", pgtest.BinDir)
	}
	pgShared.once.Do(func() { pgShared.c, pgShared.err = pgtest.StartCluster(pgSettings...) })
	if pgShared.err != nil {
		t.Fatal(pgShared.err)
	}
	return pgShared.c
}

// stopPGCluster stops the shared cluster at the end of the run.
func stopPGCluster() {
	if pgShared.c != nil {
		pgShared.c.Stop()
	}
}

// upstream is a test's database on a PostgreSQL cluster.
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
		c = pgCluster(t)
	}
	db := fmt.Sprintf("e2e_%d", pgShared.dbs.Add(1))
	c.CreateDatabase(t, db)
	u := &upstream{t: t, c: c, db: db}
	u.conn = pgConnect(t, c, db)
	t.Cleanup(func() { u.conn.Close(context.Background()) })
	return u
}

func pgConnect(t testing.TB, c *pgtest.Cluster, db string) *pgx.Conn {
	t.Helper()
	return c.Connect(t, db, map[string]string{"timezone": "UTC"})
}

// reconnect opens a new connection after upstream restarted.
func (u *upstream) reconnect() {
	u.t.Helper()
	u.conn.Close(context.Background())
	u.conn = pgConnect(u.t, u.c, u.db)
}

// exec runs statements upstream (several per string are fine).
func (u *upstream) exec(sql string) {
	u.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := u.conn.PgConn().Exec(ctx, sql).ReadAll(); err != nil {
		u.t.Fatalf("upstream: %s: %v", sql, err)
	}
}

// rows renders a query's result upstream as client.query renders
// streamdb's.
func (u *upstream) rows(sql string) string {
	u.t.Helper()
	out, err := renderRows(u.conn, sql)
	if err != nil {
		u.t.Fatalf("upstream: %s: %v", sql, err)
	}
	return out
}

// renderRows runs a query and renders its rows in text format, a row a
// line, values separated by "|", NULL as "NULL".
func renderRows(conn *pgx.Conn, sql string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := conn.PgConn().Exec(ctx, sql).ReadAll()
	if err != nil {
		return "", err
	}
	if len(res) != 1 {
		return "", errors.New("want exactly one statement")
	}
	lines := make([]string, len(res[0].Rows))
	for i, row := range res[0].Rows {
		vals := make([]string, len(row))
		for j, v := range row {
			if v == nil {
				vals[j] = "NULL"
			} else {
				vals[j] = string(v)
			}
		}
		lines[i] = strings.Join(vals, "|")
	}
	return strings.Join(lines, "\n"), nil
}

// connectionSQL is CREATE CONNECTION name TO POSTGRES for the database.
func (u *upstream) connectionSQL(name string) string {
	return fmt.Sprintf("CREATE CONNECTION %s TO POSTGRES (HOST '127.0.0.1', PORT %d, USER 'postgres', DATABASE '%s')", name, u.c.Port, u.db)
}

// slots returns the names of upstream's replication slots of the
// database.
func (u *upstream) slots() string {
	u.t.Helper()
	return u.rows(fmt.Sprintf("SELECT slot_name FROM pg_replication_slots WHERE database = '%s' AND NOT temporary ORDER BY 1", u.db))
}

// sameAsUpstream waits until a query returns in streamdb what it returns
// upstream now.
func sameAsUpstream(c *client, u *upstream, query string) {
	c.t.Helper()
	c.waitRows(query, u.rows(query))
}
