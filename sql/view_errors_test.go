package sql_test

import (
	"context"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestViewErrorsFindable puts a row that a view cannot cast into a
// table: reads of the view fail with the error and the view's name,
// SHOW MATERIALIZED VIEWS shows the view in error, streamdb_view_errors
// lists the error with its count and the row (for the view over the
// view too, and for a view built over the row), and the view reads again
// once the rows are gone.
func TestViewErrorsFindable(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	ctx := context.Background()
	exec(t, conn, `CREATE TABLE orders (id int, bar text, drinks jsonb)`)
	exec(t, conn, `CREATE MATERIALIZED VIEW per_bar AS SELECT bar, sum((d->>'qty')::int) AS qty
		FROM orders CROSS JOIN LATERAL jsonb_array_elements(drinks) d GROUP BY bar`)
	exec(t, conn, `CREATE MATERIALIZED VIEW busy_bars AS SELECT bar FROM per_bar WHERE qty > 2`)
	exec(t, conn, `INSERT INTO orders SELECT i, 'bar' || (i % 3), jsonb_build_array(jsonb_build_object('name', 'ale', 'qty', i)) FROM generate_series(1, 500) i`)
	exec(t, conn, `INSERT INTO orders VALUES (1000, 'bar1', '[{"name": "ale", "qty": 1}, {"name": "stout", "qty": "two"}]')`)

	_, err := conn.Exec(ctx, `SELECT * FROM per_bar`)
	if sqlState(err) != "22P02" || !strings.Contains(err.Error(), `materialized view "per_bar": invalid input syntax for type integer: "two"`) {
		t.Fatalf("read of the view in error: %v", err)
	}
	_, err = conn.Exec(ctx, `SELECT * FROM busy_bars`)
	if sqlState(err) != "22P02" || !strings.Contains(err.Error(), `materialized view "busy_bars"`) {
		t.Fatalf("read of the view over the view in error: %v", err)
	}
	if got, want := rows(t, conn, `SHOW MATERIALIZED VIEWS WHERE name = 'per_bar'`), `|error: invalid input syntax for type integer: "two" (1 row)|`; !strings.Contains(got, want) {
		t.Errorf("SHOW MATERIALIZED VIEWS: %s, want the status %s", got, want)
	}
	const listing = `SELECT view, code, error, count, input, example, source, since IS NOT NULL FROM streamdb_view_errors ORDER BY view`
	want := `busy_bars|22P02|invalid input syntax for type integer: "two"|1|orders|(1000,bar1,"[{""qty"": 1, ""name"": ""ale""}, {""qty"": ""two"", ""name"": ""stout""}]")|NULL|true
per_bar|22P02|invalid input syntax for type integer: "two"|1|orders|(1000,bar1,"[{""qty"": 1, ""name"": ""ale""}, {""qty"": ""two"", ""name"": ""stout""}]")|NULL|true`
	if got := rows(t, conn, listing); got != want {
		t.Errorf("streamdb_view_errors:\n got %s\nwant %s", got, want)
	}

	// A second row in the same error counts; a view built over both
	// finds its example among all its input's rows.
	exec(t, conn, `INSERT INTO orders VALUES (1001, 'bar2', '[{"name": "ale", "qty": "three"}]'), (1002, 'bar2', '[{"name": "ale", "qty": "two"}]')`)
	exec(t, conn, `CREATE MATERIALIZED VIEW stouts AS SELECT count(*) FROM orders, jsonb_array_elements(drinks) d WHERE (d->>'qty')::int > 0`)
	want = `per_bar|22P02|invalid input syntax for type integer: "three"|1|orders|(1001,bar2,"[{""qty"": ""three"", ""name"": ""ale""}]")
per_bar|22P02|invalid input syntax for type integer: "two"|2|orders|(1000,bar1,"[{""qty"": 1, ""name"": ""ale""}, {""qty"": ""two"", ""name"": ""stout""}]")
stouts|22P02|invalid input syntax for type integer: "three"|1|orders|(1001,bar2,"[{""qty"": ""three"", ""name"": ""ale""}]")`
	got := rows(t, conn, `SELECT view, code, error, count, input, example FROM streamdb_view_errors WHERE view <> 'busy_bars' AND error NOT LIKE '%"two"' OR view = 'per_bar' ORDER BY view, error`)
	if got != want {
		t.Errorf("streamdb_view_errors after more rows:\n got %s\nwant %s", got, want)
	}
	if got := rows(t, conn, `SELECT count(*), min(example) IS NOT NULL FROM streamdb_view_errors WHERE view = 'stouts' AND error LIKE '%"two"'`); got != "1|true" {
		t.Errorf("stouts' error two: %s", got)
	}

	// Deleting the example keeps the error with its count and no
	// example; deleting every row in error clears it.
	exec(t, conn, `DELETE FROM orders WHERE id = 1000`)
	if got := rows(t, conn, `SELECT count, example IS NULL FROM streamdb_view_errors WHERE view = 'per_bar' AND error LIKE '%"two"'`); got != "1|true" {
		t.Errorf("after the example's delete: %s", got)
	}
	exec(t, conn, `DELETE FROM orders WHERE id > 1000`)
	if got := rows(t, conn, `SELECT count(*) FROM streamdb_view_errors`); got != "0" {
		t.Errorf("errors left after the rows went: %s", got)
	}
	if got := rows(t, conn, `SELECT count(*), sum(qty)::bigint FROM per_bar`); got != "3|125250" {
		t.Errorf("per_bar after the rows went: %s", got)
	}
	for _, name := range []string{"per_bar", "busy_bars", "stouts"} {
		if got := rows(t, conn, `SHOW MATERIALIZED VIEWS WHERE name = '`+name+`'`); !strings.Contains(got, "|running|") {
			t.Errorf("%s after the rows went: %s", name, got)
		}
	}
}

// TestViewErrorWithoutInputRow creates a view that fails with no input
// row to blame (a global aggregate over an empty table): the server keeps
// running, and streamdb_view_errors lists the error without an example.
func TestViewErrorWithoutInputRow(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, `CREATE TABLE t (a int)`)
	exec(t, conn, `CREATE MATERIALIZED VIEW empty AS SELECT count(*) / 0 AS x FROM t`)
	const listing = `SELECT view, code, count, example IS NULL FROM streamdb_view_errors ORDER BY view`
	if got, want := rows(t, conn, listing), "empty|22012|1|true"; got != want {
		t.Errorf("streamdb_view_errors:\n%s\nwant\n%s", got, want)
	}
	if got := rows(t, conn, `SELECT count(*) FROM t`); got != "0" {
		t.Errorf("the server after the views: %s", got)
	}
}
