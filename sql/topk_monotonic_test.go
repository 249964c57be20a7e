package sql_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestMonotonicTopKViews maintains top-k views over a NEXMARK source,
// whose relations are append-only, twice: once straight over the source
// (MonotonicTopK, which keeps k rows per group) and once over the source
// through a LEFT JOIN with one constant row, which changes no row but
// hides the append-only promise (TopK, which keeps every row). While the
// source ingests, both views must hold the same rows at every tick, and
// at the end the rows the query returns ad hoc (a one-tick dataflow,
// with a MonotonicTopK of its own).
func TestMonotonicTopKViews(t *testing.T) {
	const events = 30000
	ctx := context.Background()
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	// %[1]s is auction, %[2]s bid, %[3]s person.
	queries := []string{
		// q9's shape: the best bids of each auction.
		`SELECT id, bidder, price, rn FROM (SELECT a.id, b.bidder, b.price,
			row_number() OVER (PARTITION BY a.id ORDER BY b.price DESC, b.date_time, b.bidder, b.extra) AS rn
			FROM %[1]s AS a, %[2]s AS b WHERE a.id = b.auction AND b.date_time BETWEEN a.date_time AND a.expires) AS t WHERE rn <= 3`,
		// ORDER BY … LIMIT … OFFSET over everything.
		`SELECT auction, bidder, price FROM %[2]s AS b ORDER BY price DESC, date_time, bidder, extra LIMIT 5 OFFSET 3`,
		// A UNION ALL of filters, the first two rows of each bidder.
		`SELECT * FROM (SELECT bidder, price, auction, row_number() OVER (PARTITION BY bidder ORDER BY price, date_time, auction, extra) AS rn
			FROM (SELECT bidder, price, date_time, auction, extra FROM %[2]s AS b WHERE price > 5000000
			      UNION ALL SELECT bidder, price, date_time, auction, extra FROM %[2]s AS b WHERE price < 1000) AS u) AS t WHERE rn < 3`,
		// DISTINCT ON: the first person of each state.
		`SELECT DISTINCT ON (state) state, id, name FROM %[3]s AS p ORDER BY state, id DESC`,
	}
	exec(t, conn, fmt.Sprintf("CREATE SOURCE n FROM LOAD GENERATOR NEXMARK (MAX EVENTS %d, EVENTS PER SECOND 15000, SEED 3) FOR ALL TABLES", events))
	hidden := func(rel string) string {
		return fmt.Sprintf("(SELECT %[1]s.* FROM %[1]s LEFT JOIN (VALUES (1)) AS one(x) ON true)", rel)
	}
	for i, q := range queries {
		exec(t, conn, fmt.Sprintf("CREATE MATERIALIZED VIEW mono%d AS ", i)+fmt.Sprintf(q, "auction", "bid", "person"))
		exec(t, conn, fmt.Sprintf("CREATE MATERIALIZED VIEW full%d AS ", i)+fmt.Sprintf(q, hidden("auction"), hidden("bid"), hidden("person")))
		for view, want := range map[string]bool{fmt.Sprintf("mono%d", i): true, fmt.Sprintf("full%d", i): false} {
			plan := explainDataflow(t, conn, "MATERIALIZED VIEW "+view)
			if strings.Contains(plan, "MonotonicTopK") != want || !strings.Contains(plan, "TopK") {
				t.Fatalf("%s: want MonotonicTopK %v, got\n%s", view, want, plan)
			}
		}
	}
	// differ counts, in one read, the rows in which two relations differ.
	differ := func(a, b string) int64 {
		var n int64
		q := fmt.Sprintf("SELECT count(*) FROM ((%[1]s EXCEPT ALL %[2]s) UNION ALL (%[2]s EXCEPT ALL %[1]s)) AS d", a, b)
		if err := conn.QueryRow(ctx, q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	deadline := time.Now().Add(2 * time.Minute)
	for done := false; !done; {
		var off int64
		if err := conn.QueryRow(ctx, `SELECT coalesce((SELECT "offset" FROM n_progress), 0)`).Scan(&off); err != nil {
			t.Fatal(err)
		}
		done = off >= events
		for i := range queries {
			if n := differ(fmt.Sprintf("(TABLE mono%d)", i), fmt.Sprintf("(TABLE full%d)", i)); n != 0 {
				t.Fatalf("query %d after %d events: the views differ in %d rows", i, off, n)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d events ingested", off, events)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for i, q := range queries {
		var rows int64
		if err := conn.QueryRow(ctx, fmt.Sprintf("SELECT count(*) FROM mono%d", i)).Scan(&rows); err != nil || rows == 0 {
			t.Fatalf("query %d: %d rows, %v", i, rows, err)
		}
		if n := differ(fmt.Sprintf("(TABLE mono%d)", i), "("+fmt.Sprintf(q, "auction", "bid", "person")+")"); n != 0 {
			t.Fatalf("query %d: the view and the ad hoc query differ in %d rows", i, n)
		}
	}
}

// explainDataflow returns EXPLAIN DATAFLOW's text for what.
func explainDataflow(t *testing.T, conn *pgx.Conn, what string) string {
	t.Helper()
	rows, err := conn.Query(context.Background(), "EXPLAIN DATAFLOW FOR "+what)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// TestTopKExplain checks the plans and dataflows of top-k queries
// against testdata/topk_explain.txt: where a row_number() bound puts a
// TopK below its window, and which inputs make it a MonotonicTopK.
// -rewrite regenerates the file.
func TestTopKExplain(t *testing.T) {
	checkExplainGolden(t, "topk_explain.txt", "# EXPLAIN of top-k queries (go test ./sql -run TestTopKExplain -rewrite).", []string{
		"CREATE SOURCE n FROM LOAD GENERATOR NEXMARK (MAX EVENTS 1) FOR ALL TABLES",
		"CREATE TABLE scores (g int, x int, name text)",
	})
}
