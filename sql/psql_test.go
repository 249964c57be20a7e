package sql_test

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestPsqlSession runs a scripted psql session against the server and
// compares psql's output with a golden file (go test -run TestPsqlSession
// -args -update regenerates it; review the diff).
func TestPsqlSession(t *testing.T) {
	psql, err := osexec.LookPath("psql")
	if err != nil {
		t.Skip("psql not installed (Debian package postgresql-client-15)")
	}
	srv := testserver.Start(t, testserver.Options{})
	host, port, _ := strings.Cut(srv.Addr, ":")
	cmd := osexec.Command(psql, "-X", "-h", host, "-p", port, "-U", "streamdb", "-d", "streamdb", "-f", filepath.Join("testdata", "psql_session.sql"))
	cmd.Env = append(os.Environ(), "PGOPTIONS=", "PGTZ=UTC")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("psql: %v\n%s", err, out)
	}
	golden := filepath.Join("testdata", "psql_session.out")
	if *update {
		if err := os.WriteFile(golden, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(want) {
		t.Errorf("psql output differs from %s:\n--- got\n%s\n--- want\n%s", golden, out, want)
	}
}
