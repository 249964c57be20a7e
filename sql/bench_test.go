package sql_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/testserver"
)

// BenchmarkPointSelect measures a primary-key SELECT over the wire with a
// prepared statement, the pgbench select-only workload.
func BenchmarkPointSelect(b *testing.B) {
	srv := testserver.Start(b, testserver.Options{})
	ctx := context.Background()
	conn := testserver.Connect(b, srv.URL)
	if _, err := conn.Exec(ctx, "CREATE TABLE acct (aid int PRIMARY KEY, abalance int, filler text)"); err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO acct SELECT g, 0, 'x' FROM generate_series(1, 100000) g"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var bal int
	for i := 0; b.Loop(); i++ {
		if err := conn.QueryRow(ctx, "SELECT abalance FROM acct WHERE aid = $1", i%100000+1).Scan(&bal); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
}

// BenchmarkInsertRows measures committed table writes: 100-row INSERTs.
func BenchmarkInsertRows(b *testing.B) {
	srv := testserver.Start(b, testserver.Options{})
	ctx := context.Background()
	conn := testserver.Connect(b, srv.URL)
	if _, err := conn.Exec(ctx, "CREATE TABLE w (id int8 PRIMARY KEY, v text, n numeric)"); err != nil {
		b.Fatal(err)
	}
	const perStmt = 100
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		var sb strings.Builder
		sb.WriteString("INSERT INTO w VALUES ")
		for j := 0; j < perStmt; j++ {
			if j > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, "(%d, 'row %d', %d.5)", i*perStmt+j, j, j)
		}
		if _, err := conn.Exec(ctx, sb.String()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*perStmt)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkSelectView reads a whole materialized view of 200,000 rows
// over the wire, as psql or a dashboard does: the snapshot's rows, their
// text encoding and the protocol's framing, one query per iteration.
func BenchmarkSelectView(b *testing.B) {
	const rows = 200_000
	srv := testserver.Start(b, testserver.Options{})
	ctx := context.Background()
	conn := testserver.Connect(b, srv.URL)
	for _, s := range []string{
		"CREATE TABLE bids (id int8 PRIMARY KEY, auction int8, price int8, at timestamp, channel text)",
		fmt.Sprintf("INSERT INTO bids SELECT g, g %% 1000, g * 7, TIMESTAMP '2026-01-01' + g * INTERVAL '1 second', 'channel-' || (g %% 10) FROM generate_series(1, %d) g", rows),
		"CREATE MATERIALIZED VIEW v AS SELECT id, auction, price, at, channel FROM bids",
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r, err := conn.Query(ctx, "SELECT * FROM v")
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for r.Next() {
			n++
		}
		if err := r.Err(); err != nil || n != rows {
			b.Fatalf("read %d rows (%v), want %d", n, err, rows)
		}
	}
	b.ReportMetric(float64(b.N*rows)/b.Elapsed().Seconds(), "rows/s")
}
