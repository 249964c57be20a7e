package sql_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/internal/testserver"
)

// TestTemporalFilterView keeps the transactions of the last hour in a
// view (the fraud detection seed) while a manual clock moves: rows leave
// as time passes, with no write, and mz_now() ad hoc reads the same time.
func TestTemporalFilterView(t *testing.T) {
	t0 := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	clk := engine.NewManualClock(t0)
	srv := testserver.Start(t, testserver.Options{Clock: clk})
	conn := connect(t, srv.URL)
	ctx := context.Background()
	exec(t, conn, "CREATE TABLE tx (card text, amount numeric, ts timestamptz)")
	exec(t, conn, `CREATE MATERIALIZED VIEW last_hour AS
		SELECT card, count(*) AS n, sum(amount) AS total FROM tx
		WHERE mz_now() <= ts + INTERVAL '1 hour' GROUP BY card`)
	exec(t, conn, "CREATE MATERIALIZED VIEW suspicious AS SELECT card FROM last_hour WHERE n >= 3")
	exec(t, conn, `INSERT INTO tx VALUES
		('a', 10, '2024-03-01 11:10:00+00'), ('a', 20, '2024-03-01 11:30:00+00'), ('a', 5, '2024-03-01 11:50:00+00'),
		('b', 99, '2024-03-01 10:00:00+00'), ('b', 1, '2024-03-01 11:55:00+00')`)
	if got := rows(t, conn, "SELECT card, n, total::text FROM last_hour ORDER BY card"); got != "a|3|35\nb|1|1" {
		t.Fatalf("at 12:00:\n%s", got)
	}
	if got := rows(t, conn, "SELECT card FROM suspicious"); got != "a" {
		t.Fatalf("suspicious at 12:00: %q", got)
	}
	// Every tick takes the next millisecond while the clock stands still.
	if got := rows(t, conn, "SELECT mz_now() BETWEEN '2024-03-01 12:00:00+00' AND '2024-03-01 12:00:01+00'"); got != "true" {
		t.Errorf("mz_now() ad hoc: %s", got)
	}
	clk.Set(t0.Add(10*time.Minute + time.Millisecond))
	if err := srv.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if got := rows(t, conn, "SELECT card, n, total::text FROM last_hour ORDER BY card"); got != "a|2|25\nb|1|1" {
		t.Fatalf("at 12:10:\n%s", got)
	}
	if got := rows(t, conn, "SELECT count(*) FROM suspicious"); got != "0" {
		t.Fatalf("suspicious at 12:10: %s", got)
	}
	if got := rows(t, conn, "SELECT count(*) FROM tx WHERE mz_now() <= ts + INTERVAL '1 hour'"); got != "3" {
		t.Errorf("the same filter ad hoc: %s", got)
	}
}

// TestViewsRefuseNow checks that now() in a view is refused with a hint
// towards mz_now(), and mz_now() outside WHERE and HAVING too.
func TestViewsRefuseNow(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE e (ts timestamptz)")
	for _, q := range []string{
		"CREATE MATERIALIZED VIEW v AS SELECT * FROM e WHERE ts > now() - INTERVAL '1 hour'",
		"CREATE MATERIALIZED VIEW v AS SELECT * FROM e WHERE ts > current_timestamp",
		"CREATE MATERIALIZED VIEW v AS SELECT mz_now() FROM e",
	} {
		_, err := conn.Exec(context.Background(), q)
		if sqlState(err) != "0A000" || !hasHint(err, "mz_now()") {
			t.Errorf("%s: %v", q, err)
		}
	}
}

