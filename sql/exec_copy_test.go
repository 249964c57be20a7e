package sql_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/streamdb/streamdb/internal/testserver"
)

func TestCopy(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	ctx := context.Background()
	exec(t, conn, "CREATE TABLE t (a int PRIMARY KEY, b text, c numeric DEFAULT 7, d boolean)")
	pc := conn.PgConn()

	copyIn := func(sql, data string) (string, error) {
		tag, err := pc.CopyFrom(ctx, strings.NewReader(data), sql)
		return tag.String(), err
	}
	copyOut := func(sql string) string {
		var buf bytes.Buffer
		if _, err := pc.CopyTo(ctx, &buf, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return buf.String()
	}

	if tag, err := copyIn("COPY t FROM STDIN", "1\tone\t1.5\tt\n2\t\\N\t\\N\tf\n3\ta\\tb\\\\c\t3\t\\N\n"); err != nil || tag != "COPY 3" {
		t.Fatalf("text: %q %v", tag, err)
	}
	if tag, err := copyIn("COPY t (a, b) FROM STDIN WITH (FORMAT csv, HEADER true)", "a,b\n4,\"x,y\"\n5,\"two\nlines\"\r\n6,\n"); err != nil || tag != "COPY 3" {
		t.Fatalf("csv: %q %v", tag, err)
	}
	if tag, err := copyIn("COPY t FROM STDIN WITH (DELIMITER '|', NULL 'nil')", "7|seven|nil|nil\n\\.\nignored\n"); err != nil || tag != "COPY 1" {
		t.Fatalf("options: %q %v", tag, err)
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"a", "b", "c", "d"},
		pgx.CopyFromRows([][]any{{8, "binary", 8.5, true}, {9, nil, nil, nil}}))
	if err != nil || n != 2 {
		t.Fatalf("binary CopyFrom: %d %v", n, err)
	}
	want := "1\tone\t1.5\tt\n2\t\\N\t\\N\tf\n3\ta\\tb\\\\c\t3\t\\N\n4\tx,y\t7\t\\N\n5\ttwo\\nlines\t7\t\\N\n6\t\\N\t7\t\\N\n" +
		"7\tseven\t\\N\t\\N\n8\tbinary\t8.5\tt\n9\t\\N\t\\N\t\\N\n"
	if got := copyOut("COPY (SELECT * FROM t ORDER BY a) TO STDOUT"); got != want {
		t.Errorf("COPY TO text:\n%q\nwant\n%q", got, want)
	}
	if got := copyOut("COPY (SELECT a, b FROM t WHERE a IN (4, 5, 6) ORDER BY a) TO STDOUT WITH (FORMAT csv, HEADER)"); got != "a,b\n4,\"x,y\"\n5,\"two\nlines\"\n6,\n" {
		t.Errorf("COPY TO csv: %q", got)
	}
	if got := copyOut("COPY t (a) TO STDOUT"); len(strings.Split(strings.TrimSpace(got), "\n")) != 9 {
		t.Errorf("COPY t TO: %q", got)
	}

	for _, tt := range []struct{ sql, data, code, detail string }{
		{"COPY t FROM STDIN", "10\tx\t1\tt\n11\tx\n", "22P04", "COPY t, line 2"},
		{"COPY t FROM STDIN", "10\tx\t1\tt\textra\n", "22P04", "COPY t, line 1"},
		{"COPY t FROM STDIN", "10\tx\t1\tt\n11\tx\tzz\tt\n", "22P02", `COPY t, line 2, column c: "zz"`},
		{"COPY t FROM STDIN WITH (FORMAT csv)", "10,\"open\n", "22P04", "COPY t, line 1"},
		{"COPY t FROM STDIN", "1\tdup\t1\tt\n", "23505", ""},
		// Duplicates within the data, in key order and out of it.
		{"COPY t (a) FROM STDIN", "30\n31\n31\n32\n", "23505", ""},
		{"COPY t (a) FROM STDIN", "32\n30\n31\n30\n", "23505", ""},
		{"COPY big FROM STDIN", "", "42P01", ""},
		{"COPY t FROM '/etc/passwd'", "", "0A000", ""},
	} {
		_, err := copyIn(tt.sql, tt.data)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != tt.code || !strings.Contains(pe.Detail, tt.detail) {
			t.Errorf("%s %q: %v (detail %q), want %s %q", tt.sql, tt.data, err, detailOf(err), tt.code, tt.detail)
		}
	}
	if got := rows(t, conn, "SELECT count(*) FROM t"); got != "9" {
		t.Errorf("failed COPYs wrote rows: count %s", got)
	}

	// Inside a transaction block the rows commit with the block, and a
	// failed COPY fails the block.
	exec(t, conn, "BEGIN")
	if _, err := copyIn("COPY t (a) FROM STDIN", "20\n21\n"); err != nil {
		t.Fatal(err)
	}
	if got := rows(t, conn, "SELECT count(*) FROM t"); got != "11" {
		t.Errorf("in transaction: %s", got)
	}
	exec(t, conn, "ROLLBACK")
	exec(t, conn, "BEGIN")
	if _, err := copyIn("COPY t (a) FROM STDIN", "x\n"); err == nil {
		t.Fatal("bad COPY succeeded")
	}
	if _, err := conn.Exec(ctx, "SELECT 1"); err == nil || !strings.Contains(err.Error(), "25P02") {
		t.Errorf("after failed COPY in a block: %v", err)
	}
	exec(t, conn, "ROLLBACK")
	if got := rows(t, conn, "SELECT count(*) FROM t"); got != "9" {
		t.Errorf("after rollback: %s", got)
	}
}

func detailOf(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Detail
	}
	return ""
}
