package sql_test

import (
	"bufio"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb/internal/testserver"
)

var rewrite = flag.Bool("rewrite", false, "rewrite golden files from the current output")

// keySpanSchema creates tables keyed by every kind of key the span reader
// handles: integers of each width, text, numeric, timestamp, float, and a
// composite key.
var keySpanSchema = []string{
	"CREATE TABLE ti (id int PRIMARY KEY, v text)",
	"INSERT INTO ti SELECT g, CASE WHEN g % 3 = 0 THEN NULL ELSE 'v' || g END FROM generate_series(-5, 20) g",
	"CREATE TABLE ts (id smallint PRIMARY KEY)",
	"INSERT INTO ts VALUES (-32768), (-1), (0), (1), (32767)",
	"CREATE TABLE tb (id bigint PRIMARY KEY)",
	"INSERT INTO tb VALUES (-9223372036854775808), (-3000000000), (-1), (0), (1), (3000000000), (9223372036854775807)",
	"CREATE TABLE tx (s text PRIMARY KEY, n int)",
	"INSERT INTO tx VALUES ('', 0), ('a', 1), ('ab', 2), ('abc', 3), ('b', 4), ('B', 5), ('é', 6), ('a b', 7)",
	"CREATE TABLE tn (n numeric PRIMARY KEY)",
	"INSERT INTO tn VALUES (-1.5), (-0.001), (0), (1.00), (2.25), (10), (1e20), ('NaN')",
	"CREATE TABLE tm (n numeric(10,2) PRIMARY KEY)",
	"INSERT INTO tm VALUES (1.00), (1.01), (1.02)",
	"CREATE TABLE tt (t timestamp PRIMARY KEY, n int)",
	"INSERT INTO tt VALUES ('2024-01-01 00:00', 1), ('2024-01-01 12:00', 2), ('2024-02-29 00:00', 3), ('1999-12-31 23:59:59.999999', 4), ('infinity', 5)",
	"CREATE TABLE tf (f float8 PRIMARY KEY)",
	"INSERT INTO tf VALUES ('-Infinity'), (-1.5), (0), (0.5), (2), ('Infinity'), ('NaN')",
	"CREATE TABLE tc (a int, b text, v int, PRIMARY KEY (a, b))",
	"INSERT INTO tc SELECT a, b, a * 10 + length(b) FROM generate_series(1, 4) a, (VALUES (''), ('a'), ('b'), ('bb'), ('c')) x(b)",
	"CREATE TABLE tk (id int PRIMARY KEY, k int, v int)",
	"INSERT INTO tk SELECT g, g % 5, g FROM generate_series(1, 50) g",
	"CREATE INDEX tk_k ON tk (k)",
}

