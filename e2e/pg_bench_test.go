package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/testserver"
)

// The PostgreSQL source's benchmarks run streamdb in process against the
// shared PostgreSQL 15 cluster, each against a baseline measured in the
// same run (bench/results/postgres_cdc.md has results and the command):
//
//   - BenchmarkPostgresSnapshot: CREATE SOURCE until its table is
//     replicated, against psql's COPY … TO STDOUT of the same table;
//   - BenchmarkPostgresStream: a burst of upstream changes applied by a
//     restarted streamdb (Pebble commits and a maintained view included),
//     against pg_recvlogical draining a copy of the slot to /dev/null and
//     against PostgreSQL's REFRESH MATERIALIZED VIEW of the same view at
//     10,000 changes per refresh;
//   - BenchmarkPostgresFreshness: upstream COMMIT to visible in a view
//     under a steady upstream load.

// benchPGLong runs statements upstream without the one-minute bound of
// upstream.exec: a burst of a million changes takes longer.
func benchPGLong(b *testing.B, u *upstream, sql string) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	if _, err := u.conn.PgConn().Exec(ctx, sql).ReadAll(); err != nil {
		b.Fatalf("upstream: %s: %v", sql, err)
	}
}

// pollUntil runs a query against streamdb every millisecond until it
// returns want, and returns when it did.
func pollUntil(b *testing.B, c *client, sql, want string) time.Time {
	b.Helper()
	return pollFor(b, c, sql, want, func(got string) bool { return got == want })
}

// pollRunning waits until SHOW SOURCES says the source app runs.
func pollRunning(b *testing.B, c *client) time.Time {
	b.Helper()
	return pollFor(b, c, `SHOW SOURCES WHERE name = 'app'`, "app running", func(got string) bool {
		return strings.HasPrefix(got, "app|postgres|running|")
	})
}

func pollFor(b *testing.B, c *client, sql, what string, ok func(string) bool) time.Time {
	b.Helper()
	deadline := time.Now().Add(20 * time.Minute)
	for {
		got, err := c.query(sql)
		if err == nil && ok(got) {
			return time.Now()
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s returned %q (%v), want %s", sql, got, err, what)
		}
		time.Sleep(time.Millisecond)
	}
}

// psqlUpstream runs psql against the upstream database with its output
// discarded, and returns how long it took.
func psqlUpstream(b *testing.B, u *upstream, args ...string) time.Duration {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	all := append([]string{"-X", "-q", "-h", "127.0.0.1", "-p", strconv.Itoa(u.c.Port), "-U", "postgres", "-d", u.db}, args...)
	t0 := time.Now()
	if out, err := exec.CommandContext(ctx, "psql", all...).CombinedOutput(); err != nil {
		b.Fatalf("psql %v: %v\n%.500s", args, err, out)
	}
	return time.Since(t0)
}

// benchTable fills table s of n rows upstream (ids 1..n, 1000 groups)
// and publishes it.
const benchTable = `CREATE TABLE s (id int8 PRIMARY KEY, k int4 NOT NULL, v int4, note text);
INSERT INTO s SELECT g, g %% 1000, g %% 97, 'row ' || g FROM generate_series(1, %d) g;
ANALYZE s;
CREATE PUBLICATION pub FOR TABLE s;`

