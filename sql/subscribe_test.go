package sql_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestSubscribe streams a view's changes to a client while another
// session writes, and checks that cancelling ends the stream.
func TestSubscribe(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	writer := connect(t, srv.URL)
	reader := connect(t, srv.URL)
	exec(t, writer, "CREATE TABLE s (k text, v int)")
	exec(t, writer, "INSERT INTO s VALUES ('a', 1)")
	exec(t, writer, "CREATE MATERIALIZED VIEW totals AS SELECT k, sum(v) AS total FROM s GROUP BY k")

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rs, err := reader.Query(ctx, "SUBSCRIBE totals")
	if err != nil {
		t.Fatal(err)
	}
	next := func() string { return nextChange(t, rs) }
	if got := next(); got != "[1 a 1]" {
		t.Errorf("snapshot row = %s", got)
	}
	exec(t, writer, "INSERT INTO s VALUES ('a', 2), ('b', 5)")
	var got []string
	for range 3 {
		got = append(got, next())
	}
	want := "[-1 a 1] [1 a 3] [1 b 5]"
	if strings.Join(got, " ") != want {
		t.Errorf("changes = %v, want %s", got, want)
	}
	cancel()
	for rs.Next() {
	}
	rs.Close()
	if got := rows(t, writer, "SELECT count(*) FROM totals"); got != "2" {
		t.Errorf("after the subscription ended: %s", got)
	}
}

// TestSubscribeChanges follows a table's changes through COPY (SUBSCRIBE
// … WITH (PROGRESS)): the first row is progress at the start time, then
// the snapshot, and each tick's changes (an update as -old +new) closed
// by progress past it.
func TestSubscribeChanges(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE t (k int PRIMARY KEY, v text)")
	exec(t, conn, "INSERT INTO t VALUES (1, 'a'), (2, 'b')")
	f := startFeed(t, srv.URL, "COPY (SUBSCRIBE t WITH (PROGRESS)) TO STDOUT", true)
	f.expect("progress", "t0 1 1 a", "t0 1 2 b", "progress")
	exec(t, conn, "INSERT INTO t VALUES (3, 'c')")
	f.expect("t1 1 3 c", "progress")
	exec(t, conn, "UPDATE t SET v = 'z' WHERE k = 1")
	f.expect("t2 -1 1 a", "t2 1 1 z", "progress")
	exec(t, conn, "DELETE FROM t WHERE k = 2")
	f.expect("t3 -1 2 b", "progress")
	exec(t, conn, "BEGIN")
	exec(t, conn, "INSERT INTO t VALUES (4, 'd')")
	exec(t, conn, "DELETE FROM t WHERE k = 3")
	exec(t, conn, "COMMIT")
	f.expect("t4 -1 3 c", "t4 1 4 d", "progress")
	if !(f.time("t0") < f.time("t1") && f.time("t1") < f.time("t2") && f.time("t2") < f.time("t3") && f.time("t3") < f.time("t4")) {
		t.Errorf("timestamps do not increase: %v", f.times)
	}
}

// TestSubscribeViewWithoutSnapshot follows a GROUP BY view from now on:
// no snapshot, no progress rows, a changed group as -old +new.
func TestSubscribeViewWithoutSnapshot(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE o (c text, amount int)")
	exec(t, conn, "INSERT INTO o VALUES ('ada', 5)")
	exec(t, conn, "CREATE MATERIALIZED VIEW spend AS SELECT c, sum(amount) AS total FROM o GROUP BY c")
	f := startFeed(t, srv.URL, "COPY (SUBSCRIBE TO spend WITH (SNAPSHOT = false)) TO STDOUT", false)
	f.quiet(300 * time.Millisecond)
	exec(t, conn, "INSERT INTO o VALUES ('ada', 2), ('bob', 1)")
	f.expect("t0 -1 ada 5", "t0 1 ada 7", "t0 1 bob 1")
	exec(t, conn, "DELETE FROM o WHERE c = 'bob'")
	f.expect("t1 -1 bob 1")

	// A query, with a filter and a computed column.
	q := startFeed(t, srv.URL, "COPY (SUBSCRIBE TO (SELECT c, amount * 10 AS tenfold FROM o WHERE amount > 2)) TO STDOUT", false)
	q.expect("t0 1 ada 50")
	exec(t, conn, "INSERT INTO o VALUES ('cy', 3), ('dee', 1)")
	q.expect("t1 1 cy 30")
	exec(t, conn, "UPDATE o SET amount = 4 WHERE c = 'dee'")
	q.expect("t2 1 dee 40")
}

