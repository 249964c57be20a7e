package sql_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestNoServerAccessFromSQL checks that SQL reaches none of the server's
// files or programs: COPY to and from a file or a program and each of
// PostgreSQL's file functions give a role that is not a superuser
// PostgreSQL's 42501, and a superuser 0A000 (streamdb does not do it for
// anyone); the file is never written.
func TestNoServerAccessFromSQL(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	admin := connect(t, srv.URL)
	exec(t, admin, "CREATE TABLE t (a int)")
	exec(t, admin, "CREATE ROLE alice LOGIN")
	exec(t, admin, "GRANT SELECT, INSERT ON t TO alice")
	alice := connect(t, strings.Replace(srv.URL, "streamdb@", "alice@", 1))
	target := t.TempDir() + "/out"
	statements := []string{
		"COPY t TO '" + target + "'",
		"COPY t FROM '/etc/hostname'",
		"COPY (SELECT 1) TO '" + target + "'",
		"COPY t TO PROGRAM 'touch " + target + "'",
		"COPY t FROM PROGRAM 'echo 1'",
		"SELECT pg_read_file('/etc/hostname')",
		"SELECT pg_read_file('/etc/hostname', 0, 10)",
		"SELECT pg_read_binary_file('/etc/hostname')",
		"SELECT pg_stat_file('/etc/hostname')",
		"SELECT * FROM pg_ls_dir('.')",
		"SELECT pg_ls_dir('/')",
		"SELECT * FROM pg_ls_logdir()",
		"SELECT * FROM pg_ls_waldir()",
		"SELECT * FROM pg_ls_tmpdir()",
		"SELECT pg_current_logfile()",
		"SELECT lo_import('/etc/hostname')",
		"SELECT lo_export(1, '" + target + "')",
		"SELECT pg_file_write('" + target + "', 'x', false)",
		"SELECT pg_reload_conf()",
		"SELECT pg_rotate_logfile()",
		"SELECT 1 FROM t WHERE a = length(pg_read_file('/etc/hostname'))",
	}
	ctx := context.Background()
	for _, q := range statements {
		for _, c := range []struct {
			role, code string
		}{{"streamdb", "0A000"}, {"alice", "42501"}} {
			conn := admin
			if c.role == "alice" {
				conn = alice
			}
			if _, err := conn.Exec(ctx, q); sqlState(err) != c.code {
				t.Errorf("%s as %s: %v, want %s", q, c.role, err, c.code)
			}
		}
	}
	if _, err := alice.Exec(ctx, "SELECT * FROM t"); err != nil {
		t.Errorf("the session goes on: %v", err)
	}
	if got := rows(t, admin, "SELECT count(*) FROM t"); got != "0" {
		t.Errorf("COPY FROM wrote %s rows", got)
	}
	if _, err := os.Stat(target); err == nil {
		t.Errorf("%s was written", target)
	}
}
