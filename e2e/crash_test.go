package e2e

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// events are the records of the kill -9 test: JSON objects {"id", "k",
// "x"} spread round-robin over the partitions.
func events(from, to, partitions int) []*kgo.Record {
	recs := make([]*kgo.Record, 0, to-from)
	for i := from; i < to; i++ {
		v := fmt.Sprintf(`{"id": %d, "k": %d, "x": %d}`, i, i%16, i%1000)
		recs = append(recs, record(int32(i%partitions), nil, []byte(v)))
	}
	return recs
}

// consistency reads, at one snapshot, the sum of the source's
// partitions' next offsets, the rows its view counted and, when the
// source is stored, the rows it holds. With no dead letters and offsets
// from 0, they are equal in every snapshot exactly when rows, view state
// and positions commit together.
func consistency(stored bool) string {
	q := `SELECT (SELECT coalesce(sum("offset"), 0) FROM events_progress), (SELECT coalesce(sum(n), 0) FROM event_sums)`
	if stored {
		q = `SELECT (SELECT coalesce(sum("offset"), 0) FROM events_progress), (SELECT coalesce(sum(n), 0) FROM event_sums), (SELECT count(*) FROM events)`
	}
	return q
}

func checkConsistent(t *testing.T, c *client, stored bool, when string) int {
	t.Helper()
	got := c.rows(consistency(stored))
	parts := strings.Split(got, "|")
	for _, p := range parts[1:] {
		if p != parts[0] {
			t.Fatalf("%s: committed offsets, view count and stored rows differ: %s", when, got)
		}
	}
	n, _ := strconv.Atoi(parts[0])
	return n
}

// TestKill9MidIngest kills the real server with SIGKILL at random moments
// while it ingests a backlog and new records keep arriving, and checks
// after every restart that rows, view state and positions moved together
// and, at the end, that every record was ingested exactly once. While the
// server is down a burst of records arrives, so that every restart begins
// with a backlog the next kill can land in: the server ingests a trickle
// as fast as it comes.
func TestKill9MidIngest(t *testing.T) { kill9MidIngest(t, true) }

// TestKill9NotStored is TestKill9MidIngest with a source that is not
// stored: the views hold the only trace of the records, and they restart
// from their persisted state and the positions committed with it.
func TestKill9NotStored(t *testing.T) { kill9MidIngest(t, false) }

func kill9MidIngest(t *testing.T, stored bool) {
	if testing.Short() {
		t.Skip("builds and kills the server; skipped with -short")
	}
	const partitions, backlog, extra, chunk, kills, burst = 4, 120_000, 40_000, 500, 4, 40_000
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))

	b := startBroker(t)
	b.createTopic("events", partitions)
	if err := b.produceMany("events", events(0, backlog, partitions)); err != nil {
		t.Fatal(err)
	}
	dataDir := t.TempDir()
	srv, addr := startStreamdb(t, dataDir)
	c := connect(t, pgURL(addr))
	c.exec(fmt.Sprintf(`CREATE CONNECTION kc TO KAFKA (BROKER '%s')`, b.addr))
	with := ""
	if !stored {
		with = " WITH (STORED = false)"
	}
	c.exec(`CREATE SOURCE events (id int8, k int, x int8) FROM KAFKA CONNECTION kc (TOPIC 'events') FORMAT JSON INCLUDE PARTITION, OFFSET` + with)
	c.exec(`CREATE MATERIALIZED VIEW event_sums AS SELECT k, count(*) AS n, sum(x) AS s FROM events GROUP BY k`)
	c.exec(`CREATE MATERIALIZED VIEW event_totals AS SELECT count(*) AS n, count(DISTINCT id) AS ids, min(id) AS lo, max(id) AS hi, sum(x) AS s,
		count(DISTINCT partition || '/' || "offset") AS positions FROM events`)

	// Records keep arriving while the server is killed, up to extra more.
	var acked atomic.Int64
	acked.Store(backlog)
	produced := make(chan error, 1)
	go func() {
		for n := backlog; n < backlog+extra; n += chunk {
			time.Sleep(100 * time.Millisecond)
			if err := b.produceMany("events", events(n, n+chunk, partitions)); err != nil {
				produced <- err
				return
			}
			acked.Add(chunk)
		}
		produced <- nil
	}()

	committed, midIngest, next := 0, 0, backlog+extra
	progressed := `SELECT coalesce(sum("offset"), 0) FROM events_progress`
	for round := range kills {
		// Kill once the source has committed more since the restart (or
		// caught up), at a random moment soon after that.
		c.waitFor(progressed, "ingestion to resume", func(got string) bool {
			n, _ := strconv.Atoi(got)
			return n > committed || int64(n) >= acked.Load()
		})
		time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
		n := checkConsistent(t, c, stored, fmt.Sprintf("before kill %d", round))
		behind := acked.Load() - int64(n)
		srv.kill()
		t.Logf("kill %d: %d records ingested, at least %d more waiting", round, n, behind)
		if behind > 0 {
			midIngest++
		}
		if err := b.produceMany("events", events(next, next+burst, partitions)); err != nil {
			t.Fatal(err)
		}
		next += burst
		acked.Add(burst)
		srv, addr = startStreamdb(t, dataDir)
		c = connect(t, pgURL(addr))
		if committed = checkConsistent(t, c, stored, fmt.Sprintf("after kill %d", round)); committed < n {
			t.Fatalf("kill %d: %d records were committed before the kill, %d after the restart", round, n, committed)
		}
	}
	if err := <-produced; err != nil {
		t.Fatal(err)
	}
	if midIngest < 2 {
		t.Fatalf("only %d of %d kills hit the source with records waiting; the test proved little", midIngest, kills)
	}

	const total = backlog + extra + kills*burst
	c.waitRows(progressed, strconv.Itoa(total))
	want := fmt.Sprintf("%d|%d|0|%d|%d|%d", total, total, total-1, sumX(total), total)
	check := func(when string) {
		t.Helper()
		if got := c.rows(`SELECT * FROM event_totals`); got != want {
			t.Fatalf("%s: count, distinct ids, min, max, sum(x), distinct positions = %s, want %s", when, got, want)
		}
		if got, want := c.rows(`SELECT k, n, s FROM event_sums ORDER BY k`), viewWant(total); got != want {
			t.Fatalf("%s: view event_sums is\n%s\nwant\n%s", when, got, want)
		}
		if got := c.rows(`SELECT count(*) FROM events_errors`); got != "0" {
			t.Fatalf("%s: %s dead letters", when, got)
		}
		checkConsistent(t, c, stored, when)
	}
	check(fmt.Sprintf("after ingesting %d records", total))
	// A duplicate would come from re-reading already committed offsets;
	// give the source time to do so before looking again.
	time.Sleep(time.Second)
	check("a second later")
}

func sumX(total int) int64 {
	var s int64
	for i := range total {
		s += int64(i % 1000)
	}
	return s
}

// viewWant is event_sums after ids 0…total-1, as query renders it.
func viewWant(total int) string {
	var n [16]int64
	var s [16]int64
	for i := range total {
		n[i%16]++
		s[i%16] += int64(i % 1000)
	}
	lines := make([]string, 16)
	for k := range lines {
		lines[k] = fmt.Sprintf("%d|%d|%d", k, n[k], s[k])
	}
	return strings.Join(lines, "\n")
}