// TestSubscribeProgressIdle checks that an idle subscription with
// PROGRESS hears from the server at least once a second, each time
// later, without any change.
func TestSubscribeProgressIdle(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE idle (x int)")
	exec(t, conn, "CREATE MATERIALIZED VIEW idle_count AS SELECT count(*) AS n FROM idle")
	f := startFeed(t, srv.URL, "COPY (SUBSCRIBE idle_count WITH (PROGRESS)) TO STDOUT", true)
	f.expect("progress", "t0 1 0", "progress")
	start, seen := time.Now(), 0
	var last string
	for time.Since(start) < 2500*time.Millisecond {
		select {
		case line := <-f.lines:
			cols := strings.Split(line, "\t")
			if cols[1] != "t" {
				t.Fatalf("a data row on an idle view: %q", line)
			}
			if cols[0] <= last && len(cols[0]) == len(last) {
				t.Fatalf("progress %s after %s", cols[0], last)
			}
			last = cols[0]
			seen++
		case <-time.After(1100 * time.Millisecond):
			t.Fatalf("no progress for 1.1 s after %d rows", seen)
		}
	}
	if seen < 2 {
		t.Fatalf("%d progress rows in 2.5 s", seen)
	}
}

// TestSubscribeAsOfUpTo replays a table's history from a past tick and
// ends cleanly at UP TO, over the table and over a view of it.
func TestSubscribeAsOfUpTo(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE h (k int PRIMARY KEY, v int)")
	exec(t, conn, "CREATE MATERIALIZED VIEW hsum AS SELECT sum(v) AS s, count(*) AS n FROM h")
	live := startFeed(t, srv.URL, "COPY (SUBSCRIBE h WITH (SNAPSHOT = false)) TO STDOUT", false)
	time.Sleep(50 * time.Millisecond)
	exec(t, conn, "INSERT INTO h VALUES (1, 10), (2, 20)")
	live.expect("t0 1 1 10", "t0 1 2 20")
	exec(t, conn, "UPDATE h SET v = 11 WHERE k = 1")
	live.expect("t1 -1 1 10", "t1 1 1 11")
	exec(t, conn, "DELETE FROM h WHERE k = 2")
	live.expect("t2 -1 2 20")
	exec(t, conn, "INSERT INTO h VALUES (3, 30)")
	live.expect("t3 1 3 30")
	t0, t1, t3 := live.time("t0"), live.time("t1"), live.time("t3")

	// AS OF t0: the table as it was at t0, then every tick up to t3,
	// which UP TO leaves out.
	f := startFeed(t, srv.URL, fmt.Sprintf("COPY (SUBSCRIBE h WITH (PROGRESS) AS OF %d UP TO %d) TO STDOUT", t0, t3), true)
	f.expect("progress", "t0 1 1 10", "t0 1 2 20", "progress", "t1 -1 1 10", "t1 1 1 11", "progress", "t2 -1 2 20", "progress")
	if err := f.ended(); err != nil {
		t.Fatalf("the subscription ended with %v, want its UP TO", err)
	}
	if f.tag != "COPY 9" || f.time("t0") != t0 || f.time("t1") != t1 {
		t.Errorf("tag %q, times %v, want COPY 9 at %d, %d", f.tag, f.times, t0, t1)
	}

	// The view's history is computed from the table's.
	v := startFeed(t, srv.URL, fmt.Sprintf("COPY (SUBSCRIBE hsum AS OF AT LEAST %d UP TO %d) TO STDOUT", t1, t3+1), false)
	v.expect("t0 1 31 2", "t1 1 11 1", "t1 -1 31 2", "t2 -1 11 1", "t2 1 41 2")
	if err := v.ended(); err != nil {
		t.Fatal(err)
	}

	// UP TO equal to AS OF ends at once; before it, it fails.
	e := startFeed(t, srv.URL, fmt.Sprintf("COPY (SUBSCRIBE h AS OF %d UP TO %d) TO STDOUT", t1, t1), false)
	if err := e.ended(); err != nil || e.tag != "COPY 0" {
		t.Errorf("AS OF = UP TO: %v, tag %q", err, e.tag)
	}
	_, err := conn.Exec(context.Background(), fmt.Sprintf("SUBSCRIBE h AS OF %d UP TO %d", t1, t0))
	if sqlState(err) != "22023" {
		t.Errorf("UP TO before AS OF: %v", err)
	}
}

