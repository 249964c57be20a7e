package sqllogictest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// postgresBin is where Debian installs the PostgreSQL 15 server; PG_BIN
// overrides it.
func postgresBin() string {
	if d := os.Getenv("PG_BIN"); d != "" {
		return d
	}
	return "/usr/lib/postgresql/15/bin"
}

// cluster is the PostgreSQL cluster the tests of this package share,
// started by the first test that needs it and stopped by TestMain.
var cluster struct {
	once sync.Once
	url  string
	skip string // why the tests that need PostgreSQL are skipped
	err  error
	stop func()
}

// needPostgres returns the URL of the shared cluster, skipping the test in
// -short mode and when the PostgreSQL binaries are absent.
func needPostgres(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts PostgreSQL; skipped in -short mode")
	}
	cluster.once.Do(func() {
		cluster.url, cluster.stop, cluster.skip, cluster.err = startPostgres()
	})
	if cluster.skip != "" {
		t.Skip(cluster.skip)
	}
	if cluster.err != nil {
		t.Fatal(cluster.err)
	}
	return cluster.url
}

func TestMain(m *testing.M) {
	code := m.Run()
	if cluster.stop != nil {
		cluster.stop()
	}
	os.Exit(code)
}

// startPostgres starts a throwaway PostgreSQL cluster on a free loopback
// port and returns its URL and the function that stops and deletes it; skip
// is set when the server binaries are absent. PostgreSQL refuses to run as
// root, so as root the cluster runs as user postgres.
func startPostgres() (url string, stop func(), skip string, err error) {
	bin := postgresBin()
	if _, err := os.Stat(filepath.Join(bin, "postgres")); err != nil {
		return "", nil, fmt.Sprintf("PostgreSQL server binaries not found in %s (set PG_BIN): %v", bin, err), nil
	}
	// Not a testing temporary directory: its parent is private to root,
	// and user postgres must reach the data directory.
	dir, err := os.MkdirTemp("", "slt-pg-")
	if err != nil {
		return "", nil, "", err
	}
	var prefix []string
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return "", nil, fmt.Sprintf("running as root and there is no postgres user: %v", err), nil
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return "", nil, "", err
		}
		prefix = []string{"runuser", "-u", "postgres", "--"}
	}
	command := func(args ...string) *exec.Cmd {
		args = append(slices.Clone(prefix), args...)
		return exec.Command(args[0], args[1:]...)
	}
	data := filepath.Join(dir, "data")
	stop = func() {
		command(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "stop").Run()
		os.RemoveAll(dir)
	}
	fail := func(err error) (string, func(), string, error) {
		stop()
		return "", nil, "", err
	}
	if out, err := command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync").CombinedOutput(); err != nil {
		return fail(fmt.Errorf("initdb: %v\n%s", err, out))
	}
	port, err := freePort()
	if err != nil {
		return fail(err)
	}
	logPath := filepath.Join(dir, "postgres.log")
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off", port, dir)
	if out, err := command(filepath.Join(bin, "pg_ctl"), "-D", data, "-l", logPath, "-w", "-t", "60", "-o", opts, "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(logPath)
		return fail(fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log))
	}
	url = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	// Make sure the server on that port is ours and not another one that
	// took the port first.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pg, err := pgconn.Connect(ctx, url)
	if err != nil {
		return fail(err)
	}
	defer pg.Close(ctx)
	res := pg.ExecParams(ctx, "SHOW data_directory", nil, nil, nil, nil).Read()
	if res.Err != nil || len(res.Rows) != 1 || string(res.Rows[0][0]) != data {
		return fail(fmt.Errorf("the server on port %d is not the cluster in %s: %v %q", port, data, res.Err, res.Rows))
	}
	return url, stop, "", nil
}
