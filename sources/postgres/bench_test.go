package postgres

import (
	"context"
	"io"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/sources"
)

// benchSize reads a benchmark's scale from the environment.
func benchSize(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// countingSink applies batches to a model (when m is set) and signals
// when it has seen target changes, or when the source reports Running
// (its snapshot done).
type countingSink struct {
	m *model
	// snapshotting is when the source first reported Snapshotting (Unix
	// ns).
	snapshotting atomic.Int64
	changes      atomic.Int64
	target       int64
	reached      chan struct{}
	running      chan struct{}
	fired        atomic.Bool
	ran          atomic.Bool
}

func newCountingSink(m *model, target int64) *countingSink {
	return &countingSink{m: m, target: target, reached: make(chan struct{}), running: make(chan struct{})}
}

func (s *countingSink) Emit(ctx context.Context, b *sources.Batch) error {
	if s.m != nil {
		if err := s.m.Emit(ctx, b); err != nil {
			return err
		}
	}
	n := 0
	for _, c := range b.Changes {
		n += len(c)
	}
	if s.changes.Add(int64(n)) >= s.target && s.target > 0 && s.fired.CompareAndSwap(false, true) {
		close(s.reached)
	}
	return nil
}

func (s *countingSink) Status(st sources.State, reason string) {
	if s.m != nil {
		s.m.Status(st, reason)
	}
	if st == sources.Snapshotting {
		s.snapshotting.CompareAndSwap(0, time.Now().UnixNano())
	}
	if st == sources.Running && s.ran.CompareAndSwap(false, true) {
		close(s.running)
	}
}

// BenchmarkSnapshot compares the snapshot of a table (read, decoded into
// rows and batched; with sink=model also applied to the in-memory model)
// with PostgreSQL's own COPY of it to a pgx client that discards the
// bytes, in the same run. STREAMDB_BENCH_ROWS sets the table's size
// (500,000 rows by default). Reported: rows/s, the snapshot's rate from
// the start of the table's read to the end of its last commit, and ratio,
// that over copy_rows/s; e2e_rows/s and e2e_ratio count from Run's start,
// so they include connecting and creating the slot (a fixed cost of some
// 100-200 ms here).
func BenchmarkSnapshot(b *testing.B) {
	for _, apply := range []bool{false, true} {
		name := "sink=count"
		if apply {
			name = "sink=model"
		}
		b.Run(name, func(b *testing.B) { benchSnapshot(b, apply) })
	}
}

func benchSnapshot(b *testing.B, apply bool) {
	rows := benchSize("STREAMDB_BENCH_ROWS", 500_000)
	u := newUpstream(b, nil)
	u.exec(`CREATE TABLE bench (id int8 PRIMARY KEY, a int4, name text, amount numeric(12,2), at timestamptz)`,
		`INSERT INTO bench SELECT g, g % 1000, 'customer ' || g, (g % 100000) / 100.0, '2024-01-01'::timestamptz + g * interval '1 second' FROM generate_series(1, `+strconv.Itoa(rows)+`) g`,
		`CREATE PUBLICATION pub FOR ALL TABLES`, `VACUUM ANALYZE bench`)
	ctx := context.Background()
	var ours, e2e, copyTime time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		if _, err := u.conn.PgConn().CopyTo(ctx, io.Discard, "COPY bench TO STDOUT"); err != nil {
			b.Fatal(err)
		}
		copyTime += time.Since(t0)

		cfg := u.config("bench_snap_"+strconv.Itoa(i), "pub")
		src, err := Open(cfg, mustDiscover(b, cfg))
		if err != nil {
			b.Fatal(err)
		}
		sink := newCountingSink(nil, 0)
		if apply {
			sink.m = newModel(src.Outputs())
		}
		rctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		t0 = time.Now()
		go func() { done <- src.Run(rctx, nil, sink) }()
		<-sink.running
		e2e += time.Since(t0)
		ours += time.Since(time.Unix(0, sink.snapshotting.Load()))
		cancel()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		if got := sink.changes.Load(); got != int64(rows) {
			b.Fatalf("snapshot delivered %d rows, want %d", got, rows)
		}
		if err := DropSlot(ctx, cfg.Connection, cfg.Slot); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	n := float64(rows * b.N)
	b.ReportMetric(n/ours.Seconds(), "rows/s")
	b.ReportMetric(n/e2e.Seconds(), "e2e_rows/s")
	b.ReportMetric(n/copyTime.Seconds(), "copy_rows/s")
	b.ReportMetric(copyTime.Seconds()/ours.Seconds(), "ratio")
	b.ReportMetric(copyTime.Seconds()/e2e.Seconds(), "e2e_ratio")
}

// BenchmarkSnapshotDecode measures the snapshot's work on this side of
// the connection alone: a binary COPY of the BenchmarkSnapshot table,
// read once from PostgreSQL into memory, decoded into rows and batched
// as snapshotTable does. It tells how much of a snapshot's time is
// streamdb's (the rest is PostgreSQL's and the network's).
func BenchmarkSnapshotDecode(b *testing.B) {
	rows := benchSize("STREAMDB_BENCH_ROWS", 500_000)
	u := newUpstream(b, nil)
	u.exec(`CREATE TABLE bench (id int8 PRIMARY KEY, a int4, name text, amount numeric(12,2), at timestamptz)`,
		`INSERT INTO bench SELECT g, g % 1000, 'customer ' || g, (g % 100000) / 100.0, '2024-01-01'::timestamptz + g * interval '1 second' FROM generate_series(1, `+strconv.Itoa(rows)+`) g`,
		`CREATE PUBLICATION pub FOR ALL TABLES`)
	tables := mustDiscover(b, u.config("bench_decode", "pub"))
	// pgconn hands the decoder one CopyData message at a time: keep the
	// messages apart.
	var msgs [][]byte
	w := writerFunc(func(p []byte) (int, error) {
		msgs = append(msgs, append([]byte(nil), p...))
		return len(p), nil
	})
	if _, err := u.conn.PgConn().CopyTo(context.Background(), w,
		`COPY (SELECT "id", "a", "name", "amount", "at" FROM ONLY "public"."bench") TO STDOUT (FORMAT binary)`); err != nil {
		b.Fatal(err)
	}
	t := newTable(tables[0], 0)
	binary := []bool{true, true, true, true, true}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		var arena rowArena
		out := make([]sources.Change, 0, DefaultSnapshotBatchRows)
		dec := &copyDecoder{ncols: 5, row: func(data []byte, fields []span) error {
			row, key, bad := t.snapshotRow(&arena, data, fields, binary)
			if bad != nil {
				b.Fatal(bad.err)
			}
			out = append(out, sources.Change{Row: row, Key: key})
			if len(out) == cap(out) {
				out = make([]sources.Change, 0, DefaultSnapshotBatchRows)
			}
			return nil
		}}
		for _, m := range msgs {
			if _, err := dec.Write(m); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func mustDiscover(b *testing.B, cfg Config) []Table {
	tables, err := Discover(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	return tables
}

// BenchmarkStream replays a burst of upstream changes (inserts, updates
// and deletes in transactions of 1,000; STREAMDB_BENCH_CHANGES of them,
// 1,000,000 by default) through the source into the in-memory model, and
// drains a copy of the same slot taken at the same point without decoding
// anything (a pg_recvlogical to /dev/null), in the same run. Reported:
// changes/s (the source's), raw_changes/s and their ratio.
func BenchmarkStream(b *testing.B) {
	total := benchSize("STREAMDB_BENCH_CHANGES", 1_000_000)
	per := 1000
	total = total / per * per
	u := newUpstream(b, nil)
	u.exec(`CREATE TABLE s (id int8 PRIMARY KEY, v int4, note text)`, `CREATE PUBLICATION pub FOR ALL TABLES`,
		// Each transaction inserts 500 rows, updates 300 and deletes 200
		// of those it inserted earlier.
		`CREATE PROCEDURE burst(txns int) LANGUAGE plpgsql AS $$
		DECLARE base int8;
		BEGIN
			FOR i IN 0 .. txns - 1 LOOP
				base := i * 500;
				INSERT INTO s SELECT base + g, g, 'note ' || (base + g) FROM generate_series(1, 500) g;
				UPDATE s SET v = v + 1, note = note || '!' WHERE id > base + 200 AND id <= base + 500;
				DELETE FROM s WHERE id > base AND id <= base + 200;
				COMMIT;
			END LOOP;
		END $$`)
	ctx := context.Background()
	var ours, raw time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		slot := "bench_stream_" + strconv.Itoa(i)
		cfg := u.config(slot, "pub")
		src, err := Open(cfg, mustDiscover(b, cfg))
		if err != nil {
			b.Fatal(err)
		}
		m := newModel(src.Outputs())
		sink := newCountingSink(m, 0)
		rctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- src.Run(rctx, nil, sink) }()
		<-sink.running
		cancel()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		u.exec(`TRUNCATE s`, `CALL burst(`+strconv.Itoa(total/per)+`)`,
			`SELECT pg_copy_logical_replication_slot('`+slot+`', '`+slot+`_raw')`)

		b.StartTimer()
		t0 := time.Now()
		src, err = Open(cfg, src.Tables())
		if err != nil {
			b.Fatal(err)
		}
		sink = newCountingSink(m, int64(total))
		rctx, cancel = context.WithCancel(ctx)
		go func() { done <- src.Run(rctx, m.committed(), sink) }()
		select {
		case <-sink.reached:
		case err := <-done:
			b.Fatalf("Run: %v", err)
		}
		ours += time.Since(t0)
		cancel()
		if err := <-done; err != nil {
			b.Fatal(err)
		}

		t0 = time.Now()
		drainRaw(b, cfg.Connection, slot+"_raw", total)
		raw += time.Since(t0)
		b.StopTimer()
		for _, s := range []string{slot, slot + "_raw"} {
			if err := DropSlot(ctx, cfg.Connection, s); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
	}
	b.StopTimer()
	n := float64(total * b.N)
	b.ReportMetric(n/ours.Seconds(), "changes/s")
	b.ReportMetric(n/raw.Seconds(), "raw_changes/s")
	b.ReportMetric(raw.Seconds()/ours.Seconds(), "ratio")
}

// drainRaw reads slot's stream until it has seen want row changes,
// decoding nothing but each message's kind.
func drainRaw(b *testing.B, conn Connection, slot string, want int) {
	ctx := context.Background()
	repl, err := conn.connectReplication(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer repl.Close(ctx)
	if err := pglogrepl.StartReplication(ctx, repl, slot, 0, pglogrepl.StartReplicationOptions{
		Mode: pglogrepl.LogicalReplication, PluginArgs: []string{"proto_version '1'", `publication_names '"pub"'`}}); err != nil {
		b.Fatal(err)
	}
	seen := 0
	for seen < want {
		msg, err := repl.ReceiveMessage(ctx)
		if err != nil {
			b.Fatal(err)
		}
		cd, ok := msg.(*pgproto3.CopyData)
		if !ok || len(cd.Data) < 26 || cd.Data[0] != pglogrepl.XLogDataByteID {
			continue
		}
		switch cd.Data[25] {
		case msgInsert, msgUpdate, msgDelete:
			seen++
		}
	}
}
