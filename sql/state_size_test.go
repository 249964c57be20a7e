package sql_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestViewStateSize is the check that a view keeps what its operators
// need and no more: for representative views it measures the bytes of
// state (SHOW MATERIALIZED VIEWS' state_bytes) that each input row adds
// once the view holds a first batch, and compares them with the bound
// the view's shape allows. A GROUP BY or DISTINCT over a fixed set of
// groups must not grow with its input at all, whatever runs below it (a
// table function of each row, a filter); a join keeps its two inputs,
// and so grows by what a row of them costs, but not by more.
//
// The bounds are the measured costs with room to spare (the views
// below kept 0 and 75 bytes a row when this test was written, and the
// views over a LATERAL table function 330–375 before it was a flat-map),
// so that state that starts to keep all input — a table function's
// arguments, a distinct domain, a second copy of a side — fails it.
func TestViewStateSize(t *testing.T) {
	const first, more = 2000, 8000
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, `CREATE TABLE orders (id int, bar text, drinks jsonb)`)
	exec(t, conn, `CREATE TABLE bars (name text, city text)`)
	exec(t, conn, `INSERT INTO bars SELECT 'bar' || i, 'city' || (i % 2) FROM generate_series(0, 3) i`)
	views := []struct {
		name, query string
		// perRow is the most bytes of state each order may add.
		perRow float64
	}{
		{"lateral_group", `SELECT bar, d->>'name' AS drink, sum((d->>'qty')::int) AS qty
			FROM orders CROSS JOIN LATERAL jsonb_array_elements(drinks) d GROUP BY 1, 2`, 0.5},
		{"lateral_filter_group", `SELECT d->>'name' AS drink, count(*) AS n
			FROM orders, LATERAL (SELECT e FROM jsonb_array_elements(drinks) e WHERE (e->>'qty')::int > 1) AS x(d) GROUP BY 1`, 0.5},
		{"lateral_project", `SELECT bar, count(*) AS n FROM orders, LATERAL (SELECT jsonb_array_length(drinks) AS len) l
			WHERE l.len > 0 GROUP BY bar`, 0.5},
		{"distinct_bars", `SELECT DISTINCT bar FROM orders`, 0.5},
		{"group_bars", `SELECT bar, count(*) AS n, sum(id) AS s FROM orders GROUP BY bar`, 0.5},
		{"join_bars", `SELECT o.id, b.city FROM orders o JOIN bars b ON b.name = o.bar`, 150},
	}
	for _, v := range views {
		exec(t, conn, fmt.Sprintf("CREATE MATERIALIZED VIEW %s AS %s", v.name, v.query))
	}
	insert := func(from, to int) {
		exec(t, conn, fmt.Sprintf(`INSERT INTO orders SELECT i, 'bar' || (i %% 4),
			jsonb_build_array(jsonb_build_object('name', 'drink' || (i %% 5), 'qty', i %% 3),
			                  jsonb_build_object('name', 'drink' || ((i + 1) %% 5), 'qty', 1 + i %% 7, 'note', repeat('x', i %% 50)))
			FROM generate_series(%d, %d) i`, from, to-1))
	}
	insert(0, first)
	before := allStateBytes(t, conn)
	insert(first, first+more)
	after := allStateBytes(t, conn)
	for _, v := range views {
		grew := float64(after[v.name]-before[v.name]) / more
		t.Logf("%s: %d bytes for %d orders, %d for %d: %.1f bytes a row", v.name, before[v.name], first, after[v.name], first+more, grew)
		if grew > v.perRow {
			t.Errorf("%s: state grew by %.1f bytes per input row, more than %.1f (%d → %d bytes); EXPLAIN:\n%s",
				v.name, grew, v.perRow, before[v.name], after[v.name], explainDataflow(t, conn, "MATERIALIZED VIEW "+v.name))
		}
	}
}

// allStateBytes reads each materialized view's state_bytes.
func allStateBytes(t *testing.T, conn *pgx.Conn) map[string]int64 {
	t.Helper()
	rs, err := conn.Query(context.Background(), "SHOW MATERIALIZED VIEWS")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for rs.Next() {
		vals, err := rs.Values()
		if err != nil {
			t.Fatal(err)
		}
		name, _ := vals[0].(string)
		n, _ := vals[1].(int64)
		out[strings.TrimSpace(name)] = n
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLateralExplain checks the plans of LATERAL items against
// testdata/lateral_explain.txt: a table function or projection of the
// row before it is a flat-map or map of that row, with no join and no
// domain; only what aggregates over the row's function, or keeps a row
// it yields nothing for, is decorrelated by a join. -rewrite regenerates
// the file.
func TestLateralExplain(t *testing.T) {
	checkExplainGolden(t, "lateral_explain.txt", "# EXPLAIN of LATERAL items (go test ./sql -run TestLateralExplain -rewrite).", []string{
		"CREATE TABLE orders (id int, bar text, drinks jsonb)",
	})
}
