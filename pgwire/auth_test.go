package pgwire

import (
	"context"
	"crypto/tls"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/streamdb/streamdb/internal/scram"
)

// remoteNets make every test client remote. Tests connect over loopback
// only, from 127.0.0.1; with 127.0.0.2 alone counted as local, the server
// treats them as it treats a client from another host, since that
// decision reads nothing but the client's address (AuthConfig.isLocal).
var remoteNets = []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}

// testRoles are roles in every state authentication distinguishes; each
// password is "s3cret".
func testRoles() StaticRoles {
	v := scram.New("s3cret").String()
	return StaticRoles{
		"alice":      {Password: v, CanLogin: true},
		"nologin":    {Password: v},
		"expired":    {Password: v, CanLogin: true, ValidUntil: time.Now().Add(-time.Hour)},
		"later":      {Password: v, CanLogin: true, ValidUntil: time.Now().Add(time.Hour)},
		"nopassword": {CanLogin: true},
		"md5":        {Password: "md5a3556571e93b0d20722ba62be61e8c2d", CanLogin: true},
	}
}

// scramEverywhere asks every client for SCRAM, with no failure delay.
var scramEverywhere = AuthConfig{Local: AuthSCRAM, Remote: AuthSCRAM, FailureDelay: -1}

func TestAuth(t *testing.T) {
	tests := []struct {
		name string
		auth AuthConfig
		tls  bool
		opts []string // connection settings beside user and password
		user string
		pass string
		want string // "" or SQLSTATE: message
		log  string // the reason the server logs for a failed password
	}{
		{name: "scram", auth: scramEverywhere, user: "alice", pass: "s3cret"},
		{name: "scram wrong password", auth: scramEverywhere, user: "alice", pass: "S3cret",
			want: `28P01: password authentication failed for user "alice"`, log: "password does not match"},
		{name: "scram no password", auth: scramEverywhere, user: "alice",
			want: `28P01: password authentication failed for user "alice"`},
		{name: "scram unknown role", auth: scramEverywhere, user: "mallory", pass: "s3cret",
			want: `28P01: password authentication failed for user "mallory"`, log: "role does not exist"},
		{name: "scram role without password", auth: scramEverywhere, user: "nopassword", pass: "",
			want: `28P01: password authentication failed for user "nopassword"`, log: "role has no password"},
		{name: "scram md5 verifier", auth: scramEverywhere, user: "md5", pass: "s3cret",
			want: `28P01: password authentication failed for user "md5"`, log: "password is not a SCRAM-SHA-256 verifier"},
		{name: "scram expired", auth: scramEverywhere, user: "expired", pass: "s3cret",
			want: `28P01: password authentication failed for user "expired"`, log: "password has expired"},
		{name: "scram valid until later", auth: scramEverywhere, user: "later", pass: "s3cret"},
		{name: "scram nologin", auth: scramEverywhere, user: "nologin", pass: "s3cret",
			want: `28000: role "nologin" is not permitted to log in`},
		{name: "scram nologin wrong password", auth: scramEverywhere, user: "nologin", pass: "x",
			want: `28P01: password authentication failed for user "nologin"`},

		{name: "local-trust from loopback", auth: AuthConfig{Remote: AuthSCRAM}, user: "alice"},
		{name: "local-trust unknown role", auth: AuthConfig{Remote: AuthSCRAM}, user: "mallory",
			want: `28000: role "mallory" does not exist`},
		{name: "local-trust nologin", auth: AuthConfig{Remote: AuthSCRAM}, user: "nologin",
			want: `28000: role "nologin" is not permitted to log in`},
		{name: "local-trust remote", auth: AuthConfig{Remote: AuthSCRAM, LocalNets: remoteNets, FailureDelay: -1},
			user: "alice", want: `28P01: password authentication failed for user "alice"`},
		{name: "local-trust remote with password", auth: AuthConfig{Remote: AuthSCRAM, LocalNets: remoteNets},
			user: "alice", pass: "s3cret"},

		{name: "remote plaintext refused", auth: AuthConfig{Remote: AuthSCRAM, LocalNets: remoteNets}, tls: true,
			user: "alice", pass: "s3cret", opts: []string{"sslmode=disable"},
			want: `28000: SSL is required for connections from host "127.0.0.1"`},
		{name: "remote plaintext allowed", auth: AuthConfig{Remote: AuthSCRAM, LocalNets: remoteNets, RemotePlaintext: true},
			tls: true, user: "alice", pass: "s3cret", opts: []string{"sslmode=disable"}},
		{name: "local plaintext", auth: AuthConfig{Remote: AuthSCRAM}, tls: true, user: "alice", opts: []string{"sslmode=disable"}},
		{name: "channel binding", auth: scramEverywhere, tls: true, user: "alice", pass: "s3cret",
			opts: []string{"sslmode=require", "channel_binding=require"}},
		{name: "channel binding wrong password", auth: scramEverywhere, tls: true, user: "alice", pass: "x",
			opts: []string{"sslmode=require", "channel_binding=require"},
			want: `28P01: password authentication failed for user "alice"`},
		{name: "TLS without channel binding", auth: scramEverywhere, tls: true, user: "alice", pass: "s3cret",
			opts: []string{"sslmode=require", "channel_binding=disable"}},
		{name: "cleartext over TLS", auth: AuthConfig{Remote: AuthPassword, LocalNets: remoteNets}, tls: true,
			user: "alice", pass: "s3cret", opts: []string{"sslmode=require"}},
		{name: "cleartext wrong password", auth: AuthConfig{Remote: AuthPassword, LocalNets: remoteNets, FailureDelay: -1},
			tls: true, user: "alice", pass: "x", opts: []string{"sslmode=require"},
			want: `28P01: password authentication failed for user "alice"`},
		{name: "trust", user: "alice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Auth: tt.auth, Roles: testRoles()}
			if tt.tls {
				cfg.TLS = selfSignedTLS(t)
			}
			ts := startServer(t, cfg)
			opts := append([]string{"user=" + tt.user, "password='" + tt.pass + "'"}, tt.opts...)
			conn, err := connectPgxErr(t, ts.addr, opts...)
			got := ""
			if err != nil {
				got = pgCode(err) + ": " + pgMessage(err)
			} else {
				conn.Close(context.Background())
			}
			if got != tt.want {
				t.Errorf("got  %q\nwant %q (%v)", got, tt.want, err)
			}
			if tt.log != "" && !strings.Contains(ts.logs.String(), `user=`+tt.user+` reason="`+tt.log+`"`) {
				t.Errorf("log lacks the reason %q:\n%s", tt.log, ts.logs)
			}
		})
	}
}

