package pgwire

import (
	"context"
	"crypto/tls"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/selfsigned"
)

// selfSignedTLS returns a server TLS configuration with a fresh
// certificate for 127.0.0.1.
func selfSignedTLS(t testing.TB) *tls.Config {
	t.Helper()
	c, err := selfsigned.New("streamdb test", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{c.TLS}}
}

func TestTLS(t *testing.T) {
	ts := startServer(t, Config{TLS: selfSignedTLS(t)})
	ctx := context.Background()
	for _, mode := range []string{"require", "disable"} {
		t.Run(mode, func(t *testing.T) {
			conn := connectPgx(t, ts.addr, "sslmode="+mode)
			_, encrypted := conn.PgConn().Conn().(*tls.Conn)
			if encrypted != (mode == "require") {
				t.Errorf("sslmode=%s: encrypted = %v", mode, encrypted)
			}
			var n int32
			if err := conn.QueryRow(ctx, "SELECT $1::int4", 7).Scan(&n); err != nil || n != 7 {
				t.Fatalf("query over %s: %v %d", mode, err, n)
			}
		})
	}
}

// TestTLSPlaintextAfterSSLRequest sends a startup message right behind the
// SSLRequest, before the handshake; PostgreSQL refuses such bytes since
// they would be taken as if they had arrived encrypted.
func TestTLSPlaintextAfterSSLRequest(t *testing.T) {
	ts := startServer(t, Config{TLS: selfSignedTLS(t)})
	conn := newRawConn(t, ts.addr)
	conn.Write(append(packet(be32(sslRequestCode)), startupPacket(196608, "user", "u")...))
	got := strings.Join(readAll(t, conn), "|")
	want := `ErrorResponse FATAL 08P01 "received unencrypted data after SSL request"|(closed)`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