// TestSubscribeAsOfRetention refuses a start before the retained
// history, names how far it goes, and starts there with AT LEAST.
func TestSubscribeAsOfRetention(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE r (x int)")
	exec(t, conn, "INSERT INTO r VALUES (1)")
	_, err := conn.Exec(context.Background(), "SUBSCRIBE r AS OF 1000")
	if sqlState(err) != "22023" || !strings.Contains(err.Error(), `retained history of "r"`) {
		t.Fatalf("AS OF before the history: %v", err)
	}
	var since string
	if err := conn.QueryRow(context.Background(), "SHOW OBJECTS WHERE name = 'r'", pgx.QueryExecModeSimpleProtocol).Scan(nil, nil, &since); err != nil {
		t.Fatal(err)
	}
	// AT LEAST starts at the oldest time the history allows: when the
	// table was created, empty; the insert follows.
	g := startFeed(t, srv.URL, "COPY (SUBSCRIBE r WITH (PROGRESS) AS OF AT LEAST 1000) TO STDOUT", true)
	first := <-g.lines
	if got := strings.Split(first, "\t")[0]; got != since {
		t.Errorf("AT LEAST started at %s (%q), SHOW OBJECTS says history_since %s", got, first, since)
	}
	g.expect("progress", "t0 1 1")
}

// TestSubscribeEnvelopes checks ENVELOPE UPSERT and DEBEZIUM: one row
// per changed key and tick, the key columns first.
func TestSubscribeEnvelopes(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE acct (owner text, id int, balance int)")
	exec(t, conn, "INSERT INTO acct VALUES ('ada', 1, 10)")
	up := startFeed(t, srv.URL, "COPY (SUBSCRIBE acct ENVELOPE UPSERT (KEY (id)) WITH (PROGRESS)) TO STDOUT", true)
	dz := startFeed(t, srv.URL, "COPY (SUBSCRIBE acct ENVELOPE DEBEZIUM (KEY (id))) TO STDOUT", false)
	up.expect("progress", "t0 upsert 1 ada 10", "progress")
	dz.expect("t0 insert 1 \\N \\N ada 10")
	exec(t, conn, "INSERT INTO acct VALUES ('bob', 2, 5)")
	up.expect("t1 upsert 2 bob 5", "progress")
	dz.expect("t1 insert 2 \\N \\N bob 5")
	exec(t, conn, "UPDATE acct SET balance = 12 WHERE id = 1")
	up.expect("t2 upsert 1 ada 12", "progress")
	dz.expect("t2 upsert 1 ada 10 ada 12")
	exec(t, conn, "DELETE FROM acct WHERE id = 2")
	up.expect("t3 delete 2 \\N \\N", "progress")
	dz.expect("t3 delete 2 bob 5 \\N \\N")
	exec(t, conn, "INSERT INTO acct VALUES ('cy', 1, 1), ('dee', 1, 2)")
	up.expect("t4 key_violation 1 \\N \\N", "progress")
	dz.expect("t4 key_violation 1 \\N \\N \\N \\N")
	_, err := conn.Exec(context.Background(), "SUBSCRIBE acct ENVELOPE UPSERT (KEY (nope))")
	if sqlState(err) != "42703" {
		t.Errorf("unknown key column: %v", err)
	}
}