// TestWindowFunctions checks TUMBLE, HOP and SESSION against their
// formulations in standard SQL.
func TestWindowFunctions(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE clicks (page text, uid int, ts timestamptz)")
	exec(t, conn, `CREATE MATERIALIZED VIEW per_minute AS
		SELECT page, window_start, window_end, count(*) AS n FROM TUMBLE(clicks, ts, INTERVAL '1 minute') GROUP BY 1, 2, 3`)
	exec(t, conn, `CREATE MATERIALIZED VIEW moving AS
		SELECT page, window_start, count(*) AS n FROM HOP(clicks, ts, INTERVAL '1 minute', INTERVAL '3 minutes') GROUP BY 1, 2`)
	exec(t, conn, `CREATE MATERIALIZED VIEW sessions AS
		SELECT uid, window_start, window_end, count(*) AS n FROM SESSION(clicks, ts, INTERVAL '10 minutes', uid) GROUP BY 1, 2, 3`)
	exec(t, conn, `INSERT INTO clicks VALUES
		('a', 1, '2024-03-01 12:00:10+00'), ('a', 1, '2024-03-01 12:00:50+00'), ('b', 2, '2024-03-01 12:01:30+00'),
		('a', 1, '2024-03-01 12:25:00+00'), ('a', 2, '2024-03-01 12:05:00+00'), ('b', 1, NULL)`)
	check := func(view, want string) {
		t.Helper()
		if got := rows(t, conn, view); got != rows(t, conn, want) {
			t.Errorf("%s:\n%s\nwant\n%s", view, got, rows(t, conn, want))
		}
	}
	check("SELECT * FROM per_minute ORDER BY 1, 2",
		`SELECT page, date_bin('1 minute', ts, 'epoch'), date_bin('1 minute', ts, 'epoch') + INTERVAL '1 minute', count(*)
		FROM clicks WHERE ts IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2`)
	check("SELECT * FROM moving ORDER BY 1, 2",
		`SELECT page, s, count(*) FROM clicks,
		generate_series(date_bin('1 minute', ts - INTERVAL '3 minutes', 'epoch') + INTERVAL '1 minute', ts, INTERVAL '1 minute') s
		GROUP BY 1, 2 ORDER BY 1, 2`)
	if got := rows(t, conn, "SELECT uid, window_start::text, window_end::text, n FROM sessions ORDER BY 1, 2"); got !=
		"1|2024-03-01 12:00:10+00|2024-03-01 12:10:50+00|2\n1|2024-03-01 12:25:00+00|2024-03-01 12:35:00+00|1\n2|2024-03-01 12:01:30+00|2024-03-01 12:15:00+00|2" {
		t.Errorf("sessions:\n%s", got)
	}
	// Out-of-order clicks between user 1's sessions merge them.
	exec(t, conn, "INSERT INTO clicks VALUES ('c', 1, '2024-03-01 12:10:00+00'), ('c', 1, '2024-03-01 12:18:00+00')")
	if got := rows(t, conn, "SELECT uid, window_start::text, window_end::text, n FROM sessions WHERE uid = 1"); got != "1|2024-03-01 12:00:10+00|2024-03-01 12:35:00+00|5" {
		t.Errorf("merged session:\n%s", got)
	}
	exec(t, conn, "DELETE FROM clicks WHERE page = 'c'")
	if got := rows(t, conn, "SELECT count(*) FROM sessions WHERE uid = 1"); got != "2" {
		t.Errorf("split again: %s sessions", got)
	}
}

// hasHint reports whether err is a PostgreSQL error whose hint mentions s.
func hasHint(err error, s string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && strings.Contains(pe.Hint, s)
}

