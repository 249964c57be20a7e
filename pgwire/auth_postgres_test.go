package pgwire

import (
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/streamdb/streamdb/internal/pgtest"
)

// saslCase is one SCRAM conversation, played by a client that says
// exactly what it is told, however wrong.
type saslCase struct {
	name string
	user string
	// mech and first make the SASLInitialResponse; noFirst sends none
	// (length -1), and the client-first message follows as a SASLResponse.
	mech    string
	first   string
	noFirst bool
	// instead replaces the SASLInitialResponse.
	instead pgproto3.FrontendMessage
	// final makes the client-final message from the server-first one;
	// nil sends none.
	final func(serverFirst string) string
}

const clientFirst = "n,,n=,r=fyko+d2lbbFgONRv9qkxdawL"

// TestSASLPostgres plays SCRAM conversations, right and wrong, against
// PostgreSQL 15 and against pgwire, and checks that both answer alike.
// Both servers hold the same verifier for alice (PostgreSQL's), so even
// the salt they show is the same.
func TestSASLPostgres(t *testing.T) {
	pg := pgtest.Start(t, pgtest.HBAFile(t,
		"host all postgres 127.0.0.1/32 trust",
		"host all all 127.0.0.1/32 scram-sha-256",
	))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var alice, nologin string
	for _, sql := range []string{
		"SET password_encryption = 'scram-sha-256'",
		"CREATE ROLE alice LOGIN PASSWORD 's3cret'",
		"CREATE ROLE nologin NOLOGIN PASSWORD 's3cret'",
	} {
		if _, err := admin.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	if err := admin.QueryRow(ctx, "SELECT rolpassword FROM pg_authid WHERE rolname = 'alice'").Scan(&alice); err != nil {
		t.Fatal(err)
	}
	if err := admin.QueryRow(ctx, "SELECT rolpassword FROM pg_authid WHERE rolname = 'nologin'").Scan(&nologin); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, Config{Auth: scramEverywhere, Roles: StaticRoles{
		"alice":   {Password: alice, CanLogin: true},
		"nologin": {Password: nologin},
	}})
	pgAddr := "127.0.0.1:" + strconv.Itoa(pg.Port)

	good := func(header, cb string) func(string) string {
		return func(serverFirst string) string {
			return withProof(header, "s3cret", serverFirst, "c="+cb+",r="+nonceOf(serverFirst))
		}
	}
	cases := []saslCase{
		{name: "right password", final: good("n,,", "biws")},
		{name: "wrong password", final: func(sf string) string {
			return withProof("n,,", "S3cret", sf, "c=biws,r="+nonceOf(sf))
		}},
		{name: "unknown role", user: "mallory", final: good("n,,", "biws")},
		{name: "nologin", user: "nologin", final: good("n,,", "biws")},
		{name: "y flag without TLS", first: "y,,n=,r=abc", final: func(sf string) string {
			return withProofBare("n=,r=abc", "s3cret", sf, "c=eSws,r="+nonceOf(sf))
		}},
		{name: "no initial response", noFirst: true, final: good("n,,", "biws")},
		{name: "nonce changed", final: func(sf string) string {
			return withProof("n,,", "s3cret", sf, "c=biws,r="+nonceOf(sf)+"x")
		}},
		{name: "extension before proof", final: func(sf string) string {
			return withProof("n,,", "s3cret", sf, "c=biws,r="+nonceOf(sf)+",x=y")
		}},
		{name: "binding flag changed", final: func(sf string) string {
			return withProof("n,,", "s3cret", sf, "c=eSws,r="+nonceOf(sf))
		}},
		{name: "malformed proof", final: func(sf string) string { return "c=biws,r=" + nonceOf(sf) + ",p=abc" }},
		{name: "garbage after proof", final: func(sf string) string {
			return withProof("n,,", "s3cret", sf, "c=biws,r="+nonceOf(sf)) + ",x=1"
		}},
		{name: "no proof", final: func(sf string) string { return "c=biws,r=" + nonceOf(sf) }},
		{name: "final without binding", final: func(sf string) string { return "r=" + nonceOf(sf) }},
		{name: "empty final", final: func(string) string { return "" }},
		{name: "invalid mechanism", mech: "SCRAM-SHA-1"},
		{name: "plus without TLS", mech: "SCRAM-SHA-256-PLUS"},
		{name: "empty first", first: "-"},
		{name: "unknown flag", first: "x,,n=,r=abc"},
		{name: "flag without comma", first: "n"},
		{name: "p flag", first: "p=tls-server-end-point,,n=,r=abc"},
		{name: "authzid", first: "n,a=bob,n=,r=abc"},
		{name: "mandatory extension", first: "n,,m=x,n=,r=abc"},
		{name: "no user", first: "n,,r=abc"},
		{name: "no nonce", first: "n,,n="},
		{name: "unprintable nonce", first: "n,,n=,r=a\tb"},
		{name: "extension in first", first: "n,,n=,r=abc,x=1", final: func(sf string) string {
			return withProofBare("n=,r=abc,x=1", "s3cret", sf, "c=biws,r="+nonceOf(sf))
		}},
		{name: "bad attribute in first", first: "n,,n=,r=abc,1"},
		{name: "query instead", instead: &pgproto3.Query{String: "SELECT 1"}},
		{name: "terminate instead", instead: &pgproto3.Terminate{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := playSASL(t, pgAddr, c)
			got := playSASL(t, ts.addr, c)
			t.Log(got)
			if got != want {
				t.Errorf("pgwire answers differently:\n got  %s\n want %s", got, want)
			}
		})
	}
}