// TestSubscribeCursor reads a subscription with DECLARE … CURSOR and
// FETCH: FETCH returns what arrived within its timeout, zero rows when
// nothing did, and waits for a row without one; COMMIT ends it.
func TestSubscribeCursor(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	writer := connect(t, srv.URL)
	exec(t, writer, "CREATE TABLE c (k int PRIMARY KEY, v text)")
	exec(t, writer, "INSERT INTO c VALUES (1, 'a')")
	reader := connect(t, srv.URL)
	labels := map[string]string{}
	exec(t, reader, "BEGIN")
	exec(t, reader, "DECLARE cur CURSOR FOR SUBSCRIBE c WITH (PROGRESS)")
	check := func(query string, want ...string) {
		t.Helper()
		got := fetch(t, reader, labels, query)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s:\n got %q\nwant %q", query, got, want)
		}
	}
	check("FETCH 2 cur WITH (timeout = '5s')", "t0 t NULL NULL NULL", "t0 f 1 1 a")
	check("FETCH ALL cur WITH (timeout = '5s')", "t1 t NULL NULL NULL")
	exec(t, writer, "UPDATE c SET v = 'b'")
	got := fetch(t, reader, labels, "FETCH ALL cur WITH (timeout = '5s')")
	for len(got) > 0 && strings.Contains(got[0], " t NULL") {
		got = got[1:] // heartbeats before the update
	}
	if len(got) < 2 || !strings.HasSuffix(got[0], " f -1 1 a") || !strings.HasSuffix(got[1], " f 1 1 b") || got[0][:3] != got[1][:3] {
		t.Fatalf("after the update: %q", got)
	}
	exec(t, reader, "COMMIT")

	// Without PROGRESS an idle cursor's FETCH returns nothing within its
	// timeout; a FETCH without one waits for the next change.
	exec(t, reader, "BEGIN")
	exec(t, reader, "DECLARE c2 CURSOR FOR SUBSCRIBE c WITH (SNAPSHOT = false)")
	start := time.Now()
	if got := fetch(t, reader, labels, "FETCH ALL c2 WITH (timeout = '300ms')"); len(got) != 0 {
		t.Fatalf("idle FETCH: %q", got)
	}
	if d := time.Since(start); d < 250*time.Millisecond || d > 5*time.Second {
		t.Errorf("idle FETCH took %v, want its timeout", d)
	}
	if got := fetch(t, reader, labels, "FETCH ALL c2 WITH (timeout = '0s')"); len(got) != 0 {
		t.Fatalf("FETCH with no wait: %q", got)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		exec(t, writer, "INSERT INTO c VALUES (2, 'x')")
	}()
	if got := fetch(t, reader, labels, "FETCH ALL c2"); len(got) != 1 || !strings.HasSuffix(got[0], " 1 2 x") {
		t.Fatalf("FETCH without a timeout: %q", got)
	}
	exec(t, reader, "COMMIT")
	_, err := reader.Exec(context.Background(), "FETCH ALL c2 WITH (timeout = '0s')")
	if sqlState(err) != "34000" {
		t.Errorf("FETCH after COMMIT: %v", err)
	}
	_, err = reader.Exec(context.Background(), "DECLARE c3 CURSOR FOR SUBSCRIBE c")
	if sqlState(err) != "25P01" {
		t.Errorf("DECLARE outside a transaction block: %v", err)
	}
}

// TestSubscribeDropped ends a subscription whose table is dropped.
func TestSubscribeDropped(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE gone (x int)")
	exec(t, conn, "CREATE VIEW gone_v AS SELECT x * 2 AS y FROM gone")
	f := startFeed(t, srv.URL, "COPY (SUBSCRIBE gone) TO STDOUT", false)
	g := startFeed(t, srv.URL, "COPY (SUBSCRIBE gone_v) TO STDOUT", false)
	exec(t, conn, "INSERT INTO gone VALUES (1)")
	f.expect("t0 1 1")
	g.expect("t0 1 2")
	exec(t, conn, "DROP VIEW gone_v")
	if err := g.ended(); sqlState(err) != "42P01" || !strings.Contains(err.Error(), `"gone_v" was dropped`) {
		t.Errorf("after DROP VIEW: %v", err)
	}
	exec(t, conn, "DROP TABLE gone")
	if err := f.ended(); sqlState(err) != "42P01" {
		t.Errorf("after DROP TABLE: %v", err)
	}
}