// TestWatermarkedTable: late rows are counted and dropped, or routed to
// the errors relation; SHOW SOURCES counts them and SHOW CREATE shows the
// policy; an APPEND ONLY table refuses UPDATE and DELETE; EMIT ON WINDOW
// CLOSE emits each window once, when the watermark has passed it.
func TestWatermarkedTable(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, `CREATE TABLE clicks (page text, ts timestamptz,
		WATERMARK FOR ts AS ts - INTERVAL '5 seconds') APPEND ONLY WITH (LATE DATA = 'dead-letter')`)
	exec(t, conn, "CREATE TABLE views (page text, ts timestamptz, WATERMARK FOR ts AS ts - INTERVAL '1 minute')")
	if got := rows(t, conn, "SHOW CREATE TABLE views"); !strings.Contains(got, "WITH (LATE DATA = 'drop')") {
		t.Errorf("SHOW CREATE TABLE without a policy: %s", got)
	}
	exec(t, conn, `CREATE MATERIALIZED VIEW per_10s AS
		SELECT page, window_end, count(*) AS n FROM TUMBLE(clicks, ts, INTERVAL '10 seconds')
		GROUP BY page, window_end EMIT ON WINDOW CLOSE`)
	exec(t, conn, `CREATE MATERIALIZED VIEW per_10s_live AS
		SELECT page, window_end, count(*) AS n FROM TUMBLE(clicks, ts, INTERVAL '10 seconds') GROUP BY page, window_end`)
	exec(t, conn, `INSERT INTO clicks VALUES ('a', '2024-03-01 12:00:01+00'), ('a', '2024-03-01 12:00:09+00'), ('b', '2024-03-01 12:00:12+00')`)
	if got := rows(t, conn, "SELECT count(*) FROM per_10s"); got != "0" {
		t.Errorf("a window emitted before the watermark passed it: %s rows", got)
	}
	exec(t, conn, `INSERT INTO clicks VALUES ('a', '2024-03-01 12:00:16+00')`)
	if got := rows(t, conn, "SELECT page, window_end::text, n FROM per_10s ORDER BY 1, 2"); got != "a|2024-03-01 12:00:10+00|2" {
		t.Errorf("after the watermark passed 12:00:10:\n%s", got)
	}
	// 12:00:08 is behind the watermark 12:00:11: late, routed.
	exec(t, conn, `INSERT INTO clicks VALUES ('a', '2024-03-01 12:00:08+00'), ('c', '2024-03-01 12:00:30+00')`)
	if got := rows(t, conn, "SELECT page, window_end::text, n FROM per_10s ORDER BY 1, 2"); got != "a|2024-03-01 12:00:10+00|2\na|2024-03-01 12:00:20+00|1\nb|2024-03-01 12:00:20+00|1" {
		t.Errorf("after the watermark passed 12:00:20:\n%s", got)
	}
	if got := rows(t, conn, "SELECT count(*) FROM clicks"); got != "5" {
		t.Errorf("the late row entered the table: %s rows", got)
	}
	if got := rows(t, conn, "SELECT error FROM clicks_errors"); !strings.HasPrefix(got, "late: ts 2024-03-01 12:00:08+00 is behind the watermark") {
		t.Errorf("errors relation: %q", got)
	}
	if got := rows(t, conn, "SHOW SOURCES"); got != "clicks_errors|subsource|running|NULL|NULL|NULL|NULL|true\nclicks|table|running|NULL|NULL|NULL|1|true\nviews|table|running|NULL|NULL|NULL|0|true" {
		t.Errorf("SHOW SOURCES:\n%s", got)
	}
	for _, q := range []string{"UPDATE clicks SET page = 'x'", "DELETE FROM clicks"} {
		if _, err := conn.Exec(context.Background(), q); sqlState(err) != "55000" {
			t.Errorf("%s on an APPEND ONLY table: %v", q, err)
		}
	}
	if _, err := conn.Exec(context.Background(), `CREATE MATERIALIZED VIEW bad AS SELECT page, count(*) FROM clicks GROUP BY page EMIT ON WINDOW CLOSE`); sqlState(err) != "0A000" {
		t.Errorf("EMIT ON WINDOW CLOSE without a window: %v", err)
	}
}

// TestViewsKeepTheirTimeZone: a view over timestamptz with date_trunc,
// extract and a cast to date is bound with its creator's TimeZone; it
// returns the same rows whatever the reader's TimeZone, before and after
// a restart, and SHOW CREATE says which zone.
func TestViewsKeepTheirTimeZone(t *testing.T) {
	dir := t.TempDir()
	srv := testserver.Start(t, testserver.Options{Dir: dir})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE metrics (ts timestamptz, v float8)")
	exec(t, conn, "INSERT INTO metrics VALUES ('2024-03-01 23:30:00+00', 1), ('2024-03-02 00:10:00+00', 2), ('2024-03-02 06:00:00+00', 4)")
	exec(t, conn, "SET TimeZone = 'Asia/Tokyo'")
	exec(t, conn, `CREATE MATERIALIZED VIEW per_day AS SELECT date_trunc('day', ts) AS day, sum(v) AS total FROM metrics GROUP BY 1`)
	exec(t, conn, `CREATE VIEW by_hour AS SELECT extract(hour FROM ts) AS h, ts::date AS d, v FROM metrics`)
	read := func(zone string) (string, string) {
		exec(t, conn, "SET TimeZone = '"+zone+"'")
		return rows(t, conn, "SELECT extract(epoch FROM day)::bigint, total FROM per_day ORDER BY 1"),
			rows(t, conn, "SELECT h::int, d::text, v FROM by_hour ORDER BY v")
	}
	// In Tokyo the three rows fall on 2024-03-02, at 08:30, 09:10 and 15:00.
	wantDays, wantHours := "1709305200|7", "8|2024-03-02|1\n9|2024-03-02|2\n15|2024-03-02|4"
	for _, zone := range []string{"Asia/Tokyo", "UTC", "America/Los_Angeles"} {
		days, hours := read(zone)
		if days != wantDays || hours != wantHours {
			t.Errorf("read in %s:\n%s\n%s", zone, days, hours)
		}
	}
	if got := rows(t, conn, "SHOW CREATE MATERIALIZED VIEW per_day"); !strings.Contains(got, "date_trunc('day', ts, 'Asia/Tokyo')") {
		t.Errorf("SHOW CREATE of a date_trunc view: %s", got)
	}
	if got := rows(t, conn, "SHOW CREATE VIEW by_hour"); !strings.Contains(got, "WITH (timezone = 'Asia/Tokyo', datestyle = 'ISO, MDY', intervalstyle = 'postgres') AS") {
		t.Errorf("SHOW CREATE of a pinned view: %s", got)
	}
	exec(t, conn, "INSERT INTO metrics VALUES ('2024-03-02 16:00:00+00', 8)")
	srv.Stop()
	srv = testserver.Start(t, testserver.Options{Dir: dir})
	conn = connect(t, srv.URL)
	exec(t, conn, "SET TimeZone = 'Europe/Paris'")
	if got := rows(t, conn, "SELECT extract(epoch FROM day)::bigint, total FROM per_day ORDER BY 1"); got != "1709305200|7\n1709391600|8" {
		t.Errorf("after a restart, in Paris:\n%s", got)
	}
	if got := rows(t, conn, "SELECT h::int, d::text FROM by_hour WHERE v = 8"); got != "1|2024-03-03" {
		t.Errorf("after a restart, in Paris: %s", got)
	}
}

