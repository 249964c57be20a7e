// Package pgtest starts a throwaway PostgreSQL 15 cluster for tests and
// benchmarks that compare streamdb with the real thing: golden outputs,
// client behaviour, and the "what a user would do instead" baselines.
//
// PostgreSQL refuses to run as root, so when the test runs as root the
// cluster is initialised and run as the postgres user in a directory it
// owns. Tests skip (never fail) when the server binaries are missing.
package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BinDir is where Debian installs the PostgreSQL 15 server binaries.
const BinDir = "/usr/lib/postgresql/15/bin"

// Cluster is a running PostgreSQL server.
type Cluster struct {
	Dir  string
	Port int
	// URL connects as the superuser to database postgres.
	URL string

	cmd *exec.Cmd
	// exited is closed when the server process has exited.
	exited chan struct{}
	args   []string // the server's command line
	runs   []string // command prefix that runs a binary as the cluster owner
}

// Available reports whether the server binaries are installed.
func Available() bool {
	_, err := os.Stat(filepath.Join(BinDir, "postgres"))
	return err == nil
}

// Start starts a cluster for the duration of the test, skipping the test
// when PostgreSQL is not installed.
func Start(tb testing.TB, settings ...string) *Cluster {
	tb.Helper()
	if !Available() {
		tb.Skipf("PostgreSQL 15 server binaries not found in %s; install postgresql-15 to run this test", BinDir)
	}
	c, err := StartCluster(settings...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Stop)
	return c
}

// StartCluster initialises and starts a cluster in a new temporary
// directory. settings are extra "name=value" server settings; the cluster
// always runs with wal_level=logical on 127.0.0.1.
func StartCluster(settings ...string) (*Cluster, error) {
	dir, err := os.MkdirTemp("", "streamdb-pg-*")
	if err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root needs a postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
		c.runs = []string{"runuser", "-u", "postgres", "--"}
	}
	data := filepath.Join(dir, "data")
	if out, err := c.command(filepath.Join(BinDir, "initdb"), "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	c.Port = port
	c.args = []string{"-D", data, "-p", strconv.Itoa(port), "-k", dir, "-c", "listen_addresses=127.0.0.1",
		"-c", "wal_level=logical", "-c", "fsync=on", "-c", "max_connections=50"}
	for _, s := range settings {
		c.args = append(c.args, "-c", s)
	}
	c.URL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	if err := c.StartServer(); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// StartServer starts the server of a cluster whose server was stopped
// with StopServer (StartCluster starts it the first time), on the same
// port and data directory, and waits until it accepts queries.
func (c *Cluster) StartServer() error {
	c.cmd = c.command(filepath.Join(BinDir, "postgres"), c.args...)
	logf, err := os.OpenFile(filepath.Join(c.Dir, "postgres.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	c.cmd.Stdout, c.cmd.Stderr = logf, logf
	if err := c.cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	c.exited = exited
	go func(cmd *exec.Cmd) { _ = cmd.Wait(); close(exited) }(c.cmd)
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-exited:
			c.cmd = nil
			log, _ := os.ReadFile(filepath.Join(c.Dir, "postgres.log"))
			return fmt.Errorf("postgres exited at start:\n%s", log)
		default:
		}
		conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", c.Port), time.Second)
		if err == nil {
			conn.Close()
			// Accepting TCP is not yet accepting queries; give startup a moment.
			if c.ready() {
				return nil
			}
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(c.Dir, "postgres.log"))
			return fmt.Errorf("postgres did not start within 30s:\n%s", log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (c *Cluster) ready() bool {
	out, err := exec.Command(filepath.Join(BinDir, "pg_isready"), "-h", "127.0.0.1", "-p", strconv.Itoa(c.Port)).CombinedOutput()
	return err == nil && strings.Contains(string(out), "accepting")
}

func (c *Cluster) command(bin string, args ...string) *exec.Cmd {
	if len(c.runs) == 0 {
		return exec.Command(bin, args...)
	}
	full := append(append(append([]string(nil), c.runs[1:]...), bin), args...)
	return exec.Command(c.runs[0], full...)
}

// Psql runs psql against the cluster with the given arguments and returns
// its combined output.
func (c *Cluster) Psql(ctx context.Context, args ...string) (string, error) {
	all := append([]string{"-X", "-h", "127.0.0.1", "-p", strconv.Itoa(c.Port), "-U", "postgres", "postgres"}, args...)
	out, err := exec.CommandContext(ctx, "psql", all...).CombinedOutput()
	return string(out), err
}

// Stop stops the server and removes its directory.
func (c *Cluster) Stop() {
	c.StopServer()
	os.RemoveAll(c.Dir)
}

// StopServer stops the server with a fast shutdown (clients are
// disconnected, nothing is lost), keeping its data for StartServer: an
// upstream restart.
func (c *Cluster) StopServer() {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	// The postmaster may run under runuser, which does not pass
	// signals on: signal it by the pid in its lock file (SIGINT is a
	// fast shutdown).
	if pid := c.postmasterPID(); pid > 0 {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Signal(os.Interrupt)
		}
	}
	_ = c.cmd.Process.Signal(os.Interrupt)
	select {
	case <-c.exited:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
	c.cmd = nil
}

// postmasterPID reads the server's pid from postmaster.pid.
func (c *Cluster) postmasterPID() int {
	b, err := os.ReadFile(filepath.Join(c.Dir, "data", "postmaster.pid"))
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(line))
	return pid
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// HBAFile writes a pg_hba.conf of the given lines where the cluster's
// owner can read it, and returns the setting that makes a cluster use it:
// pass it to Start. The file lives until the test ends.
func HBAFile(tb testing.TB, lines ...string) string {
	tb.Helper()
	dir, err := os.MkdirTemp("", "streamdb-hba-*")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "pg_hba.conf")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	// The cluster may run as another user than the test (see Start).
	if err := os.Chmod(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	return "hba_file=" + path
}
