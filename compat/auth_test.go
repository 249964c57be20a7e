package compat

import (
	"context"
	"crypto/tls"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/lib/pq"

	"github.com/streamdb/streamdb/pgwire"
)

const wrongPassword = `FATAL:  password authentication failed for user "streamdb"`

// TestSCRAM connects pgx, lib/pq and psql to a server that asks them for
// SCRAM, as it asks clients on other hosts (startServer): the right
// password gets in, over plaintext and over TLS with channel binding where
// the client can bind; a wrong one gets 28P01.
func TestSCRAM(t *testing.T) {
	srv := startServer(t, true)
	ctx := context.Background()

	t.Run("pgx", func(t *testing.T) {
		for _, params := range []string{"sslmode=disable", "sslmode=require&channel_binding=require"} {
			conn := connect(t, srv.url(params))
			var one int
			if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
				t.Fatalf("%s: %v", params, err)
			}
			if _, isTLS := conn.PgConn().Conn().(*tls.Conn); isTLS != strings.Contains(params, "require") {
				t.Errorf("%s: TLS %v", params, isTLS)
			}
		}
		for _, password := range []string{"wrong", ""} {
			_, err := pgx.Connect(ctx, srv.urlAs("streamdb", password, "sslmode=require"))
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != "28P01" || pe.Message != `password authentication failed for user "streamdb"` {
				t.Errorf("password %q: %v", password, err)
			}
		}
	})

	t.Run("lib/pq", func(t *testing.T) {
		for _, params := range []string{"sslmode=disable", "sslmode=require"} {
			if err := pingLibPQ(srv.url(params)); err != nil {
				t.Errorf("%s: %v", params, err)
			}
		}
		err := pingLibPQ(srv.urlAs("streamdb", "wrong", "sslmode=require"))
		var pe *pq.Error
		if !errors.As(err, &pe) || pe.Code != "28P01" || pe.Message != `password authentication failed for user "streamdb"` {
			t.Errorf("wrong password: %v", err)
		}
	})

	t.Run("psql", func(t *testing.T) {
		for _, conninfo := range []string{"sslmode=disable", "sslmode=require channel_binding=require"} {
			if out, err := psql(t, srv, srv.password, conninfo); err != nil || out != "1" {
				t.Errorf("%s: %v %s", conninfo, err, out)
			}
		}
		out, err := psql(t, srv, "wrong", "sslmode=require")
		if err == nil || !strings.Contains(out, wrongPassword) {
			t.Errorf("wrong password: %v %s", err, out)
		}
	})
}

// TestLocalTrust checks the default --auth local-trust from loopback:
// pgx, lib/pq and psql get in without a password.
func TestLocalTrust(t *testing.T) {
	srv := startServerAuth(t, false, pgwire.AuthConfig{Remote: pgwire.AuthSCRAM})
	conn := connect(t, srv.urlAs("streamdb", "", "sslmode=disable"))
	var one int
	if err := conn.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil {
		t.Error(err)
	}
	if err := pingLibPQ(srv.urlAs("streamdb", "", "sslmode=disable")); err != nil {
		t.Errorf("lib/pq: %v", err)
	}
	if out, err := psql(t, srv, "", "sslmode=disable"); err != nil || out != "1" {
		t.Errorf("psql: %v %s", err, out)
	}
}

// pingLibPQ opens a lib/pq connection and runs a query.
func pingLibPQ(url string) error {
	db, err := sql.Open("postgres", url)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var one int
	return db.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// psql runs SELECT 1 with psql as streamdb with password (none if empty)
// and the given conninfo settings; it returns the trimmed output.
func psql(t *testing.T, srv *server, password, conninfo string) (string, error) {
	t.Helper()
	if _, err := exec.LookPath("psql"); err != nil {
		t.Skip("psql not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dsn := "host=" + srv.host + " port=" + strconv.Itoa(srv.port) + " user=streamdb dbname=streamdb " + conninfo
	cmd := exec.CommandContext(ctx, "psql", "-X", "-w", "-A", "-t", "-c", "SELECT 1", dsn)
	cmd.Env = append(os.Environ(), "PGPASSWORD="+password)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}
