//go:build compat

package compat

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// runClient runs a client program under clients/ and turns its output,
// one line per check ("ok NAME" or "FAIL NAME: REASON"), into test
// results: each FAIL line is an error, and so is a program that exits
// non-zero without saying why or passes no check at all.
func runClient(t *testing.T, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(cmd.Environ(), "PGTZ=UTC", "TZ=UTC", "LC_ALL=C.UTF-8")
	out, err := cmd.CombinedOutput()
	var passed, failed int
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		switch {
		case strings.HasPrefix(line, "ok "):
			passed++
			t.Log(line)
		case strings.HasPrefix(line, "FAIL "):
			failed++
			t.Error(line)
		default:
			t.Log(line)
		}
	}
	if err != nil && failed == 0 {
		t.Errorf("%s exited: %v", name, err)
	}
	if passed+failed == 0 {
		t.Errorf("%s reported no checks", name)
	}
}
