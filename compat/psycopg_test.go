//go:build compat

package compat

import (
	"os/exec"
	"strconv"
	"testing"
)

// TestPsycopg runs clients/psycopg/compat.py: psycopg 3 connecting with
// SCRAM (and channel binding over TLS), text and binary cursors,
// executemany, COPY both ways, transactions, SQLSTATEs and cancel.
func TestPsycopg(t *testing.T) {
	python := findPython(t)
	srv := startServer(t, true)
	runClient(t, python, "clients/psycopg/compat.py", srv.host, strconv.Itoa(srv.port), srv.password)
}

// findPython returns a Python 3 that can import psycopg, preferring the
// one on PATH and falling back to Debian's, where python3-psycopg
// installs it; it skips the test when there is none.
func findPython(t *testing.T) string {
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import psycopg").Run() == nil {
			return p
		}
	}
	t.Skip("psycopg 3 not installed (apt-get install python3-psycopg)")
	return ""
}
