package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/pgtest"
)

// pgLoadSchema is the upstream of the crash tests: accounts with a
// primary key, their events, and tags without a key under REPLICA
// IDENTITY FULL.
const pgLoadSchema = `
CREATE TABLE accounts (id int PRIMARY KEY, owner int NOT NULL, balance int8 NOT NULL);
CREATE TABLE events (id bigserial PRIMARY KEY, account int NOT NULL, amount int NOT NULL, note text);
CREATE TABLE tags (account int, tag text);
ALTER TABLE tags REPLICA IDENTITY FULL;
INSERT INTO accounts SELECT g, g % 7, 0 FROM generate_series(1, 200) g;
INSERT INTO events (account, amount, note) SELECT 1 + g % 200, g % 13, repeat('x', g % 50) FROM generate_series(1, 20000) g;
INSERT INTO tags SELECT g % 200, 't' || (g % 5) FROM generate_series(1, 1000) g;
CREATE PUBLICATION pub FOR ALL TABLES;
`

// pgLoadViews are the views the crash tests keep over the load, each
// with the query that computes it upstream.
var pgLoadViews = []struct{ name, query string }{
	{"by_owner", `SELECT owner, count(*) AS n, sum(balance) AS total FROM accounts GROUP BY owner`},
	{"owner_events", `SELECT a.owner, count(*) AS n, sum(e.amount) AS total FROM events e JOIN accounts a ON a.id = e.account GROUP BY a.owner`},
	{"tag_counts", `SELECT tag, count(*) AS n FROM tags GROUP BY tag`},
}

// pgLoadTxn returns one random upstream transaction of the load: new
// events, balance updates, deletes, a key update, tags added and
// removed, a few statements at a time.
func pgLoadTxn(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString("BEGIN;")
	for range 1 + rng.IntN(4) {
		a := 1 + rng.IntN(200)
		switch rng.IntN(7) {
		case 0, 1:
			fmt.Fprintf(&b, "INSERT INTO events (account, amount, note) SELECT %d, g %% 13, 'n' || g FROM generate_series(1, %d) g;", a, 1+rng.IntN(50))
		case 2:
			fmt.Fprintf(&b, "UPDATE accounts SET balance = balance + %d WHERE id = %d;", rng.IntN(100)-50, a)
		case 3:
			fmt.Fprintf(&b, "DELETE FROM events WHERE id IN (SELECT id FROM events WHERE account = %d LIMIT 3);", a)
		case 4:
			fmt.Fprintf(&b, "UPDATE events SET amount = amount + 1, note = NULL WHERE account = %d;", a)
		case 5:
			fmt.Fprintf(&b, "INSERT INTO tags VALUES (%d, 't%d'); DELETE FROM tags WHERE ctid = (SELECT ctid FROM tags WHERE account = %d LIMIT 1);", a, rng.IntN(5), 1+rng.IntN(200))
		case 6:
			// A key update: the account moves to a new id and back.
			fmt.Fprintf(&b, "UPDATE accounts SET id = id + 1000 WHERE id = %d; UPDATE accounts SET id = id - 1000, owner = (owner + 1) %% 7 WHERE id = %d;", a, a+1000)
		}
	}
	b.WriteString("COMMIT;")
	return b.String()
}

// checkLoadViews waits until every view of the load and every replicated
// table reads what the same query reads upstream.
func checkLoadViews(c *client, u *upstream) {
	c.t.Helper()
	for _, v := range pgLoadViews {
		c.waitRows(fmt.Sprintf("SELECT * FROM %s ORDER BY 1", v.name), u.rows(v.query+" ORDER BY 1"))
	}
	sameAsUpstream(c, u, `SELECT * FROM accounts ORDER BY id`)
	sameAsUpstream(c, u, `SELECT * FROM events ORDER BY id`)
	sameAsUpstream(c, u, `SELECT account, tag, count(*) FROM tags GROUP BY 1, 2 ORDER BY 1, 2`)
	if got := c.rows(`SELECT count(*) FROM app_errors`); got != "0" {
		c.t.Errorf("%s dead letters", got)
	}
}

// runLoad writes random transactions upstream until stop is closed, and
// counts them.
func runLoad(t *testing.T, u *upstream, seed uint64, stop <-chan struct{}, count *atomic.Int64) <-chan error {
	done := make(chan error, 1)
	conn := pgConnect(t, u.c, u.db)
	go func() {
		defer conn.Close(context.Background())
		rng := rand.New(rand.NewPCG(seed, 1))
		for {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			_, err := conn.PgConn().Exec(ctx, pgLoadTxn(rng)).ReadAll()
			cancel()
			if err != nil {
				done <- err
				return
			}
			count.Add(1)
		}
	}()
	return done
}