// TestViewSeriesKeepsItsTimeZone: generate_series over timestamptz
// stepping by a day crosses a daylight-saving change in the creator's
// zone (New York, 2024-03-10), where a day is 23 hours; the view keeps
// those steps whatever zone reads it, and in the stored statement.
func TestViewSeriesKeepsItsTimeZone(t *testing.T) {
	dir := t.TempDir()
	srv := testserver.Start(t, testserver.Options{Dir: dir})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE starts (ts timestamptz)")
	exec(t, conn, "INSERT INTO starts VALUES ('2024-03-09 17:00:00+00')")
	exec(t, conn, "SET TimeZone = 'America/New_York'")
	exec(t, conn, `CREATE MATERIALIZED VIEW days AS SELECT g FROM starts, generate_series(ts, ts + INTERVAL '2 days', INTERVAL '1 day') AS g`)
	exec(t, conn, `CREATE VIEW days_list AS SELECT generate_series(ts, ts + INTERVAL '2 days', INTERVAL '1 day') AS g FROM starts`)
	const want = "1710003600\n1710086400\n1710172800"
	for _, zone := range []string{"UTC", "Asia/Tokyo"} {
		exec(t, conn, "SET TimeZone = '"+zone+"'")
		for _, v := range []string{"days", "days_list"} {
			if got := rows(t, conn, "SELECT extract(epoch FROM g)::bigint FROM "+v+" ORDER BY 1"); got != want {
				t.Errorf("%s read in %s:\n%s", v, zone, got)
			}
		}
	}
	if got := rows(t, conn, "SHOW CREATE MATERIALIZED VIEW days"); !strings.Contains(got, "WITH (timezone = 'America/New_York'") {
		t.Errorf("SHOW CREATE of a series view: %s", got)
	}
	srv.Stop()
	srv = testserver.Start(t, testserver.Options{Dir: dir})
	conn = connect(t, srv.URL)
	if got := rows(t, conn, "SELECT extract(epoch FROM g)::bigint FROM days ORDER BY 1"); got != want {
		t.Errorf("after a restart:\n%s", got)
	}
}