// playSASL runs one conversation and renders the server's side of it.
func playSASL(t *testing.T, addr string, c saslCase) string {
	t.Helper()
	if c.user == "" {
		c.user = "alice"
	}
	if c.mech == "" {
		c.mech = "SCRAM-SHA-256"
	}
	switch c.first {
	case "":
		c.first = clientFirst
	case "-":
		c.first = ""
	}
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	conn.Write(startupPacket(196608, "user", c.user, "database", "postgres"))
	fe := pgproto3.NewFrontend(conn, conn)
	send := func(m pgproto3.FrontendMessage) {
		fe.Send(m)
		fe.Flush()
	}
	var out []string
	for {
		msg, err := fe.Receive()
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || isConnReset(err) {
				out = append(out, "(closed)")
			} else {
				out = append(out, "(error "+err.Error()+")")
			}
			return strings.Join(out, " | ")
		}
		switch m := msg.(type) {
		case *pgproto3.AuthenticationSASL:
			out = append(out, renderAuth(m))
			switch {
			case c.instead != nil:
				send(c.instead)
			case c.noFirst:
				b := append([]byte("p\x00\x00\x00\x00"), c.mech...)
				b = binary.BigEndian.AppendUint32(append(b, 0), 0xffffffff)
				binary.BigEndian.PutUint32(b[1:], uint32(len(b)-1))
				conn.Write(b)
			default:
				send(&pgproto3.SASLInitialResponse{AuthMechanism: c.mech, Data: []byte(c.first)})
			}
		case *pgproto3.AuthenticationSASLContinue:
			if len(m.Data) == 0 {
				out = append(out, "AuthenticationSASLContinue (empty)")
				send(&pgproto3.SASLResponse{Data: []byte(c.first)})
				continue
			}
			out = append(out, "AuthenticationSASLContinue "+shapeOf(string(m.Data), c.first, c.user == "mallory"))
			if c.final == nil {
				out = append(out, "(client stops)")
				return strings.Join(out, " | ")
			}
			send(&pgproto3.SASLResponse{Data: []byte(c.final(string(m.Data)))})
		case *pgproto3.AuthenticationSASLFinal:
			out = append(out, "AuthenticationSASLFinal")
		case *pgproto3.ParameterStatus, *pgproto3.BackendKeyData:
		case *pgproto3.ReadyForQuery:
			return strings.Join(append(out, "ReadyForQuery"), " | ")
		default:
			out = append(out, renderBackend(m))
		}
	}
}

// shapeOf renders a server-first message without its random nonce, and
// without the salt when it is a mock one, which differs between servers.
func shapeOf(serverFirst, first string, mock bool) string {
	parts := strings.Split(serverFirst, ",")
	_, clientNonce, _ := strings.Cut(first, ",r=")
	clientNonce, _, _ = strings.Cut(clientNonce, ",")
	if len(parts) != 3 || !strings.HasPrefix(parts[0], "r="+clientNonce) {
		return serverFirst
	}
	parts[0] = fmt.Sprintf("r=<client nonce><%d characters>", len(parts[0])-len("r=")-len(clientNonce))
	if mock {
		parts[1] = "s=<mock salt>"
	}
	return strings.Join(parts, ",")
}

func nonceOf(serverFirst string) string {
	r, _, _ := strings.Cut(serverFirst, ",")
	return strings.TrimPrefix(r, "r=")
}

// withProof appends the proof of password to a client-final message
// without proof, for the conversation begun with clientFirst.
func withProof(header, password, serverFirst, withoutProof string) string {
	return withProofBare(strings.TrimPrefix(clientFirst, header), password, serverFirst, withoutProof)
}

func withProofBare(firstBare, password, serverFirst, withoutProof string) string {
	var salt []byte
	iter := 0
	for _, kv := range strings.Split(serverFirst, ",") {
		switch {
		case strings.HasPrefix(kv, "s="):
			salt, _ = base64.StdEncoding.DecodeString(kv[2:])
		case strings.HasPrefix(kv, "i="):
			iter, _ = strconv.Atoi(kv[2:])
		}
	}
	salted, _ := pbkdf2.Key(sha256.New, password, salt, iter, 32)
	mac := func(key []byte, msg string) []byte {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(msg))
		return m.Sum(nil)
	}
	clientKey := mac(salted, "Client Key")
	stored := sha256.Sum256(clientKey)
	sig := mac(stored[:], firstBare+","+serverFirst+","+withoutProof)
	for i := range clientKey {
		clientKey[i] ^= sig[i]
	}
	return withoutProof + ",p=" + base64.StdEncoding.EncodeToString(clientKey)
}
