package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseArgsInterleaved(t *testing.T) {
	o, paths, err := parseArgs([]string{"a.slt", "-v", "--mode", "incremental", "dir", "--url=postgres://x"}, new(bytes.Buffer))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(paths, []string{"a.slt", "dir"}) || !o.verbose || o.mode != "incremental" || o.url != "postgres://x" {
		t.Errorf("parsed %+v %q", o, paths)
	}
}

func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "one.slt")
	if err := os.WriteFile(file, []byte("statement ok\nSELECT 1\n\nquery I nosort\nSELECT 1\n----\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A port nothing listens on: every record fails to run.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "postgres://x@" + l.Addr().String() + "/x?sslmode=disable&connect_timeout=2"
	l.Close()
	tests := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"--url", url, file}, 1, "0 passed, 2 failed, 0 skipped\n"},
		{[]string{"--url", url, "--expected-failures", "none", "--mode", "sideways", file}, 2, ""},
		{[]string{"--url", url}, 2, ""},
		{[]string{"--url", url, filepath.Join(dir, "missing.slt")}, 2, ""},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		if code := run(tt.args, &stdout, &stderr); code != tt.code {
			t.Errorf("slt %q exited %d, want %d\n%s%s", tt.args, code, tt.code, stdout.String(), stderr.String())
		}
		if !strings.HasSuffix(stdout.String(), tt.out) {
			t.Errorf("slt %q printed %q, want it to end with %q", tt.args, stdout.String(), tt.out)
		}
	}
}