// BenchmarkPostgresSnapshot times CREATE SOURCE until all of a table of
// STREAMDB_E2E_PG_ROWS rows (1,000,000 by default) is replicated and the
// source streams, slot creation included, against `psql -c 'COPY s TO
// STDOUT'` to /dev/null. Reported: rows/s, copy_rows/s and their ratio
// (the target is ≥ 0.5).
func BenchmarkPostgresSnapshot(b *testing.B) {
	rows := envInt("STREAMDB_E2E_PG_ROWS", 1_000_000)
	u := newUpstream(b, nil)
	benchPGLong(b, u, fmt.Sprintf(benchTable, rows))
	var ours, copyTime, cpu time.Duration
	b.ResetTimer()
	for i := range b.N {
		copyTime += psqlUpstream(b, u, "-c", "COPY s TO STDOUT")
		b.StopTimer()
		srv := startServer(b, "")
		c := connect(b, srv.URL)
		c.exec(u.connectionSQL("pg"))
		b.StartTimer()
		t0, cpu0 := time.Now(), processCPU()
		c.exec(fmt.Sprintf(`CREATE SOURCE app FROM POSTGRES CONNECTION pg (PUBLICATION 'pub', SLOT 'bench_snap_%d') FOR ALL TABLES`, i))
		ours += pollRunning(b, c).Sub(t0)
		cpu += processCPU() - cpu0
		b.StopTimer()
		if got := c.rows(`SELECT count(*) FROM s`); got != strconv.Itoa(rows) {
			b.Fatalf("replicated %s rows, want %d", got, rows)
		}
		c.exec(`DROP SOURCE app CASCADE`)
		srv.Stop()
		b.StartTimer()
	}
	b.StopTimer()
	n := float64(rows * b.N)
	b.ReportMetric(n/ours.Seconds(), "rows/s")
	b.ReportMetric(n/copyTime.Seconds(), "copy_rows/s")
	b.ReportMetric(copyTime.Seconds()/ours.Seconds(), "ratio")
	b.ReportMetric(n/cpu.Seconds(), "rows/cpu_s")
}

// processCPU returns the CPU time this process (streamdb and the test's
// clients) has used, which a busy machine does not stretch as it does
// wall-clock time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchBurst makes txns transactions of 1,000 changes each on s, ids
// above base: 500 inserts, then 300 updates and 200 deletes of rows the
// transaction inserted.
const benchBurst = `CREATE PROCEDURE burst(base int8, txns int) LANGUAGE plpgsql AS $$
DECLARE lo int8;
BEGIN
	FOR i IN 0 .. txns - 1 LOOP
		lo := base + i * 500;
		INSERT INTO s SELECT lo + g, (lo + g) % 1000, g, 'burst ' || g FROM generate_series(1, 500) g;
		UPDATE s SET v = v + 1, note = note || '!' WHERE id > lo + 200 AND id <= lo + 500;
		DELETE FROM s WHERE id > lo AND id <= lo + 200;
		COMMIT;
	END LOOP;
END $$`

// benchAgg is the view both sides maintain: streamdb incrementally,
// PostgreSQL by REFRESH MATERIALIZED VIEW.
const benchAgg = `SELECT k, count(*) AS n, sum(v) AS total FROM s GROUP BY k`

