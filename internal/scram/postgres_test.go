package scram

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb/internal/pgtest"
)

// passwords exercise SASLprep: ASCII, mapped and normalized characters,
// and passwords SASLprep refuses, which are hashed raw.
var passwords = []string{
	"pencil",
	"with space and 'quote'",
	"I\u00adX",        // soft hyphen, mapped to nothing
	"a\u00a0b",        // non-ASCII space
	"\ufb01\u2168",    // NFKC: ligature, Roman numeral
	"caf\u00e9",       // already NFKC
	"cafe\u0301",      // NFKC composes
	"a\u0007\u00e9",   // prohibited control character
	"\u0627\u0628a",   // mixed directions
	"\U0001F600emoji", // a code point SASLprep leaves unassigned
}

// TestPostgresVerifiers checks the verifier format and the password
// normalization against a running PostgreSQL 15, both ways: verifiers
// PostgreSQL made from passwords accept those passwords here, and
// verifiers made here let PostgreSQL's clients log in to PostgreSQL.
func TestPostgresVerifiers(t *testing.T) {
	pg := pgtest.Start(t, pgtest.HBAFile(t,
		"local all all trust",
		"host all postgres 127.0.0.1/32 trust",
		"host all all 127.0.0.1/32 scram-sha-256",
	))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	exec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec("SET password_encryption = 'scram-sha-256'")

	for i, pw := range passwords {
		role := fmt.Sprintf("made_by_pg_%d", i)
		exec(fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD %s", role, literal(pw)))
		var stored string
		if err := conn.QueryRow(ctx, "SELECT rolpassword FROM pg_authid WHERE rolname = $1", role).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		v, err := Parse(stored)
		if err != nil {
			t.Fatalf("%q: PostgreSQL's verifier %s: %v", pw, stored, err)
		}
		if !v.Check(pw) {
			t.Errorf("%q: PostgreSQL's verifier refuses the password (normalized here to %q)", pw, Normalize(pw))
		}
		if v.Check(pw + "x") {
			t.Errorf("%q: PostgreSQL's verifier accepts another password", pw)
		}
	}

	for i, pw := range passwords {
		role := fmt.Sprintf("made_here_%d", i)
		v := New(pw)
		exec(fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", role, v))
		var stored string
		if err := conn.QueryRow(ctx, "SELECT rolpassword FROM pg_authid WHERE rolname = $1", role).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if stored != v.String() {
			t.Fatalf("PostgreSQL did not keep the verifier as given: %s, want %s", stored, v)
		}
		// psql (libpq) normalizes as PostgreSQL does; pgx approximates
		// SASLprep, so it logs in with the ASCII passwords only.
		if err := psqlLogin(ctx, pg.Port, role, pw); err != nil {
			t.Errorf("psql as %s with %q: %v", role, pw, err)
		}
		if err := psqlLogin(ctx, pg.Port, role, pw+"x"); err == nil || !strings.Contains(err.Error(), "password authentication failed") {
			t.Errorf("psql as %s with a wrong password: %v", role, err)
		}
		if isASCII(pw) {
			u := url.URL{Scheme: "postgres", User: url.UserPassword(role, pw), Host: fmt.Sprintf("127.0.0.1:%d", pg.Port), Path: "/postgres", RawQuery: "sslmode=disable"}
			c, err := pgx.Connect(ctx, u.String())
			if err != nil {
				t.Errorf("pgx as %s: %v", role, err)
				continue
			}
			c.Close(ctx)
		}
	}
}

// psqlLogin runs SELECT 1 with psql as role, with the password.
func psqlLogin(ctx context.Context, port int, role, password string) error {
	cmd := exec.CommandContext(ctx, "psql", "-X", "-w", "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-U", role, "-d", "postgres", "-c", "SELECT 1")
	cmd.Env = append(os.Environ(), "PGPASSWORD="+password, "PGSSLMODE=disable")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	return nil
}

// literal quotes s as an SQL string literal.
func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