// TestSubscribeDisconnect checks that a client that closes its
// connection during an idle subscription is noticed at once: its
// session ends although the server never writes to it again.
func TestSubscribeDisconnect(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE quiet (x int)")
	for _, query := range []string{"SUBSCRIBE quiet", "COPY (SUBSCRIBE quiet) TO STDOUT"} {
		nc, err := net.Dial("tcp", srv.Addr)
		if err != nil {
			t.Fatal(err)
		}
		rawQuery(t, nc, query)
		waitSessions(t, conn, 2, 5*time.Second)
		time.Sleep(100 * time.Millisecond)
		nc.Close()
		waitSessions(t, conn, 1, 2*time.Second)
	}

	// A driver's extended protocol sends Sync behind Execute: the watch
	// looks past it. Here FETCH waits for a row that never comes.
	nc, err := net.Dial("tcp", srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	fe := rawQuery(t, nc, "BEGIN; DECLARE c CURSOR FOR SUBSCRIBE quiet")
	waitSessions(t, conn, 2, 5*time.Second)
	fe.Send(&pgproto3.Parse{Query: "FETCH ALL c"})
	fe.Send(&pgproto3.Bind{})
	fe.Send(&pgproto3.Describe{ObjectType: 'P'})
	fe.Send(&pgproto3.Execute{})
	fe.Send(&pgproto3.Sync{})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	nc.Close()
	waitSessions(t, conn, 1, 2*time.Second)
}

// TestSubscribeStalled stalls a COPY (SUBSCRIBE) reader while another
// session writes: the writes go on at their pace, and the stalled
// subscription is cut off with 53200 once it holds more than its buffer.
func TestSubscribeStalled(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{SubscribeBufferBytes: 1 << 20})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE big (id int, pad text)")
	reader := connect(t, srv.URL)
	unblock := make(chan struct{})
	w := &blockingWriter{unblock: unblock}
	done := make(chan error, 1)
	go func() {
		_, err := reader.PgConn().CopyTo(context.Background(), w, "COPY (SUBSCRIBE big) TO STDOUT")
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	pad := strings.Repeat("x", 4000)
	var slowest time.Duration
	for i := range 400 {
		start := time.Now()
		exec(t, conn, "INSERT INTO big SELECT g, $1 FROM generate_series($2::int, $2::int + 9) AS g", pad, i*10)
		slowest = max(slowest, time.Since(start))
	}
	if slowest > 2*time.Second {
		t.Errorf("a write took %v while the reader was stalled", slowest)
	}
	close(unblock)
	select {
	case err := <-done:
		if sqlState(err) != "53200" {
			t.Fatalf("the stalled subscription ended with %v, want 53200", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the stalled subscription was not cut off")
	}
	if got := rows(t, conn, "SELECT count(*) FROM big"); got != "4000" {
		t.Errorf("count = %s", got)
	}
}

// blockingWriter blocks its first write until unblock is closed, which
// stalls the client reading COPY data into it.
type blockingWriter struct {
	unblock chan struct{}
}

func (w *blockingWriter) Write(p []byte) (int, error) {
	<-w.unblock
	return len(p), nil
}

// rawQuery logs in on nc as streamdb and sends query, and returns once
// the result has started (its RowDescription or CopyOutResponse) or, for
// statements without rows, ended (ReadyForQuery).
func rawQuery(t *testing.T, nc net.Conn, query string) *pgproto3.Frontend {
	t.Helper()
	fe := pgproto3.NewFrontend(nc, nc)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "streamdb", "database": "streamdb"}})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	defer nc.SetReadDeadline(time.Time{})
	sent := false
	for {
		msg, err := fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		switch m := msg.(type) {
		case *pgproto3.ReadyForQuery:
			if sent {
				return fe
			}
			fe.Send(&pgproto3.Query{String: query})
			if err := fe.Flush(); err != nil {
				t.Fatal(err)
			}
			sent = true
		case *pgproto3.RowDescription, *pgproto3.CopyOutResponse:
			return fe
		case *pgproto3.ErrorResponse:
			t.Fatalf("%s: %s", query, m.Message)
		}
	}
}

