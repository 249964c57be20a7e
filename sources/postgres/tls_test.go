package postgres

import (
	"context"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/pgtest"
	"github.com/streamdb/streamdb/internal/selfsigned"
	"github.com/streamdb/streamdb/pgerr"
)

// TestSSLModes replicates from a server that speaks TLS, with SSL MODE
// require and verify-full, and checks that verify-full refuses a server
// whose certificate no trusted authority signed.
func TestSSLModes(t *testing.T) {
	if !pgtest.Available() {
		t.Skip("PostgreSQL 15 server binaries not found")
	}
	cert, err := selfsigned.New("streamdb test", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: its parent is private to this user, and the server
	// runs as postgres.
	dir, err := os.MkdirTemp("", "streamdb-tls-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	certFile, keyFile := filepath.Join(dir, "server.crt"), filepath.Join(dir, "server.key")
	if err := os.WriteFile(certFile, cert.CertPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, cert.KeyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		// The server runs as postgres and wants to own its key.
		pg, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("no postgres user")
		}
		uid, _ := strconv.Atoi(pg.Uid)
		gid, _ := strconv.Atoi(pg.Gid)
		for _, f := range []string{dir, certFile, keyFile} {
			if err := os.Chown(f, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
	}
	c, err := pgtest.StartCluster(append(clusterSettings, "ssl=on", "ssl_cert_file="+certFile, "ssl_key_file="+keyFile)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	u := newUpstream(t, c)
	u.exec(`CREATE TABLE a (id int PRIMARY KEY, v text)`, `CREATE PUBLICATION pub FOR ALL TABLES`, `INSERT INTO a VALUES (1, 'x')`)

	cfg := u.config("tls", "pub")
	cfg.Connection.SSLMode = "verify-full"
	if _, err := Discover(context.Background(), cfg); pgerr.CodeOf(err) != pgerr.ConnectionException {
		t.Errorf("verify-full without the authority: %v", err)
	}
	cfg.Connection.SSLMode = "require"
	if _, err := Discover(context.Background(), cfg); err != nil {
		t.Errorf("require: %v", err)
	}
	cfg.Connection.SSLMode, cfg.Connection.SSLRootCert = "verify-full", string(cert.CertPEM)
	src := open(t, cfg)
	m := newModel(src.Outputs())
	start(t, src, m, nil)
	q := map[string]string{"a": "SELECT * FROM a"}
	waitEqual(t, m, u, q)
	u.exec(`INSERT INTO a VALUES (2, 'y')`)
	waitEqual(t, m, u, q)
	var ssl bool
	if err := u.conn.QueryRow(context.Background(),
		`SELECT bool_and(s.ssl) FROM pg_stat_ssl s JOIN pg_stat_replication r ON r.pid = s.pid`).Scan(&ssl); err != nil || !ssl {
		t.Errorf("replication connection without TLS: %v %v", ssl, err)
	}
}