// TestKeySpans checks that predicates on leading key columns read only
// the matching keys and return what a full scan returns: each predicate is
// run as written (which must use the span EXPLAIN shows) and wrapped in
// coalesce(…, false), which no span can serve, over the same data.
func TestKeySpans(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	for _, s := range keySpanSchema {
		exec(t, conn, s)
	}
	for _, tc := range []struct {
		table, pred string
		span        string // what EXPLAIN shows on the Get: "range=", "lookup=", or "" for a scan
		n           int    // rows expected
	}{
		{"ti", "id BETWEEN 3 AND 7", "range=", 5},
		{"ti", "id >= 3 AND id < 7", "range=", 4},
		{"ti", "id > 3 AND id <= 7", "range=", 4},
		{"ti", "id > 3 AND id < 4", "range=", 0},
		{"ti", "id BETWEEN 7 AND 3", "range=", 0},
		{"ti", "id < -2", "range=", 3},
		{"ti", "id > 18", "range=", 2},
		{"ti", "-2 >= id", "range=", 4},
		{"ti", "id > 100", "range=", 0},
		{"ti", "id > 3 AND id > 5 AND id < 9", "range=", 3},
		{"ti", "id > 3 AND v IS NULL", "range=", 5},
		// A comparison with NULL folds to NULL: the plan reads nothing.
		{"ti", "id >= NULL", "", 0},
		{"ti", "id < NULL::int", "", 0},
		{"ti", "id = NULL", "", 0},
		{"ti", "id IN (3, 1, 3, NULL, 99)", "lookup=", 2},
		{"ti", "id NOT IN (3, 1)", "", 24},
		{"ti", "id BETWEEN SYMMETRIC 7 AND 3", "", 5},
		{"ti", "id NOT BETWEEN 3 AND 7", "", 21},
		{"ti", "id < 3000000000", "range=", 26},
		{"ti", "id > -3000000000 AND id < -4", "range=", 1},
		{"ti", "id > 3000000000", "range=", 0},
		{"ti", "id = 3000000000", "lookup=", 0},
		{"ti", "id = 5::bigint", "lookup=", 1},
		{"ti", "id BETWEEN 2::smallint AND 4::bigint", "range=", 3},
		{"ti", "id < 2.5", "", 8},
		{"ti", "id + 0 BETWEEN 3 AND 7", "", 5},
		{"ti", "id > 3 OR id < 0", "", 22},
		{"ts", "id > -40000", "range=", 5},
		{"ts", "id < 40000 AND id > 0", "range=", 2},
		{"ts", "id >= -32768 AND id <= -1", "range=", 2},
		{"ts", "id = 40000", "lookup=", 0},
		{"tb", "id > 0", "range=", 3},
		{"tb", "id >= -3000000000 AND id < 1", "range=", 3},
		{"tb", "id < -9223372036854775807", "range=", 1},
		{"tb", "id BETWEEN -1 AND 1", "range=", 3},
		{"tb", "id = 1", "lookup=", 1},
		{"tx", "s >= 'a' AND s < 'b'", "range=", 4},
		{"tx", "s > 'a'", "range=", 5},
		{"tx", "s < 'a'", "range=", 2},
		{"tx", "s <= ''", "range=", 1},
		{"tx", "s > 'ab' AND s <= 'b'", "range=", 2},
		{"tx", "s IN ('a', 'b', 'zz')", "lookup=", 2},
		{"tx", "s > 'é'", "range=", 0},
		{"tn", "n > 0", "range=", 5},
		{"tn", "n BETWEEN -1.5 AND 1", "range=", 4},
		{"tn", "n > -1.5 AND n < 1.0", "range=", 2},
		{"tn", "n >= 1e20", "range=", 2},
		{"tn", "n = 1.000", "lookup=", 1},
		{"tn", "n < 'NaN'", "range=", 7},
		{"tn", "n > 2", "range=", 4},
		{"tm", "n = 1.005", "lookup=", 0},
		{"tm", "n = 1.010", "lookup=", 1},
		{"tm", "n > 1.005", "range=", 2},
		{"tm", "n <= 1.015", "range=", 2},
		{"tt", "t >= '2024-01-01' AND t < '2024-01-02'", "range=", 2},
		{"tt", "t > '2024-01-01 00:00'", "range=", 3},
		{"tt", "t < '2024-01-01'", "range=", 1},
		{"tt", "t BETWEEN '2024-01-01' AND 'infinity'", "range=", 4},
		{"tt", "t = '2024-02-29'", "lookup=", 1},
		{"tf", "f > 0", "range=", 4},
		{"tf", "f >= -1.5 AND f < 2", "range=", 3},
		{"tf", "f < 'Infinity'", "range=", 5},
		{"tf", "f > 'Infinity'", "range=", 1},
		{"tf", "f = -0.0", "lookup=", 1},
		{"tc", "a = 2", "lookup=", 5},
		{"tc", "a = 2 AND b = 'bb'", "lookup=", 1},
		{"tc", "a = 2 AND b > 'a'", "range=", 3},
		{"tc", "a = 2 AND b >= 'b' AND b < 'c'", "range=", 2},
		{"tc", "a = 2 AND b < 'a'", "range=", 1},
		{"tc", "a IN (1, 3) AND b <= 'a'", "range=", 4},
		{"tc", "a IN (1, 3) AND b IN ('a', 'c', 'a')", "lookup=", 4},
		{"tc", "a BETWEEN 2 AND 3", "range=", 10},
		{"tc", "a BETWEEN 2 AND 3 AND b = 'a'", "range=", 2},
		{"tc", "b = 'a'", "", 4},
		{"tc", "a = 2 AND v >= 21", "lookup=", 4},
		{"tk", "k = 3", "lookup=", 10},
		{"tk", "k IN (3, 4) AND id < 20", "lookup=", 8},
		{"tk", "id < 20 AND k > 3", "range=", 4},
		{"tk", "k IN (3, 4)", "lookup=", 20},
		{"tk", "k = 3 AND id = 8", "lookup=", 1},
	} {
		query := "SELECT * FROM " + tc.table + " WHERE " + tc.pred + " ORDER BY 1, 2"
		if tc.table == "ts" || tc.table == "tb" || tc.table == "tn" || tc.table == "tm" || tc.table == "tf" {
			query = "SELECT * FROM " + tc.table + " WHERE " + tc.pred + " ORDER BY 1"
		}
		scan := strings.Replace(query, tc.pred, "coalesce(("+tc.pred+"), false)", 1)
		plan := rows(t, conn, "EXPLAIN "+query)
		get := ""
		for _, line := range strings.Split(plan, "\n") {
			if strings.Contains(line, "Get "+tc.table) {
				get = line
			}
		}
		if tc.span == "" && (strings.Contains(get, "range=") || strings.Contains(get, "lookup=")) ||
			tc.span != "" && !strings.Contains(get, tc.span) {
			t.Errorf("%s: plan\n%s\nwant %q on the Get", tc.pred, plan, tc.span)
		}
		if p := rows(t, conn, "EXPLAIN "+scan); strings.Contains(p, "range=") || strings.Contains(p, "lookup=") {
			t.Fatalf("%s: the full-scan form uses a span:\n%s", tc.pred, p)
		}
		got, want := rows(t, conn, query), rows(t, conn, scan)
		if got != want {
			t.Errorf("%s:\n%s\nwant (full scan)\n%s", tc.pred, got, want)
		}
		if n := len(strings.Split(got, "\n")); got == "" && tc.n != 0 || got != "" && n != tc.n {
			t.Errorf("%s: %d rows, want %d:\n%s", tc.pred, n, tc.n, got)
		}
	}
}