// BenchmarkPostgresStream replays a burst of STREAMDB_E2E_PG_CHANGES
// upstream changes (1,000,000 by default, in transactions of 1,000) on a
// table of STREAMDB_E2E_PG_ROWS rows, made while streamdb was stopped:
// timed from streamdb's start until its view over the table equals the
// same query upstream. The baselines: pg_recvlogical draining a copy of
// the source's slot, taken before the burst, to /dev/null up to the
// burst's end (what reading the stream costs at the least), and
// PostgreSQL's REFRESH MATERIALIZED VIEW of the same view after the
// burst, counted as 10,000 changes per refresh. Reported: changes/s,
// recvlogical_changes/s, refresh_changes/s, the ratios to each (targets
// ≥ 0.5 and ≥ 5), and restart_s, the part of streamdb's time spent
// before it accepted connections (recovery), which changes/s includes.
func BenchmarkPostgresStream(b *testing.B) {
	rows := envInt("STREAMDB_E2E_PG_ROWS", 1_000_000)
	changes := envInt("STREAMDB_E2E_PG_CHANGES", 1_000_000) / 1000 * 1000
	var ours, raw, refresh, restart time.Duration
	b.StopTimer()
	for i := range b.N {
		u := newUpstream(b, nil)
		benchPGLong(b, u, fmt.Sprintf(benchTable, rows))
		benchPGLong(b, u, benchBurst)
		benchPGLong(b, u, `CREATE MATERIALIZED VIEW pg_agg AS `+benchAgg)
		dir := b.TempDir()
		srv, err := testserver.Run(testserver.Options{Dir: dir}, b.TempDir)
		if err != nil {
			b.Fatal(err)
		}
		c := connect(b, srv.URL)
		c.exec(u.connectionSQL("pg"))
		slot := fmt.Sprintf("bench_stream_%d", i)
		c.exec(`CREATE SOURCE app FROM POSTGRES CONNECTION pg (PUBLICATION 'pub', SLOT '` + slot + `') FOR ALL TABLES`)
		c.exec(`CREATE MATERIALIZED VIEW agg AS ` + benchAgg)
		pollRunning(b, c)
		c.conn.Close(context.Background())
		srv.Stop()

		u.exec(`SELECT pg_copy_logical_replication_slot('` + slot + `', '` + slot + `_raw')`)
		benchPGLong(b, u, fmt.Sprintf(`CALL burst(%d, %d)`, rows, changes/1000))
		end := u.rows(`SELECT pg_current_wal_lsn()`)
		want := u.rows(`SELECT count(*), sum(n), sum(total) FROM (` + benchAgg + `) v`)

		b.StartTimer()
		t0 := time.Now()
		srv, err = testserver.Run(testserver.Options{Dir: dir}, b.TempDir)
		if err != nil {
			b.Fatal(err)
		}
		restart += time.Since(t0)
		c = connect(b, srv.URL)
		ours += pollUntil(b, c, `SELECT count(*), sum(n), sum(total) FROM agg`, want).Sub(t0)
		b.StopTimer()

		b.StartTimer()
		raw += psqlRecvlogical(b, u, slot+"_raw", end)
		b.StopTimer()

		var refreshes []time.Duration
		for range 5 {
			t0 := time.Now()
			u.exec(`REFRESH MATERIALIZED VIEW pg_agg`)
			refreshes = append(refreshes, time.Since(t0))
		}
		slices.Sort(refreshes)
		refresh += refreshes[len(refreshes)/2]

		c.exec(`DROP SOURCE app CASCADE`)
		srv.Stop()
		u.exec(`SELECT pg_drop_replication_slot('` + slot + `_raw')`)
	}
	n := float64(changes * b.N)
	b.ReportMetric(n/ours.Seconds(), "changes/s")
	b.ReportMetric(n/raw.Seconds(), "recvlogical_changes/s")
	b.ReportMetric(float64(10_000*b.N)/refresh.Seconds(), "refresh_changes/s")
	b.ReportMetric(raw.Seconds()/ours.Seconds(), "ratio_recvlogical")
	b.ReportMetric(refresh.Seconds()/float64(10_000*b.N)*n/ours.Seconds(), "ratio_refresh")
	b.ReportMetric(restart.Seconds()/float64(b.N), "restart_s")
}

// psqlRecvlogical drains slot with pg_recvlogical (pgoutput, the source's
// publication) to /dev/null up to end, and returns how long it took.
func psqlRecvlogical(b *testing.B, u *upstream, slot, end string) time.Duration {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	t0 := time.Now()
	out, err := exec.CommandContext(ctx, "/usr/lib/postgresql/15/bin/pg_recvlogical", "-h", "127.0.0.1", "-p", strconv.Itoa(u.c.Port), "-U", "postgres",
		"-d", u.db, "--slot", slot, "--start", "--no-loop", "--endpos", end,
		"-o", "proto_version=1", "-o", "publication_names=pub", "-f", "/dev/null").CombinedOutput()
	if err != nil {
		b.Fatalf("pg_recvlogical: %v\n%s", err, out)
	}
	return time.Since(t0)
}