// TestPostgresKill9UnderLoad kills the real server with SIGKILL at random
// moments while upstream keeps committing transactions, several times,
// then stops the load and checks that every view, and every replicated
// table, equals the same query upstream: nothing lost, nothing applied
// twice, across crashes in the snapshot and in the stream.
func TestPostgresKill9UnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the server; skipped with -short")
	}
	const kills = 6
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	u := newUpstream(t, nil)
	u.exec(pgLoadSchema)
	// A table whose snapshot takes a while, for a kill to land in: half a
	// second or more at the snapshot's speed on an idle machine.
	u.exec(`INSERT INTO events (account, amount, note) SELECT 1 + g % 200, g % 13, repeat('y', g % 50) FROM generate_series(1, 1000000) g`)

	dataDir := t.TempDir()
	srv, addr := startStreamdb(t, dataDir)
	c := connect(t, pgURL(addr))
	c.exec(u.connectionSQL("pg"))
	stop := make(chan struct{})
	var txns atomic.Int64
	loaded := runLoad(t, u, seed, stop, &txns)
	c.exec(`CREATE SOURCE app FROM POSTGRES CONNECTION pg (PUBLICATION 'pub') FOR ALL TABLES`)
	for _, v := range pgLoadViews {
		c.exec(fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", v.name, v.query))
	}
	for round := range kills {
		// The first kills land in the snapshot of the big table, once
		// rows of it are committed, the others at a random moment of the
		// stream.
		if round < 2 {
			waitSnapshotting(c, "app", "public.events")
			time.Sleep(time.Duration(rng.IntN(300)) * time.Millisecond)
		} else {
			waitRunning(c, "app")
			time.Sleep(time.Duration(rng.IntN(500)) * time.Millisecond)
		}
		status := c.rows(`SHOW SOURCES WHERE name = 'app'`)
		srv.kill()
		t.Logf("kill %d after %d upstream transactions, source was %s", round, txns.Load(), status)
		srv, addr = startStreamdb(t, dataDir)
		c = connect(t, pgURL(addr))
	}
	time.Sleep(500 * time.Millisecond)
	close(stop)
	if err := <-loaded; err != nil {
		t.Fatal(err)
	}
	t.Logf("%d upstream transactions in all", txns.Load())
	checkLoadViews(c, u)
	// A change applied twice would come from resuming before what was
	// committed; give the source time to do so before looking again.
	time.Sleep(time.Second)
	checkLoadViews(c, u)
}

// waitSnapshotting polls SHOW SOURCES until source is in the middle of
// the snapshot of table, some of its rows done. A snapshot too quick to
// be seen there fails the test: the table must grow.
func waitSnapshotting(c *client, source, table string) {
	c.t.Helper()
	in := "(" + table + "): "
	deadline := time.Now().Add(waitTimeout)
	for time.Now().Before(deadline) {
		got, err := c.query(fmt.Sprintf(`SHOW SOURCES WHERE name = '%s'`, source))
		switch {
		case err != nil:
		case strings.Contains(got, in) && !strings.Contains(got, in+"0 of"):
			return
		case strings.HasPrefix(got, source+"|postgres|running|"):
			c.t.Fatalf("the snapshot of %s ended before a kill could land in it", table)
		}
		time.Sleep(2 * time.Millisecond)
	}
	c.t.Fatalf("source %s did not start the snapshot of %s", source, table)
}

// TestPostgresUpstreamRestart restarts upstream under a running source:
// SHOW SOURCES says the source stalled and why, and once upstream is back
// the source resumes from where it committed, the transactions of before
// and after the restart all applied once.
func TestPostgresUpstreamRestart(t *testing.T) {
	if !pgtest.Available() {
		t.Skip("no PostgreSQL")
	}
	cluster := pgtest.Start(t, pgSettings...)
	u := newUpstream(t, cluster)
	u.exec(pgLoadSchema)
	srv := startServer(t, "")
	c := connect(t, srv.URL)
	startPGSource(c, u, `CREATE SOURCE app FROM POSTGRES CONNECTION pg (PUBLICATION 'pub') FOR ALL TABLES`)
	for _, v := range pgLoadViews {
		c.exec(fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", v.name, v.query))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		u.exec(pgLoadTxn(rng))
	}
	u.conn.Close(context.Background())
	cluster.StopServer()
	status := c.waitFor(`SHOW SOURCES WHERE name = 'app'`, "the source to stall", func(got string) bool {
		return strings.HasPrefix(got, "app|postgres|stalled: ")
	})
	t.Logf("while upstream is down: %s", status)
	time.Sleep(2 * time.Second) // a few attempts against the stopped server
	if err := cluster.StartServer(); err != nil {
		t.Fatal(err)
	}
	u.reconnect()
	for range 50 {
		u.exec(pgLoadTxn(rng))
	}
	waitRunning(c, "app")
	checkLoadViews(c, u)
}