// TestRenameEventTime: renames keep streamdb's own clauses in the stored
// statements (a table's WATERMARK FOR and LATE DATA, a view's EMIT ON
// WINDOW CLOSE), and the objects work the same after a restart.
func TestRenameEventTime(t *testing.T) {
	dir := t.TempDir()
	srv := testserver.Start(t, testserver.Options{Dir: dir})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE ev (k int, ts timestamptz, WATERMARK FOR ts AS ts - INTERVAL '5 seconds') APPEND ONLY WITH (LATE DATA = 'dead-letter')")
	exec(t, conn, "CREATE MATERIALIZED VIEW w AS SELECT k, window_end, count(*) AS n FROM TUMBLE(ev, ts, INTERVAL '10 seconds') GROUP BY 1, 2 EMIT ON WINDOW CLOSE")
	exec(t, conn, "ALTER MATERIALIZED VIEW w RENAME COLUMN n TO bids")
	exec(t, conn, "ALTER MATERIALIZED VIEW w RENAME TO per_window")
	exec(t, conn, "DROP MATERIALIZED VIEW per_window")
	exec(t, conn, "ALTER TABLE ev RENAME COLUMN ts TO at")
	exec(t, conn, "ALTER TABLE ev RENAME TO events")
	exec(t, conn, "CREATE MATERIALIZED VIEW w AS SELECT k, window_end, count(*) AS n FROM TUMBLE(events, at, INTERVAL '10 seconds') GROUP BY 1, 2 EMIT ON WINDOW CLOSE")
	exec(t, conn, "ALTER MATERIALIZED VIEW w RENAME COLUMN n TO bids")
	exec(t, conn, "ALTER MATERIALIZED VIEW w RENAME TO per_window")
	const wantTable = "CREATE TABLE events (k int, at timestamptz, WATERMARK FOR at AS at - '5 seconds'::interval) APPEND ONLY WITH (LATE DATA = 'dead-letter')"
	const wantView = "CREATE MATERIALIZED VIEW per_window(k, window_end, bids) AS SELECT k, window_end, count(*) AS n FROM tumble(events, at, '10 seconds'::interval) GROUP BY 1, 2 EMIT ON WINDOW CLOSE"
	check := func(when string) {
		t.Helper()
		if got := rows(t, conn, "SHOW CREATE TABLE events"); got != "public.events|"+wantTable {
			t.Errorf("%s: SHOW CREATE TABLE: %s", when, got)
		}
		if got := rows(t, conn, "SHOW CREATE MATERIALIZED VIEW per_window"); got != "public.per_window|"+wantView {
			t.Errorf("%s: SHOW CREATE MATERIALIZED VIEW: %s", when, got)
		}
	}
	check("after the renames")
	exec(t, conn, "INSERT INTO events VALUES (1, '2024-01-01 00:00:01+00'), (1, '2024-01-01 00:00:30+00')")
	exec(t, conn, "INSERT INTO events VALUES (1, '2024-01-01 00:00:02+00')")
	srv.Stop()
	srv = testserver.Start(t, testserver.Options{Dir: dir})
	conn = connect(t, srv.URL)
	check("after a restart")
	if got := rows(t, conn, "SELECT k, extract(epoch FROM window_end)::bigint, bids FROM per_window"); got != "1|1704067210|1" {
		t.Errorf("windows: %s", got)
	}
	// The errors relation keeps the name it was created with.
	if got := rows(t, conn, "SELECT count(*) FROM ev_errors"); got != "1" {
		t.Errorf("late rows: %s", got)
	}
}

// TestTemporalFilterRealTime uses the wall clock, briefly: a row valid
// for half a second leaves a subscribed view by itself, with no write,
// when its time has passed. (The view holds a row before the
// subscription starts: a SUBSCRIBE whose snapshot is empty sends nothing
// to pgx, also on main.)
func TestTemporalFilterRealTime(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	writer := connect(t, srv.URL)
	reader := connect(t, srv.URL)
	exec(t, writer, "CREATE TABLE pings (id int, ts timestamptz)")
	exec(t, writer, "CREATE MATERIALIZED VIEW recent AS SELECT id FROM pings WHERE mz_now() <= ts + INTERVAL '500 milliseconds'")
	exec(t, writer, "INSERT INTO pings VALUES (2, now() + INTERVAL '1 hour')")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rs, err := reader.Query(ctx, "SUBSCRIBE recent")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		rs.Close()
	}()
	next := func() string { return nextChange(t, rs) }
	if got := next(); got != "[1 2]" {
		t.Fatalf("snapshot %s", got)
	}
	exec(t, writer, "INSERT INTO pings VALUES (1, now())")
	start := time.Now()
	if got := next(); got != "[1 1]" {
		t.Fatalf("inserted %s", got)
	}
	if got := next(); got != "[-1 1]" {
		t.Fatalf("then %s", got)
	}
	if elapsed := time.Since(start); elapsed < 400*time.Millisecond || elapsed > 10*time.Second {
		t.Errorf("the row left after %v, want about half a second", elapsed)
	}
	if got := rows(t, writer, "SELECT id FROM recent"); got != "2" {
		t.Errorf("the view holds %q", got)
	}
}

