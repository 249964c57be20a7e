package compat

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPsql runs psql 15's backslash commands and \copy against streamdb
// and compares the output with golden files in testdata/psql.
func TestPsql(t *testing.T) {
	if _, err := exec.LookPath("psql"); err != nil {
		t.Skip("psql not installed")
	}
	srv := startServer(t, false)
	conn := connect(t, srv.url("sslmode=disable"))
	mustExec(t, conn, schema...)
	mustExec(t, conn, `INSERT INTO orders VALUES (1, 'ada', 12.50, '2024-01-01 09:00:00+00'), (2, 'bob', 150, NULL)`)
	scripts, err := filepath.Glob("testdata/psql/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, script := range scripts {
		name := strings.TrimSuffix(filepath.Base(script), ".sql")
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "psql", "-X", "-h", srv.host, "-p", strconv.Itoa(srv.port), "-U", "streamdb",
				"-d", "streamdb", "-f", filepath.Base(script))
			cmd.Dir = "testdata/psql"
			cmd.Env = append(os.Environ(), "PGPASSWORD="+srv.password, "PGSSLMODE=disable", "PGTZ=UTC", "PAGER=", "PSQL_PAGER=", "LC_ALL=C.UTF-8")
			out, _ := cmd.CombinedOutput()
			golden := filepath.Join("testdata/psql", name+".out")
			if *update {
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != string(want) {
				t.Errorf("psql %s differs from %s:\n%s", script, golden, out)
			}
		})
	}
}
