package compat

import (
	"context"
	"crypto/tls"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb/internal/selfsigned"
	"github.com/streamdb/streamdb/internal/testserver"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql"
)

var update = flag.Bool("update", false, "rewrite golden files")

// server is a streamdb engine and protocol server on a loopback port.
type server struct {
	host string
	port int
	tls  *tls.Config // nil without TLS
	// password is the password of the role streamdb.
	password string
}

// url returns a connection URL, with the password, and the given extra
// query parameters.
func (s *server) url(params string) string {
	return s.urlAs("streamdb", s.password, params)
}

// urlAs returns a connection URL for user with password (none if empty).
func (s *server) urlAs(user, password, params string) string {
	u := url.URL{Scheme: "postgres", User: url.User(user), Host: net.JoinHostPort(s.host, strconv.Itoa(s.port)), Path: "/streamdb", RawQuery: params}
	if password != "" {
		u.User = url.UserPassword(user, password)
	}
	return u.String()
}

// compatPassword is the password of the role streamdb in every server of
// these tests.
const compatPassword = "compat pässword"

// remoteNets make the clients of these tests remote: they connect from
// 127.0.0.1 and only 127.0.0.2 counts as local, so the server asks them
// for SCRAM as it asks a client on another host under the default
// --auth local-trust.
var remoteNets = []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}

// startServer runs streamdb until the test ends, set up as the binary
// sets it up: the role streamdb bootstrapped in the data directory with
// compatPassword, local-trust authentication, and the test's clients
// remote (remoteNets), so that every client connects with SCRAM. With
// withTLS the server accepts SSLRequest with a fresh self-signed
// certificate and offers SCRAM-SHA-256-PLUS; plaintext stays allowed, as
// the clients test both.
func startServer(t testing.TB, withTLS bool) *server {
	return startServerAuth(t, withTLS, pgwire.AuthConfig{Remote: pgwire.AuthSCRAM, LocalNets: remoteNets, RemotePlaintext: true})
}

// startServerAuth is startServer with another authentication policy.
func startServerAuth(t testing.TB, withTLS bool, auth pgwire.AuthConfig) *server {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	front, err := sql.Open(ctx, sql.Config{DataDir: t.TempDir(), Logger: log, InitialPassword: compatPassword})
	if err != nil {
		t.Fatal(err)
	}
	auth.MockNonce = front.MockNonce()
	cfg := pgwire.Config{Listen: "127.0.0.1:0", Engine: front, Logger: log, Auth: auth, Roles: front}
	if withTLS {
		cfg.TLS = selfSigned(t)
	}
	srv := pgwire.NewServer(cfg)
	done := make(chan error, 2)
	go func() { done <- front.Run(ctx) }()
	go func() { done <- srv.Run(ctx) }()
	select {
	case <-srv.Ready():
	case err := <-done:
		t.Fatalf("server did not start: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("server did not start within 10s")
	}
	t.Cleanup(func() {
		cancel()
		<-done
		<-done
		front.Close()
	})
	host, port, _ := net.SplitHostPort(srv.Addr().String())
	p, _ := strconv.Atoi(port)
	return &server{host: host, port: p, tls: cfg.TLS, password: compatPassword}
}

// selfSigned returns a TLS configuration with a certificate for
// 127.0.0.1, like the one --tls-self-signed creates.
func selfSigned(t testing.TB) *tls.Config {
	t.Helper()
	c, err := selfsigned.New("streamdb compat", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{c.TLS}}
}

// connect opens a pgx connection for the test.
func connect(t testing.TB, url string) *pgx.Conn {
	t.Helper()
	return testserver.Connect(t, url)
}

// mustExec runs statements, failing the test on error.
func mustExec(t testing.TB, conn *pgx.Conn, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := conn.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// schema is the DDL every client test starts from: a table of every
// supported type, a keyed table, a view and a materialized view.
var schema = []string{
	`CREATE TABLE orders (id int PRIMARY KEY, customer text NOT NULL, amount numeric(10,2) DEFAULT 0, placed timestamptz)`,
	`CREATE INDEX orders_customer ON orders (customer)`,
	`CREATE VIEW big_orders AS SELECT id, amount FROM orders WHERE amount > 100`,
	`CREATE MATERIALIZED VIEW spend AS SELECT customer, sum(amount) AS total, count(*) AS n FROM orders GROUP BY customer`,
}

// allTypes is a table with one column of every supported type, and
// allTypesRow the values of its one row as PostgreSQL prints them.
var allTypes = `CREATE TABLE all_types (b boolean, i2 smallint, i4 integer, i8 bigint, f4 real, f8 double precision,
	num numeric(12,3), t text, vc varchar(10), c char(3), by bytea, d date, tm time, ts timestamp, tstz timestamptz,
	iv interval, u uuid, j json, jb jsonb, o oid, ai integer[], at text[])`

var allTypesInsert = `INSERT INTO all_types VALUES (true, 2, 4, 8, 1.5, 2.25, 1234.567, 'text', 'varchar', 'ch',
	'\xdeadbeef', '2024-02-29', '12:34:56.789', '2024-02-29 12:34:56.789', '2024-02-29 12:34:56.789+00',
	'1 year 2 mons 3 days 04:05:06', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": 1}', '{"b": [1, 2]}', 42,
	'{1,2,3}', '{"x","y z"}')`

// allTypesText is the row as text, columns joined by |.
var allTypesText = strings.Join([]string{"t", "2", "4", "8", "1.5", "2.25", "1234.567", "text", "varchar", "ch ",
	`\xdeadbeef`, "2024-02-29", "12:34:56.789", "2024-02-29 12:34:56.789", "2024-02-29 12:34:56.789+00",
	"1 year 2 mons 3 days 04:05:06", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", `{"a": 1}`, `{"b": [1, 2]}`, "42",
	"{1,2,3}", `{x,"y z"}`}, "|")