// BenchmarkPostgresFreshness keeps a steady upstream load of
// STREAMDB_E2E_PG_RATE changes/s (10,000 by default: a transaction of
// 100 changes every 10 ms, see steadyLoad) on a replicated table
// with a view over it, and every 50 ms commits a probe row upstream and
// times until a view over the probes shows it, for
// STREAMDB_E2E_PG_SECONDS seconds (20 by default). Reported: p50_ms,
// p99_ms and max_ms of COMMIT → visible, and the upstream rate reached.
func BenchmarkPostgresFreshness(b *testing.B) {
	rate := envInt("STREAMDB_E2E_PG_RATE", 10_000)
	seconds := envInt("STREAMDB_E2E_PG_SECONDS", 20)
	var lat []time.Duration
	var applied int
	var elapsed time.Duration
	b.StopTimer()
	for range b.N {
		u := newUpstream(b, nil)
		benchPGLong(b, u, fmt.Sprintf(benchTable, 100_000)+`
			CREATE TABLE probe (id int PRIMARY KEY);
			ALTER PUBLICATION pub ADD TABLE probe;`)
		srv := startServer(b, "")
		c := connect(b, srv.URL)
		c.exec(u.connectionSQL("pg"))
		c.exec(`CREATE SOURCE app FROM POSTGRES CONNECTION pg (PUBLICATION 'pub') FOR ALL TABLES`)
		c.exec(`CREATE MATERIALIZED VIEW agg AS ` + benchAgg)
		c.exec(`CREATE MATERIALIZED VIEW probes AS SELECT max(id) AS last FROM probe`)
		pollRunning(b, c)

		probe := pgConnect(b, u.c, u.db)
		defer probe.Close(context.Background())
		stop := make(chan struct{})
		done := make(chan int)
		go func() { done <- steadyLoad(u, rate, stop) }()
		b.StartTimer()
		t0 := time.Now()
		for id := 1; time.Since(t0) < time.Duration(seconds)*time.Second; id++ {
			next := time.Now().Add(50 * time.Millisecond)
			if _, err := probe.Exec(context.Background(), `INSERT INTO probe VALUES ($1)`, id); err != nil {
				b.Fatal(err)
			}
			committed := time.Now()
			lat = append(lat, pollUntil(b, c, `SELECT last FROM probes`, strconv.Itoa(id)).Sub(committed))
			time.Sleep(time.Until(next))
		}
		close(stop)
		applied += <-done
		elapsed += time.Since(t0)
		b.StopTimer()
		sameAsUpstream(c, u, `SELECT count(*), sum(n), sum(total) FROM (`+benchAgg+`) v`)
		c.exec(`DROP SOURCE app CASCADE`)
	}
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(lat[len(lat)/2]), "p50_ms")
	b.ReportMetric(ms(lat[len(lat)*99/100]), "p99_ms")
	b.ReportMetric(ms(lat[len(lat)-1]), "max_ms")
	b.ReportMetric(float64(applied)/elapsed.Seconds(), "upstream_changes/s")
}

// steadyLoad commits transactions on s every 10 ms until stop, each of
// the changes owed to reach rate changes/s since it started (rate/100
// when on time, more after a late one): 60% inserts, 25% updates and 15%
// deletes of rows inserted before. It returns how many changes it
// committed.
func steadyLoad(u *upstream, rate int, stop <-chan struct{}) int {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	start := time.Now()
	total := 0
	next := int64(10_000_000)
	var inserted []int64
	for {
		select {
		case <-stop:
			return total
		case <-tick.C:
		}
		n := min(int(float64(rate)*time.Since(start).Seconds())-total, rate/10)
		if n < 10 {
			continue
		}
		ins, upd := n*60/100, n*25/100
		del := n - ins - upd
		if len(inserted) < 2*ins {
			// Until there are rows to change, insert only.
			ins, upd, del = n, 0, 0
		}
		lo := next
		next += int64(ins)
		// Updates and deletes take the rows inserted longest ago.
		var sql strings.Builder
		fmt.Fprintf(&sql, "BEGIN;\nINSERT INTO s SELECT %d + g, g %% 1000, g, 'load' FROM generate_series(1, %d) g;\n", lo, ins)
		if upd > 0 {
			fmt.Fprintf(&sql, "UPDATE s SET v = v + 1 WHERE id >= %d AND id <= %d;\n", inserted[del], inserted[del+upd-1])
			fmt.Fprintf(&sql, "DELETE FROM s WHERE id >= %d AND id <= %d;\n", inserted[0], inserted[del-1])
			inserted = inserted[del:]
		}
		sql.WriteString("COMMIT;")
		for g := range int64(ins) {
			inserted = append(inserted, lo+1+g)
		}
		if _, err := u.conn.PgConn().Exec(context.Background(), sql.String()).ReadAll(); err != nil {
			u.t.Errorf("steady load: %v", err)
			return total
		}
		total += n
	}
}