// TestAuthMessages checks which authentication each kind of connection
// is asked for: SCRAM with channel binding offered over TLS only, and a
// cleartext password on TLS connections only.
func TestAuthMessages(t *testing.T) {
	tests := []struct {
		name string
		auth AuthConfig
		tls  bool
		want string
	}{
		{"scram", scramEverywhere, false, "AuthenticationSASL [SCRAM-SHA-256]"},
		{"scram over TLS", scramEverywhere, true, "AuthenticationSASL [SCRAM-SHA-256-PLUS SCRAM-SHA-256]"},
		{"password over TLS", AuthConfig{Remote: AuthPassword, LocalNets: remoteNets}, true, "AuthenticationCleartextPassword"},
		{"password without TLS", AuthConfig{Remote: AuthPassword, LocalNets: remoteNets}, false, "AuthenticationSASL [SCRAM-SHA-256]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Auth: tt.auth, Roles: testRoles()}
			if tt.tls {
				cfg.TLS = selfSignedTLS(t)
			}
			ts := startServer(t, cfg)
			fe := authFrontend(t, ts.addr, tt.tls, "alice")
			msg, err := fe.Receive()
			if err != nil {
				t.Fatal(err)
			}
			if got := renderAuth(msg); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// authFrontend connects, switches to TLS when asked, and sends a
// StartupMessage for user.
func authFrontend(t testing.TB, addr string, withTLS bool, user string) *pgproto3.Frontend {
	t.Helper()
	conn := newRawConn(t, addr)
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	rw := conn
	if withTLS {
		conn.Write(packet(be32(sslRequestCode)))
		var b [1]byte
		if _, err := conn.Read(b[:]); err != nil || b[0] != 'S' {
			t.Fatalf("SSLRequest: %q %v", b, err)
		}
		tc := tls.Client(conn, &tls.Config{InsecureSkipVerify: true})
		if err := tc.Handshake(); err != nil {
			t.Fatal(err)
		}
		rw = tc
	}
	rw.Write(startupPacket(196608, "user", user, "database", "db"))
	return pgproto3.NewFrontend(rw, rw)
}

func renderAuth(msg pgproto3.BackendMessage) string {
	switch m := msg.(type) {
	case *pgproto3.AuthenticationSASL:
		return "AuthenticationSASL [" + strings.Join(m.AuthMechanisms, " ") + "]"
	case *pgproto3.AuthenticationCleartextPassword:
		return "AuthenticationCleartextPassword"
	}
	return renderBackend(msg)
}

// TestAuthFailureDelay checks that a wrong password is answered after
// FailureDelay, and a right one at once.
func TestAuthFailureDelay(t *testing.T) {
	auth := scramEverywhere
	auth.FailureDelay = 300 * time.Millisecond
	ts := startServer(t, Config{Auth: auth, Roles: testRoles()})
	start := time.Now()
	if _, err := connectPgxErr(t, ts.addr, "user=alice", "password=wrong"); pgCode(err) != "28P01" {
		t.Fatalf("wrong password: %v", err)
	}
	if d := time.Since(start); d < auth.FailureDelay {
		t.Errorf("wrong password answered after %v, want at least %v", d, auth.FailureDelay)
	}
	start = time.Now()
	conn := connectPgx(t, ts.addr, "user=alice", "password=s3cret")
	if d := time.Since(start); d >= auth.FailureDelay {
		t.Errorf("right password answered after %v", d)
	}
	conn.Close(context.Background())
}

// TestTooManyConnections fills the server and checks that one more client
// gets 53300 while a cancel request still gets through, and that a slot
// frees when a client leaves.
func TestTooManyConnections(t *testing.T) {
	ts := startServer(t, Config{MaxConnections: 2})
	busy := connectPgx(t, ts.addr)
	idle := connectPgx(t, ts.addr)
	_, err := connectPgxErr(t, ts.addr)
	if got := pgCode(err) + ": " + pgMessage(err); got != "53300: sorry, too many clients already" {
		t.Fatalf("third connection: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, err = busy.Exec(ctx, "SELECT pg_sleep(30)")
	cancel()
	if pgCode(err) != "57014" {
		t.Fatalf("cancel while full: %v", err)
	}
	idle.Close(context.Background())
	deadline := time.Now().Add(5 * time.Second)
	for {
		conn, err := connectPgxErr(t, ts.addr)
		if err == nil {
			conn.Close(context.Background())
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no slot after a client left: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
