package sql_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb/internal/pgtest"
	"github.com/streamdb/streamdb/internal/testserver"
)

// copyBenchRows is the size of the COPY benchmark's file; -benchtime=1x
// keeps it one COPY of that many rows per engine.
const copyBenchRows = 1_000_000

// copyBenchData is the benchmark's input: id, customer, amount.
func copyBenchData(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%d\tcustomer%d\t%d.%02d\n", i, i%1000, i%997, i%100)
	}
	return b.Bytes()
}

// BenchmarkCopyFrom loads the same file with COPY FROM STDIN into
// streamdb and into PostgreSQL 15 (when installed), and reports both
// rates and their ratio (the target is streamdb ≥ 0.5× PostgreSQL).
func BenchmarkCopyFrom(b *testing.B) {
	b.ReportAllocs()
	data := copyBenchData(copyBenchRows)
	load := func(url string) float64 {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close(ctx)
		var total time.Duration
		for i := 0; i < b.N; i++ {
			table := fmt.Sprintf("m%d", i)
			if _, err := conn.Exec(ctx, "CREATE TABLE "+table+" (id int PRIMARY KEY, customer text, amount numeric(10,2))"); err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			if _, err := conn.PgConn().CopyFrom(ctx, bytes.NewReader(data), "COPY "+table+" FROM STDIN"); err != nil {
				b.Fatal(err)
			}
			total += time.Since(start)
		}
		return float64(copyBenchRows*b.N) / total.Seconds()
	}
	b.StopTimer()
	srv := testserver.Start(b, testserver.Options{})
	b.StartTimer()
	ours := load(srv.URL)
	b.ReportMetric(ours, "rows/s")
	if !pgtest.Available() {
		return
	}
	b.StopTimer()
	pg := pgtest.Start(b)
	pgRate := load(pg.URL)
	b.ReportMetric(pgRate, "pg_rows/s")
	b.ReportMetric(ours/pgRate, "ratio")
}
