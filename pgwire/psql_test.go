package pgwire

import (
	"context"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestPsql drives the server with the psql binary, which speaks the simple
// protocol through libpq and asks for SSL first.
func TestPsql(t *testing.T) {
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Skip("psql not installed")
	}
	ts := startServer(t, Config{})
	host, port, _ := net.SplitHostPort(ts.addr)
	run := func(args ...string) (string, string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		base := []string{"-X", "-A", "-t", "-h", host, "-p", port, "-U", "postgres", "-d", "postgres", "-v", "ON_ERROR_STOP=1"}
		cmd := exec.CommandContext(ctx, psql, append(base, args...)...)
		cmd.Env = []string{"PGCONNECT_TIMEOUT=10", "PGAPPNAME=psql_test"}
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}

	out, errOut, err := run("-c", "SELECT generate_series(1, 3)", "-c", "SELECT 'a', NULL, true; SELECT 2::int8",
		"-c", "DO $$BEGIN RAISE NOTICE 'from psql'; END$$")
	if err != nil {
		t.Fatalf("psql: %v\n%s", err, errOut)
	}
	if want := "1\n2\n3\na||t\n2\nDO\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	if !strings.Contains(errOut, "NOTICE:  from psql") {
		t.Errorf("notice not shown: %q", errOut)
	}
	if got := ts.eng.lastStartup().Params["application_name"]; got != "psql_test" {
		t.Errorf("application_name %q", got)
	}

	_, errOut, err = run("-c", "SELECT 1/0")
	if err == nil || !strings.Contains(errOut, "ERROR:  division by zero") {
		t.Errorf("error: %v %q", err, errOut)
	}
}