// TestSubscribeSharedEncoding runs subscribers of one table that share
// its changes: those alike share the encoded rows, and each of the
// others (another time zone, PROGRESS, an envelope, binary COPY) still
// gets its own rendering of the same changes.
func TestSubscribeSharedEncoding(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE ev (k int PRIMARY KEY, at timestamptz)")
	query := "COPY (SUBSCRIBE ev WITH (SNAPSHOT = false)) TO STDOUT"
	utc := []*feed{startFeed(t, srv.URL, query, false), startFeed(t, srv.URL, query, false), startFeed(t, srv.URL, query, false)}
	tokyo := startFeed(t, srv.URL+"&timezone=Asia%2FTokyo", query, false)
	progress := startFeed(t, srv.URL, "COPY (SUBSCRIBE ev WITH (SNAPSHOT = false, PROGRESS)) TO STDOUT", true)
	upsert := startFeed(t, srv.URL, "COPY (SUBSCRIBE ev ENVELOPE UPSERT (KEY (k)) WITH (SNAPSHOT = false)) TO STDOUT", false)
	binary := &lockedBuffer{}
	binConn := connect(t, srv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	binDone := make(chan error, 1)
	go func() {
		_, err := binConn.PgConn().CopyTo(ctx, binary, "COPY (SUBSCRIBE ev WITH (SNAPSHOT = false)) TO STDOUT (FORMAT binary)")
		binDone <- err
	}()
	for _, f := range append([]*feed{tokyo, upsert}, utc...) {
		f.quiet(200 * time.Millisecond)
	}
	progress.expect("progress")
	exec(t, conn, "INSERT INTO ev VALUES (1, '2024-01-01 10:00:00+00'), (2, '2024-06-01 00:30:00+00')")
	exec(t, conn, "UPDATE ev SET at = at + interval '1 hour' WHERE k = 1")
	for _, f := range utc {
		f.expect("t0 1 1 2024-01-01 10:00:00+00", "t0 1 2 2024-06-01 00:30:00+00", "t1 -1 1 2024-01-01 10:00:00+00", "t1 1 1 2024-01-01 11:00:00+00")
	}
	tokyo.expect("t0 1 1 2024-01-01 19:00:00+09", "t0 1 2 2024-06-01 09:30:00+09", "t1 -1 1 2024-01-01 19:00:00+09", "t1 1 1 2024-01-01 20:00:00+09")
	progress.expect("t0 1 1 2024-01-01 10:00:00+00", "t0 1 2 2024-06-01 00:30:00+00", "progress", "t1 -1 1 2024-01-01 10:00:00+00", "t1 1 1 2024-01-01 11:00:00+00", "progress")
	upsert.expect("t0 upsert 1 2024-01-01 10:00:00+00", "t0 upsert 2 2024-06-01 00:30:00+00", "t1 upsert 1 2024-01-01 11:00:00+00")
	// The binary stream: its signature once, then four rows, each of
	// four fields (mz_timestamp, mz_diff, k, at), the first a numeric of
	// 16 bytes.
	row := []byte{0, 4, 0, 0, 0, 16}
	deadline := time.Now().Add(10 * time.Second)
	for bytes.Count(binary.bytes(), row) < 4 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-binDone
	b := binary.bytes()
	if !bytes.HasPrefix(b, []byte("PGCOPY\n\xff\r\n\x00")) || bytes.Count(b, []byte("PGCOPY")) != 1 || bytes.Count(b, row) != 4 {
		t.Errorf("binary COPY of the subscription: %q", b)
	}
}

// lockedBuffer collects what a COPY writes, for another goroutine to read.
type lockedBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *lockedBuffer) bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf...)
}

// nextChange reads a SUBSCRIBE's next row, its columns after mz_timestamp.
func nextChange(t *testing.T, rs pgx.Rows) string {
	t.Helper()
	if !rs.Next() {
		t.Fatalf("stream ended: %v", rs.Err())
	}
	vals, err := rs.Values()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(vals[1:])
}
