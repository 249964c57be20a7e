//go:build compat

package compat

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// TestNodePostgres runs clients/node/compat.js with node-postgres (pg,
// installed by npm ci from the committed lock file): parameterised
// writes, named statements, every type in text and some in binary,
// SQLSTATEs, cancel and TLS.
func TestNodePostgres(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed (apt-get install nodejs npm)")
	}
	if _, err := os.Stat("clients/node/node_modules/pg"); err != nil {
		t.Skip("node-postgres not installed (npm ci --prefix compat/clients/node)")
	}
	srv := startServer(t, true)
	runClient(t, node, "clients/node/compat.js", srv.host, strconv.Itoa(srv.port), srv.password)
}