// TestKeySpanParams checks spans whose bounds are parameters, prepared
// once and executed with several values.
func TestKeySpanParams(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	for _, s := range keySpanSchema {
		exec(t, conn, s)
	}
	for _, tc := range []struct {
		lo, hi any
		want   string
	}{
		{3, 5, "3\n4\n5"},
		{19, 100, "19\n20"},
		{5, 3, ""},
		{nil, 3, ""},
		{-7, -4, "-5\n-4"},
	} {
		if got := rows(t, conn, "SELECT id FROM ti WHERE id BETWEEN $1 AND $2 ORDER BY id", tc.lo, tc.hi); got != tc.want {
			t.Errorf("BETWEEN %v AND %v: %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
	if got, want := rows(t, conn, "SELECT v FROM tc WHERE a = $1 AND b > $2 ORDER BY v", 3, "b"), "31\n32"; got != want {
		t.Errorf("composite key with parameters: %q, want %q", got, want)
	}
}

// TestKeySpanWrites checks UPDATE and DELETE by key range, alone and
// inside a transaction whose earlier writes the range must see.
func TestKeySpanWrites(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE w (id int PRIMARY KEY, v int)")
	exec(t, conn, "INSERT INTO w SELECT g, 0 FROM generate_series(1, 10) g")
	exec(t, conn, "CREATE MATERIALIZED VIEW ws AS SELECT count(*) AS n, sum(v) AS s FROM w")
	exec(t, conn, "UPDATE w SET v = v + 1 WHERE id BETWEEN 3 AND 5")
	exec(t, conn, "DELETE FROM w WHERE id > 8")
	if got, want := rows(t, conn, "SELECT id, v FROM w ORDER BY id"), "1|0\n2|0\n3|1\n4|1\n5|1\n6|0\n7|0\n8|0"; got != want {
		t.Errorf("after update and delete:\n%s\nwant\n%s", got, want)
	}
	exec(t, conn, "CREATE TABLE wk (id int PRIMARY KEY, k bigint)")
	exec(t, conn, "INSERT INTO wk VALUES (1, 1), (2, 2), (3, 1)")
	exec(t, conn, "CREATE INDEX wk_k ON wk (k)")
	exec(t, conn, "BEGIN")
	exec(t, conn, "DELETE FROM w WHERE id BETWEEN 2 AND 4")
	exec(t, conn, "INSERT INTO w VALUES (3, 30), (20, 200)")
	exec(t, conn, "UPDATE w SET v = v + 100 WHERE id < 6")
	if got, want := rows(t, conn, "SELECT id, v FROM w WHERE id <= 20 ORDER BY id"), "1|100\n3|130\n5|101\n6|0\n7|0\n8|0\n20|200"; got != want {
		t.Errorf("inside the transaction:\n%s\nwant\n%s", got, want)
	}
	if got, want := rows(t, conn, "SELECT id FROM w WHERE id IN (2, 3, 20) ORDER BY id"), "3\n20"; got != want {
		t.Errorf("lookups inside the transaction: %q, want %q", got, want)
	}
	exec(t, conn, "UPDATE w SET id = id + 10 WHERE id > 5 AND id < 8")
	exec(t, conn, "INSERT INTO wk VALUES (4, 1), (5, 3)")
	if got, want := rows(t, conn, "SELECT id FROM wk WHERE k IN (1, 3) ORDER BY id"), "1\n3\n4\n5"; got != want {
		t.Errorf("index lookups inside the transaction: %q, want %q", got, want)
	}
	exec(t, conn, "COMMIT")
	if got, want := rows(t, conn, "SELECT id, v FROM w ORDER BY id"), "1|100\n3|130\n5|101\n8|0\n16|0\n17|0\n20|200"; got != want {
		t.Errorf("after commit:\n%s\nwant\n%s", got, want)
	}
	if got, want := rows(t, conn, "SELECT n, s FROM ws"), "7|531"; got != want {
		t.Errorf("view: %s, want %s", got, want)
	}
	if got, want := rows(t, conn, "SELECT id FROM wk WHERE k IN (1, 3) ORDER BY id"), "1\n3\n4\n5"; got != want {
		t.Errorf("index lookups after commit: %q, want %q", got, want)
	}
	if got := rows(t, conn, "EXPLAIN SELECT id FROM wk WHERE k IN (1, 3)"); !strings.Contains(got, "index=wk_k") {
		t.Errorf("plan does not use the index:\n%s", got)
	}
}

// TestKeySpanExplain checks the EXPLAIN text of span reads against
// testdata/keyspan_explain.txt. -rewrite regenerates the file.
func TestKeySpanExplain(t *testing.T) {
	checkExplainGolden(t, "keyspan_explain.txt", "# EXPLAIN of reads through key spans (go test ./sql -run TestKeySpanExplain -rewrite).", keySpanSchema)
}

// checkExplainGolden checks the EXPLAIN text of the statements of
// testdata/name, over the schema, against the file: blocks of one
// statement, a "----" line and the plan, separated by blank lines; the
// file begins with the header. -rewrite regenerates the file.
func checkExplainGolden(t *testing.T, name, header string, schema []string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var stmts []string
	sc := bufio.NewScanner(f)
	inPlan := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "----":
			inPlan = true
		case line == "":
			inPlan = false
		case !inPlan && !strings.HasPrefix(line, "#"):
			stmts = append(stmts, line)
		}
	}
	f.Close()
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	for _, s := range schema {
		exec(t, conn, s)
	}
	var out strings.Builder
	out.WriteString(header + "\n")
	for _, s := range stmts {
		out.WriteString("\n" + s + "\n----\n" + explainText(t, conn, s) + "\n")
	}
	if *rewrite {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != string(want) {
		t.Errorf("EXPLAIN output differs from %s (rerun with -rewrite and review the diff):\n%s", path, out.String())
	}
}

func explainText(t *testing.T, conn *pgx.Conn, stmt string) string {
	t.Helper()
	rs, err := conn.Query(context.Background(), "EXPLAIN "+stmt)
	if err != nil {
		return "error: " + err.Error()
	}
	defer rs.Close()
	var lines []string
	for rs.Next() {
		var line string
		if err := rs.Scan(&line); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
	}
	if err := rs.Err(); err != nil {
		return "error: " + err.Error()
	}
	return strings.Join(lines, "\n")
}
