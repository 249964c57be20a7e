package compat

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/lib/pq"
)

// TestRolePrivileges logs real clients in with SCRAM as a role that is
// not a superuser and checks what its privileges allow: without SELECT
// on a view, reading it, subscribing to it and copying from it give
// 42501 in pgx, lib/pq and psql; a wrong password gives 28P01; after
// GRANT the view reads with its owner's privileges while the table
// under it stays closed; after REVOKE it is closed again.
func TestRolePrivileges(t *testing.T) {
	srv := startServer(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	admin := connect(t, srv.url("sslmode=disable"))
	mustExec(t, admin,
		"CREATE ROLE alice LOGIN PASSWORD 'alice-secret'",
		"CREATE TABLE accounts (id int, balance int)",
		"INSERT INTO accounts VALUES (1, 100), (2, 250)",
		"CREATE VIEW totals AS SELECT count(*) AS n, sum(balance) AS total FROM accounts",
	)
	aliceURL := srv.urlAs("alice", "alice-secret", "sslmode=disable")

	t.Run("wrong password", func(t *testing.T) {
		_, err := pgx.Connect(ctx, srv.urlAs("alice", "guess", "sslmode=disable"))
		if code := pgCode(err); code != "28P01" {
			t.Errorf("pgx: %v", err)
		}
		var pe *pq.Error
		if err := pingLibPQ(srv.urlAs("alice", "guess", "sslmode=disable")); !errors.As(err, &pe) || pe.Code != "28P01" {
			t.Errorf("lib/pq: %v", err)
		}
	})

	alice := connect(t, aliceURL)
	t.Run("refused without SELECT", func(t *testing.T) {
		var user string
		if err := alice.QueryRow(ctx, "SELECT current_user").Scan(&user); err != nil || user != "alice" {
			t.Fatalf("current_user = %q, %v", user, err)
		}
		for _, q := range []string{"SELECT * FROM totals", "SELECT * FROM accounts", "SUBSCRIBE totals", "SUBSCRIBE TO accounts"} {
			_, err := alice.Exec(ctx, q)
			if code := pgCode(err); code != "42501" {
				t.Errorf("pgx %s: %v", q, err)
			}
		}
		for _, q := range []string{"COPY accounts TO STDOUT", "COPY (SELECT * FROM totals) TO STDOUT", "COPY (SUBSCRIBE totals) TO STDOUT"} {
			_, err := alice.PgConn().CopyTo(ctx, io.Discard, q)
			if code := pgCode(err); code != "42501" {
				t.Errorf("pgx %s: %v", q, err)
			}
		}
		_, err := alice.PgConn().CopyFrom(ctx, strings.NewReader("3\t300\n"), "COPY accounts FROM STDIN")
		if code := pgCode(err); code != "42501" {
			t.Errorf("pgx COPY FROM STDIN: %v", err)
		}
		err = queryLibPQ(aliceURL, "SELECT n FROM totals")
		var pe *pq.Error
		if !errors.As(err, &pe) || pe.Code != "42501" || pe.Message != "permission denied for view totals" {
			t.Errorf("lib/pq: %v", err)
		}
		out, err := psqlAs(t, srv, "alice", "alice-secret", "SELECT n FROM totals")
		if err == nil || !strings.Contains(out, "ERROR:  permission denied for view totals") {
			t.Errorf("psql: %v %s", err, out)
		}
	})

	t.Run("granted", func(t *testing.T) {
		mustExec(t, admin, "GRANT SELECT ON totals TO alice")
		var n, total int
		if err := alice.QueryRow(ctx, "SELECT n, total FROM totals").Scan(&n, &total); err != nil || n != 2 || total != 350 {
			t.Fatalf("totals = %d %d, %v", n, total, err)
		}
		if _, err := alice.Exec(ctx, "SELECT * FROM accounts"); pgCode(err) != "42501" {
			t.Errorf("the view's table: %v", err)
		}
		var b strings.Builder
		if _, err := alice.PgConn().CopyTo(ctx, &b, "COPY (SELECT * FROM totals) TO STDOUT"); err != nil || b.String() != "2\t350\n" {
			t.Errorf("COPY: %q %v", b.String(), err)
		}
		if err := queryLibPQ(aliceURL, "SELECT n FROM totals"); err != nil {
			t.Errorf("lib/pq: %v", err)
		}
		out, err := psqlAs(t, srv, "alice", "alice-secret", "SELECT total FROM totals")
		if err != nil || out != "350" {
			t.Errorf("psql: %v %s", err, out)
		}
		out, err = psqlAs(t, srv, "alice", "alice-secret", `\du`)
		if err != nil || !strings.Contains(out, "alice||{}") || !strings.Contains(out, "streamdb|Superuser") {
			t.Errorf(`psql \du: %v %s`, err, out)
		}
		mustExec(t, admin, "REVOKE SELECT ON totals FROM alice")
		if _, err := alice.Exec(ctx, "SELECT * FROM totals"); pgCode(err) != "42501" {
			t.Errorf("after REVOKE: %v", err)
		}
	})

	t.Run("catalog", func(t *testing.T) {
		if _, err := alice.Exec(ctx, "SELECT * FROM pg_authid"); pgCode(err) != "42501" {
			t.Errorf("pg_authid: %v", err)
		}
		var has bool
		if err := alice.QueryRow(ctx, "SELECT has_table_privilege('totals', 'SELECT')").Scan(&has); err != nil || has {
			t.Errorf("has_table_privilege = %v, %v", has, err)
		}
		var pw string
		if err := admin.QueryRow(ctx, "SELECT rolpassword FROM pg_authid WHERE rolname = 'alice'").Scan(&pw); err != nil || !strings.HasPrefix(pw, "SCRAM-SHA-256$4096:") {
			t.Errorf("pg_authid.rolpassword = %q, %v", pw, err)
		}
	})
}

// pgCode is the SQLSTATE of a server error, "" for anything else.
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// queryLibPQ runs a query with lib/pq and reads its rows.
func queryLibPQ(url, query string) error {
	db, err := sql.Open("postgres", url)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}

// psqlAs runs one command with psql as user with password and returns
// its trimmed, unaligned output.
func psqlAs(t *testing.T, srv *server, user, password, command string) (string, error) {
	t.Helper()
	if _, err := exec.LookPath("psql"); err != nil {
		t.Skip("psql not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dsn := "host=" + srv.host + " port=" + strconv.Itoa(srv.port) + " user=" + user + " dbname=streamdb sslmode=disable"
	cmd := exec.CommandContext(ctx, "psql", "-X", "-w", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", command, dsn)
	cmd.Env = append(os.Environ(), "PGPASSWORD="+password)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// TestReadmeRoles runs "Roles, privileges and secrets" from the README
// as the superuser, then logs in as the role it creates, with its
// password, and checks what the README says that role may and may not
// do.
func TestReadmeRoles(t *testing.T) {
	blocks := readmeSQL(t, "## Roles, privileges and secrets")
	if len(blocks) != 2 {
		t.Fatalf("want a privileges block and a secrets block, found %d SQL blocks", len(blocks))
	}
	srv := startServer(t, false)
	ctx := context.Background()
	admin := connect(t, srv.url("sslmode=disable"))
	var lastRow string
	for _, block := range blocks {
		for _, stmt := range strings.Split(block, ";") {
			var lines []string
			for line := range strings.Lines(stmt) {
				if !strings.HasPrefix(line, "--") {
					lines = append(lines, line)
				}
			}
			if stmt = strings.TrimSpace(strings.Join(lines, "")); stmt == "" {
				continue
			}
			if strings.HasPrefix(stmt, "SELECT") {
				var has bool
				if err := admin.QueryRow(ctx, stmt).Scan(&has); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
				lastRow = strconv.FormatBool(has)
				continue
			}
			mustExec(t, admin, stmt)
		}
	}
	if lastRow != "false" {
		t.Errorf("has_table_privilege on the table = %s, want false", lastRow)
	}
	mustExec(t, admin, "INSERT INTO payments VALUES (1, 'ada', 10), (2, 'ada', 5)")
	analyst := connect(t, srv.urlAs("analyst", "change me", "sslmode=disable"))
	var total string
	if err := analyst.QueryRow(ctx, "SELECT total::text FROM payment_totals WHERE customer = 'ada'").Scan(&total); err != nil || total != "15" {
		t.Errorf("the view: %q %v", total, err)
	}
	if _, err := analyst.Exec(ctx, "SELECT * FROM payments"); pgCode(err) != "42501" {
		t.Errorf("the table: %v", err)
	}
	if _, err := analyst.Exec(ctx, "CREATE CONNECTION k TO KAFKA (BROKER '127.0.0.1:1', SASL MECHANISMS 'PLAIN', SASL USERNAME 'u', SASL PASSWORD SECRET kafka_password)"); pgCode(err) != "42501" {
		t.Errorf("a connection without CREATE on public: %v", err)
	}
}
