package e2e

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/pgtest"
)

// TestReadmePostgres runs the README's "PostgreSQL in 2 minutes" as a
// user would, against a PostgreSQL 15 the test starts with wal_level =
// logical and bin/streamdb in place of the first block's setup, then
// every other command verbatim with psql, pointed at the test's servers
// (localhost:5432 and 6875 become their ports).
func TestReadmePostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binaries; skipped with -short")
	}
	if _, err := exec.LookPath("psql"); err != nil {
		t.Skip("psql is not installed (Debian package postgresql-client)")
	}
	blocks := readmeBlocks(t, "../README.md", "## PostgreSQL in 2 minutes")
	if len(blocks) == 0 || !strings.Contains(blocks[0].text, "wal_level = logical") || !strings.Contains(blocks[0].text, "make run") {
		t.Fatalf("the section should start with the wal_level / make run block, found %q", blocks)
	}
	if !pgtest.Available() {
		t.Skip("no PostgreSQL 15 server binaries")
	}
	cluster := pgtest.Start(t, pgSettings...)
	_, addr := startStreamdb(t, t.TempDir())
	_, port, _ := strings.Cut(addr, ":")
	localize := strings.NewReplacer(
		"-h localhost", fmt.Sprintf("-h 127.0.0.1 -p %d", cluster.Port),
		"HOST 'localhost', PORT 5432", fmt.Sprintf("HOST '127.0.0.1', PORT %d", cluster.Port),
		"-p 6875", "-p "+port).Replace
	runReadme(t, blocks[1:], localize)
}
