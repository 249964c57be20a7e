package sql_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql"
)

// FuzzStatement runs arbitrary text as a client's query through a real
// engine's session: parsing, binding, planning and running, under a
// statement_timeout of 100 ms, a memory limit 256 MB above the heap and
// a deadline of a second per input. Every statement must end with its
// rows or with an error carrying a SQLSTATE other than XX000 (an internal
// error, the form a panic in a statement takes); nothing may take the
// process down. Each input runs in a transaction block that is rolled
// back, so that the tables it starts from stay as they are.
func FuzzStatement(f *testing.F) {
	for _, s := range []string{
		"SELECT a, b FROM t WHERE a > 1 ORDER BY b LIMIT 3",
		"SELECT t.a, count(*) FROM t JOIN u ON t.a = u.a GROUP BY ROLLUP (t.a)",
		"SELECT * FROM t WHERE a IN (SELECT a FROM u WHERE u.f > t.c)",
		"SELECT b, row_number() OVER (PARTITION BY a ORDER BY d) FROM t",
		"SELECT * FROM v; SELECT count(*) FROM t, u, generate_series(1, 1000)",
		"SELECT count(*) FROM generate_series(1, 100000) a, generate_series(1, 100000) b",
		"SELECT repeat('x', 100000) FROM generate_series(1, 1000) ORDER BY 1",
		"INSERT INTO t VALUES (10, 'x'); UPDATE t SET b = b || 'y' WHERE a = 2; DELETE FROM u",
		"CREATE MATERIALIZED VIEW w AS SELECT a, count(*) FROM u GROUP BY a; SELECT * FROM w",
		"COPY (SELECT * FROM t) TO STDOUT",
		"SELECT 1" + strings.Repeat("+1", 5000),
		"SELECT " + strings.Repeat("ARRAY[", 7) + "1" + strings.Repeat("]", 7),
		"SELECT " + strings.TrimSuffix(strings.Repeat("1,", 1700), ","),
		"SET statement_timeout = 0; SELECT count(*) FROM generate_series(1, 1000000000)",
	} {
		f.Add(s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.Cleanup(cancel)
	runtime.GC()
	e, err := sql.Open(ctx, sql.Config{DataDir: f.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), MemoryLimit: heapObjects() + 256<<20})
	if err != nil {
		f.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	f.Cleanup(func() {
		cancel()
		<-done
		e.Close()
	})
	sess, err := e.Connect(ctx, pgwire.Startup{User: "streamdb", Database: "streamdb"})
	if err != nil {
		f.Fatal(err)
	}
	for _, setup := range []string{
		"CREATE TABLE t (a int PRIMARY KEY, b text, c numeric, d timestamptz, e jsonb)",
		"CREATE TABLE u (a bigint, f float8, g bool)",
		"INSERT INTO t SELECT g, 'b' || g, g / 3.0, '2024-01-01'::timestamptz + g * interval '1 hour', jsonb_build_object('x', g) FROM generate_series(1, 100) g",
		"INSERT INTO u SELECT g % 10, g * 0.5, g % 2 = 0 FROM generate_series(1, 100) g",
		"CREATE MATERIALIZED VIEW v AS SELECT a, sum(f) AS s FROM u GROUP BY a",
		"SET statement_timeout = '100ms'",
	} {
		if err := runFuzzQuery(ctx, sess, setup); err != nil {
			f.Fatalf("%s: %v", setup, err)
		}
	}
	f.Fuzz(func(t *testing.T, query string) {
		ictx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		if err := runFuzzQuery(ictx, sess, "BEGIN"); err != nil {
			t.Fatalf("BEGIN: %v", err)
		}
		err := runFuzzQuery(ictx, sess, query)
		if e := pgerr.As(err); err != nil && (e == nil || e.Code == pgerr.InternalError) && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			t.Fatalf("%q: %v", query, err)
		}
		if err := runFuzzQuery(ctx, sess, "ROLLBACK; SET statement_timeout = '100ms'"); err != nil {
			t.Fatalf("ROLLBACK: %v", err)
		}
	})
}

// runFuzzQuery runs a query string as pgwire's simple query does, reading
// at most a thousand rows of each result, and returns the first error.
func runFuzzQuery(ctx context.Context, sess pgwire.Session, query string) error {
	stmts, err := sess.Parse(ctx, query)
	if err != nil {
		return err
	}
	if len(stmts) > 1 {
		sess.BeginBlock()
	}
	for _, st := range stmts {
		if err = runFuzzStatement(ctx, st); err != nil {
			break
		}
	}
	if len(stmts) > 1 {
		if cerr := sess.EndBlock(err); err == nil {
			err = cerr
		}
	}
	return err
}

func runFuzzStatement(ctx context.Context, st pgwire.Statement) error {
	if _, _, err := st.Describe(ctx, nil); err != nil {
		return err
	}
	res, err := st.Execute(ctx, nil)
	if err != nil {
		return err
	}
	defer res.Close()
	switch r := res.(type) {
	case pgwire.CopyInResult:
		return r.CopyDone(ctx)
	case pgwire.CopyOutResult:
		for range 1000 {
			if _, ok, err := r.NextCopyData(ctx); err != nil || !ok {
				return err
			}
		}
		return nil
	}
	for range 1000 {
		if _, ok, err := res.Next(ctx); err != nil || !ok {
			return err
		}
	}
	return nil
}