// stateBytes reads a materialized view's state_bytes from SHOW
// MATERIALIZED VIEWS.
func stateBytes(t *testing.T, conn *pgx.Conn, view string) int64 {
	t.Helper()
	var n int64
	got := rows(t, conn, "SHOW MATERIALIZED VIEWS WHERE name = '"+view+"'")
	if _, err := fmt.Sscanf(strings.SplitN(got, "|", 3)[1], "%d", &n); err != nil {
		t.Fatalf("SHOW MATERIALIZED VIEWS: %q: %v", got, err)
	}
	return n
}

// TestStateCleanupVisible streams events through views over tables with
// and without a watermark, and over a temporal filter: the views agree,
// and SHOW MATERIALIZED VIEWS shows the state the watermark and the
// filter let go of. An interval join keeps the rows its interval and the
// watermarks still need; a per-minute count keeps the open minutes; the
// last five minutes keep five minutes of rows.
func TestStateCleanupVisible(t *testing.T) {
	t0 := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	clk := engine.NewManualClock(t0)
	srv := testserver.Start(t, testserver.Options{Clock: clk})
	conn := connect(t, srv.URL)
	ctx := context.Background()
	for _, name := range []string{"orders", "payments"} {
		exec(t, conn, "CREATE TABLE "+name+" (k int, ts timestamptz, WATERMARK FOR ts AS ts - INTERVAL '30 seconds') APPEND ONLY")
		exec(t, conn, "CREATE TABLE "+name+"_all (k int, ts timestamptz)")
	}
	join := "SELECT o.k, o.ts AS ordered, p.ts AS paid FROM %s o JOIN %s p ON o.k = p.k AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '2 minutes'"
	exec(t, conn, "CREATE MATERIALIZED VIEW paid_in_time AS "+fmt.Sprintf(join, "orders", "payments"))
	exec(t, conn, "CREATE MATERIALIZED VIEW paid_in_time_all AS "+fmt.Sprintf(join, "orders_all", "payments_all"))
	count := "SELECT window_start, count(*) AS n FROM TUMBLE(%s, ts, INTERVAL '1 minute') GROUP BY window_start"
	exec(t, conn, "CREATE MATERIALIZED VIEW per_minute AS "+fmt.Sprintf(count, "orders"))
	exec(t, conn, "CREATE MATERIALIZED VIEW per_minute_all AS "+fmt.Sprintf(count, "orders_all"))
	exec(t, conn, "CREATE MATERIALIZED VIEW last_5m AS SELECT k, ts FROM orders_all WHERE mz_now() <= ts + INTERVAL '5 minutes'")
	sample := func() [5]int64 {
		var s [5]int64
		for i, v := range []string{"paid_in_time", "paid_in_time_all", "per_minute", "per_minute_all", "last_5m"} {
			s[i] = stateBytes(t, conn, v)
		}
		return s
	}
	var early [5]int64
	for minute := range 60 {
		at := t0.Add(time.Duration(minute) * time.Minute)
		clk.Set(at)
		var orders, payments []string
		for i := range 40 {
			k := minute*40 + i
			ts := at.Add(time.Duration(i) * time.Second)
			orders = append(orders, fmt.Sprintf("(%d, '%s')", k, ts.Format(time.RFC3339)))
			payments = append(payments, fmt.Sprintf("(%d, '%s')", k-40*(i%2), ts.Add(20*time.Second).Format(time.RFC3339)))
		}
		for _, tbl := range []string{"orders", "orders_all"} {
			exec(t, conn, "INSERT INTO "+tbl+" VALUES "+strings.Join(orders, ", "))
		}
		for _, tbl := range []string{"payments", "payments_all"} {
			exec(t, conn, "INSERT INTO "+tbl+" VALUES "+strings.Join(payments, ", "))
		}
		if err := srv.Tick(ctx); err != nil {
			t.Fatal(err)
		}
		if minute == 14 {
			early = sample()
		}
	}
	late := sample()
	t.Logf("state after 15 and 60 minutes: %v, %v", early, late)
	for _, q := range []string{
		"SELECT count(*) FROM ((SELECT * FROM paid_in_time EXCEPT ALL SELECT * FROM paid_in_time_all) UNION ALL (SELECT * FROM paid_in_time_all EXCEPT ALL SELECT * FROM paid_in_time)) d",
		"SELECT count(*) FROM ((SELECT * FROM per_minute EXCEPT ALL SELECT * FROM per_minute_all) UNION ALL (SELECT * FROM per_minute_all EXCEPT ALL SELECT * FROM per_minute)) d",
	} {
		if got := rows(t, conn, q); got != "0" {
			t.Errorf("the views differ: %s rows", got)
		}
	}
	if got, want := rows(t, conn, "SELECT count(*) FROM last_5m"), rows(t, conn, "SELECT count(*) FROM orders_all WHERE mz_now() <= ts + INTERVAL '5 minutes'"); got != want || got == "0" {
		t.Errorf("the last five minutes hold %s rows, the filter ad hoc %s", got, want)
	}
	// Every view keeps its own rows, which grow with time; what the
	// watermark lets the join and the count forget is the rest, so
	// their state grows a third as fast or less. The last five minutes
	// hold as many rows at the end as after 15 minutes.
	for _, v := range []struct {
		name string
		with int
	}{{"interval join", 0}, {"count per minute", 2}} {
		if grew, all := late[v.with]-early[v.with], late[v.with+1]-early[v.with+1]; grew*3 > all {
			t.Errorf("%s: grew %d bytes with watermarks, %d without", v.name, grew, all)
		}
	}
	if late[4] > early[4]*3/2 {
		t.Errorf("the last five minutes grew from %d to %d bytes", early[4], late[4])
	}
}

