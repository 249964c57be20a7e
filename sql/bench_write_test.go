package sql_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb/internal/testserver"
)

// The write benchmarks mirror bench/refresh on a smaller table: a
// GROUP BY view over r, changed 1,000 rows at a time.
const (
	benchRows   = 100_000
	benchGroups = 1000
	benchChange = 1000
)

// refreshTable starts a server with r loaded and the view over it.
func refreshTable(b *testing.B) *pgx.Conn {
	b.Helper()
	srv := testserver.Start(b, testserver.Options{})
	ctx := context.Background()
	conn := testserver.Connect(b, srv.URL)
	for _, s := range []string{
		"CREATE TABLE r (id int PRIMARY KEY, k int NOT NULL, v bigint NOT NULL)",
		fmt.Sprintf("INSERT INTO r SELECT g, g %% %d, g FROM generate_series(1, %d) AS g", benchGroups, benchRows),
		"CREATE MATERIALIZED VIEW rv AS SELECT k, count(*) AS n, sum(v) AS s FROM r GROUP BY k",
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
	return conn
}

// BenchmarkRangeUpdate updates 1,000 rows selected by a primary-key range
// under the view: the cost should follow the change, not the table.
func BenchmarkRangeUpdate(b *testing.B) {
	conn := refreshTable(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		lo := 1 + (i*benchChange)%(benchRows-benchChange)
		sql := fmt.Sprintf("UPDATE r SET v = v + 1 WHERE id BETWEEN %d AND %d", lo, lo+benchChange-1)
		if _, err := conn.Exec(ctx, sql); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*benchChange)/b.Elapsed().Seconds(), "rows/s")
	reportViewUpdate(b, conn)
}

// BenchmarkInsertValues inserts 1,000 rows in one multi-row VALUES
// statement under the view and deletes them again by range.
func BenchmarkInsertValues(b *testing.B) {
	conn := refreshTable(b)
	ctx := context.Background()
	stmts := func(i int) (string, string) {
		lo := benchRows + 1 + i*benchChange
		var sb strings.Builder
		sb.WriteString("INSERT INTO r VALUES ")
		for id := lo; id < lo+benchChange; id++ {
			if id > lo {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, "(%d,%d,%d)", id, id%benchGroups, id)
		}
		return sb.String(), fmt.Sprintf("DELETE FROM r WHERE id BETWEEN %d AND %d", lo, lo+benchChange-1)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		ins, del := stmts(i)
		if _, err := conn.Exec(ctx, ins); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if _, err := conn.Exec(ctx, del); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(b.N*benchChange)/b.Elapsed().Seconds(), "rows/s")
	reportViewUpdate(b, conn)
}

// reportViewUpdate reports the mean time the engine spent updating the
// view per tick (the inserts and the deletes alike), as SHOW MATERIALIZED
// VIEWS tells it: the maintenance alone, without parsing, the tables'
// writes and the commit.
func reportViewUpdate(b *testing.B, conn *pgx.Conn) {
	var ticks int64
	var ms float64
	if err := conn.QueryRow(context.Background(), "SHOW MATERIALIZED VIEWS WHERE name = 'rv'").Scan(nil, nil, &ticks, &ms, nil, nil, nil, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(ms*1000/float64(ticks), "view-µs/tick")
}

// BenchmarkLoadAndView loads a table with INSERT … SELECT from
// generate_series and creates the GROUP BY view over it.
func BenchmarkLoadAndView(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		srv := testserver.Start(b, testserver.Options{})
		conn := testserver.Connect(b, srv.URL)
		b.StartTimer()
		for _, s := range []string{
			"CREATE TABLE r (id int PRIMARY KEY, k int NOT NULL, v bigint NOT NULL)",
			fmt.Sprintf("INSERT INTO r SELECT g, g %% %d, g FROM generate_series(1, %d) AS g", benchGroups, benchRows),
			"CREATE MATERIALIZED VIEW rv AS SELECT k, count(*) AS n, sum(v) AS s FROM r GROUP BY k",
		} {
			if _, err := conn.Exec(ctx, s); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		conn.Close(ctx)
		srv.Stop()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.N*benchRows)/b.Elapsed().Seconds(), "rows/s")
}
