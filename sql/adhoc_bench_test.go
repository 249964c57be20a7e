package sql_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/streamdb/streamdb/internal/testserver"
)

// BenchmarkNexmarkAdHoc measures ad hoc (one-tick) queries over NEXMARK
// data, the path of every SELECT not served by a maintained view: the
// Nexmark harness's queries (bench/nexmark/q*.sql) read to the end, one
// query per iteration. STREAMDB_BENCH_EVENTS sets the number of events
// (100,000 by default); events/s counts the input events, CPU-ms/op the
// whole process's CPU time per query (steadier than wall time on a shared
// machine).
func BenchmarkNexmarkAdHoc(b *testing.B) {
	events := 100000
	if s := os.Getenv("STREAMDB_BENCH_EVENTS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		events = n
	}
	srv := testserver.Start(b, testserver.Options{})
	ctx := context.Background()
	conn := testserver.Connect(b, srv.URL)
	if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE SOURCE n FROM LOAD GENERATOR NEXMARK (MAX EVENTS %d, SEED 1) FOR ALL TABLES", events)); err != nil {
		b.Fatal(err)
	}
	waitIngested(b, conn, int64(events))
	// Besides the harness's queries, scans that read no column and one
	// column of the bids.
	queries := map[string]string{"count": "SELECT count(*) FROM bid", "sum": "SELECT count(*), sum(price) FROM bid"}
	for _, q := range []string{"count", "sum", "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8", "q9", "q15", "q17", "q18", "q19", "q20"} {
		text, ok := queries[q]
		if !ok {
			data, err := os.ReadFile(filepath.Join("..", "bench", "nexmark", q+".sql"))
			if err != nil {
				b.Fatal(err)
			}
			text = string(data)
		}
		b.Run(q, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				rows, err := conn.Query(ctx, text)
				if err != nil {
					b.Fatal(err)
				}
				for rows.Next() {
				}
				if err := rows.Err(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "CPU-ms/op")
		})
	}
}