// TestWatermarkSurvivesRestart: an APPEND ONLY table's rows (kept in the
// store only), its watermark and its count of late rows come back after a
// restart, and so does a view that emits on window close.
func TestWatermarkSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	srv := testserver.Start(t, testserver.Options{Dir: dir})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE ev (n int, ts timestamptz, WATERMARK FOR ts AS ts - INTERVAL '1 minute') APPEND ONLY")
	exec(t, conn, `CREATE MATERIALIZED VIEW per_hour AS SELECT window_end, count(*) AS n FROM TUMBLE(ev, ts, INTERVAL '1 hour') GROUP BY window_end EMIT ON WINDOW CLOSE`)
	exec(t, conn, "INSERT INTO ev VALUES (1, '2024-03-01 10:10:00+00'), (2, '2024-03-01 10:50:00+00'), (3, '2024-03-01 11:30:00+00')")
	exec(t, conn, "INSERT INTO ev VALUES (4, '2024-03-01 11:28:00+00')")
	srv.Stop()
	srv = testserver.Start(t, testserver.Options{Dir: dir})
	conn = connect(t, srv.URL)
	if got := rows(t, conn, "SELECT count(*), max(n) FROM ev"); got != "3|3" {
		t.Errorf("after a restart the table holds %s", got)
	}
	if got := rows(t, conn, "SHOW SOURCES"); got != "ev|table|running|NULL|NULL|NULL|1|true" {
		t.Errorf("after a restart: %s", got)
	}
	if got := rows(t, conn, "SELECT window_end::text, n FROM per_hour"); got != "2024-03-01 11:00:00+00|2" {
		t.Errorf("after a restart the view holds %q", got)
	}
	exec(t, conn, "INSERT INTO ev VALUES (5, '2024-03-01 11:28:00+00'), (6, '2024-03-01 12:05:00+00')")
	if got := rows(t, conn, "SELECT window_end::text, n FROM per_hour ORDER BY 1"); got != "2024-03-01 11:00:00+00|2\n2024-03-01 12:00:00+00|1" {
		t.Errorf("after a restart and more rows:\n%s", got)
	}
}

// TestEventTimeExplain checks the plans and dataflows of event-time
// queries against testdata/eventtime_explain.txt: windows planned as
// their formulations, the temporal filters and what forgets state behind
// a watermark. -rewrite regenerates the file.
func TestEventTimeExplain(t *testing.T) {
	checkExplainGolden(t, "eventtime_explain.txt", "# EXPLAIN of event-time queries (go test ./sql -run TestEventTimeExplain -rewrite).", []string{
		"CREATE TABLE clicks (page text, uid int, ts timestamptz, WATERMARK FOR ts AS ts - INTERVAL '5 seconds') APPEND ONLY",
		"CREATE TABLE orders (uid int, ts timestamptz, WATERMARK FOR ts AS ts) APPEND ONLY",
		"CREATE TABLE plain (page text, ts timestamptz)",
	})
}
