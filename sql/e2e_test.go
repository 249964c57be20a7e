package sql_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/streamdb/streamdb/internal/testserver"
)

func connect(t testing.TB, url string) *pgx.Conn {
	t.Helper()
	return testserver.Connect(t, url)
}

func exec(t *testing.T, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// rows renders a query's result as "a|b" lines in result order.
func rows(t *testing.T, conn *pgx.Conn, sql string, args ...any) string {
	t.Helper()
	rs, err := conn.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rs.Close()
	var lines []string
	for rs.Next() {
		vals, err := rs.Values()
		if err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			if v == nil {
				parts[i] = "NULL"
			} else {
				parts[i] = fmt.Sprint(v)
			}
		}
		lines = append(lines, strings.Join(parts, "|"))
	}
	if err := rs.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return strings.Join(lines, "\n")
}

// queryCase is a query and its result ("a|b" lines), or the SQLSTATE it
// must fail with.
type queryCase struct {
	sql, want, code string
}

// checkQueries runs each case's query and checks its result or error.
func checkQueries(t *testing.T, conn *pgx.Conn, cases []queryCase) {
	t.Helper()
	for _, tc := range cases {
		if tc.code != "" {
			_, err := conn.Exec(context.Background(), tc.sql)
			if got := sqlState(err); got != tc.code {
				t.Errorf("%s: SQLSTATE %q (%v), want %s", tc.sql, got, err, tc.code)
			}
			continue
		}
		if got := rows(t, conn, tc.sql); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.sql, got, tc.want)
		}
	}
}

func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

func TestTablesEndToEnd(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE t (id int PRIMARY KEY, name text NOT NULL, score numeric(5,2) DEFAULT 0)")
	exec(t, conn, "INSERT INTO t VALUES (1, 'a', 1.5), (2, 'b', 2.25)")
	exec(t, conn, "INSERT INTO t (id, name) VALUES ($1, $2)", 3, "c")
	if got, want := rows(t, conn, "SELECT id, name, score::text FROM t ORDER BY id"), "1|a|1.50\n2|b|2.25\n3|c|0.00"; got != want {
		t.Errorf("select:\n%s\nwant\n%s", got, want)
	}
	exec(t, conn, "UPDATE t SET score = score + 1 WHERE id >= 2")
	exec(t, conn, "DELETE FROM t WHERE name = 'a'")
	if got, want := rows(t, conn, "SELECT id, score::text FROM t ORDER BY id DESC"), "3|1.00\n2|3.25"; got != want {
		t.Errorf("after update/delete:\n%s\nwant\n%s", got, want)
	}
	if got, want := rows(t, conn, "SELECT name FROM t WHERE id = $1", 3), "c"; got != want {
		t.Errorf("point select = %q, want %q", got, want)
	}

	for _, tc := range []struct {
		sql  string
		code string
	}{
		{"INSERT INTO t VALUES (2, 'dup')", "23505"},
		{"INSERT INTO t (id) VALUES (9)", "23502"},
		{"SELECT nosuch FROM t", "42703"},
		{"SELECT * FROM nosuch", "42P01"},
		{"SELECT 1/0", "22012"},
		{"SELEC 1", "42601"},
		{"SELECT 2147483647::int + 1", "22003"},
		{"SELECT 'x'::int", "22P02"},
	} {
		_, err := conn.Exec(context.Background(), tc.sql)
		if got := sqlState(err); got != tc.code {
			t.Errorf("%s: SQLSTATE %q (%v), want %s", tc.sql, got, err, tc.code)
		}
	}
}

func TestTransactions(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	other := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE acct (id int PRIMARY KEY, bal int)")
	exec(t, conn, "INSERT INTO acct VALUES (1, 100), (2, 0)")

	exec(t, conn, "BEGIN")
	exec(t, conn, "UPDATE acct SET bal = bal - 30 WHERE id = 1")
	exec(t, conn, "UPDATE acct SET bal = bal + 30 WHERE id = 2")
	if got := rows(t, conn, "SELECT sum(bal) FROM acct"); got != "100" {
		t.Errorf("sum inside transaction = %s", got)
	}
	if got := rows(t, other, "SELECT bal FROM acct ORDER BY id"); got != "100\n0" {
		t.Errorf("other session sees uncommitted writes:\n%s", got)
	}
	exec(t, conn, "COMMIT")
	if got := rows(t, other, "SELECT bal FROM acct ORDER BY id"); got != "70\n30" {
		t.Errorf("after commit:\n%s", got)
	}

	exec(t, conn, "BEGIN")
	exec(t, conn, "DELETE FROM acct")
	exec(t, conn, "ROLLBACK")
	if got := rows(t, other, "SELECT count(*) FROM acct"); got != "2" {
		t.Errorf("rollback lost rows: %s", got)
	}

	exec(t, conn, "BEGIN")
	if _, err := conn.Exec(context.Background(), "INSERT INTO acct VALUES (1, 5)"); sqlState(err) != "23505" {
		t.Fatalf("duplicate in transaction: %v", err)
	}
	if _, err := conn.Exec(context.Background(), "SELECT 1"); sqlState(err) != "25P02" {
		t.Errorf("statement in failed transaction: %v", err)
	}
	exec(t, conn, "ROLLBACK")
	if got := rows(t, conn, "SELECT 1"); got != "1" {
		t.Errorf("after rollback: %s", got)
	}
}
