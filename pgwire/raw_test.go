package pgwire

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

func newRawConn(t testing.TB, addr string) net.Conn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// packet frames a startup-phase packet: length, then body.
func packet(body ...[]byte) []byte {
	n := 4
	for _, b := range body {
		n += len(b)
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(n))
	for _, b := range body {
		out = append(out, b...)
	}
	return out
}

func be32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }

func cancelPacket(pid uint32, secret []byte) []byte {
	return packet(be32(cancelRequestCode), be32(pid), secret)
}

// startupPacket encodes a StartupMessage with the given version and
// name/value pairs.
func startupPacket(version uint32, params ...string) []byte {
	var b []byte
	for _, p := range params {
		b = append(append(b, p...), 0)
	}
	return packet(be32(version), append(b, 0))
}

// readAll renders the messages the server sends until ReadyForQuery or
// until it closes the connection (or is quiet for two seconds).
func readAll(t testing.TB, conn net.Conn) []string {
	t.Helper()
	fe := pgproto3.NewFrontend(conn, conn)
	var out []string
	for {
		conn.SetReadDeadline(time.Now().Add(2 * time.Second))
		msg, err := fe.Receive()
		if err != nil {
			var ne net.Error
			switch {
			case errors.As(err, &ne) && ne.Timeout():
				out = append(out, "(open)")
			case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), isConnReset(err):
				out = append(out, "(closed)")
			default:
				out = append(out, "(error "+err.Error()+")")
			}
			return out
		}
		out = append(out, renderBackend(msg))
		if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
			return out
		}
	}
}

// TestProtocolViolations sends broken input after a good startup: each
// case ends that connection only, with FATAL 08P01 where a message can
// still be sent, while another session carries on.
func TestProtocolViolations(t *testing.T) {
	ts := startServer(t, Config{MaxMessageSize: 1 << 20})
	bystander := connectPgx(t, ts.addr)
	cases := []struct {
		name      string
		send      []byte
		closeSend bool // half-close after sending: the client gave up
		want      string
	}{
		{"garbage", []byte("hello, is this the server?"), false,
			`ErrorResponse FATAL 08P01 "invalid frontend message type 104"|(closed)`},
		{"unknown type", []byte{'Z', 0, 0, 0, 4}, false,
			`ErrorResponse FATAL 08P01 "invalid frontend message type 90"|(closed)`},
		{"password after startup", []byte{'p', 0, 0, 0, 8, 'a', 'b', 'c', 0}, false,
			`ErrorResponse FATAL 08P01 "invalid frontend message type 112"|(closed)`},
		{"1 GB length prefix", []byte{'Q', 0x40, 0, 0, 0}, false,
			`ErrorResponse FATAL 08P01 "invalid message length"|(closed)`},
		{"above MaxMessageSize", append([]byte{'Q', 0, 0x10, 0, 5}, make([]byte, 100)...), false,
			`ErrorResponse FATAL 08P01 "invalid message length"|(closed)`},
		{"negative length", []byte{'Q', 0xff, 0xff, 0xff, 0xff}, false,
			`ErrorResponse FATAL 08P01 "invalid message length"|(closed)`},
		{"length below 4", []byte{'S', 0, 0, 0, 3}, false,
			`ErrorResponse FATAL 08P01 "invalid message length"|(closed)`},
		{"truncated body", []byte{'Q', 0, 0, 0, 32, 'S', 'E', 'L'}, true, `(closed)`},
		{"truncated header", []byte{'Q', 0, 0}, true, `(closed)`},
		{"terminate", []byte{'X', 0, 0, 0, 4}, false, `(closed)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			conn, _ := startupFrontend(t, ts.addr)
			if _, err := conn.Write(tc.send); err != nil {
				t.Fatal(err)
			}
			if tc.closeSend {
				conn.(*net.TCPConn).CloseWrite()
			}
			if got := strings.Join(readAll(t, conn), "|"); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	var one int32
	if err := bystander.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("other session: %v", err)
	}
}

// TestStartup covers the packets that open a connection.
func TestStartup(t *testing.T) {
	ts := startServer(t, Config{AuthTimeout: 500 * time.Millisecond})
	okTail := "BackendKeyData|ReadyForQuery I"
	cases := []struct {
		name string
		send [][]byte
		want string
	}{
		{"no user", [][]byte{startupPacket(pgproto3.ProtocolVersion30, "database", "postgres")},
			`ErrorResponse FATAL 28000 "no PostgreSQL user name specified in startup packet"|(closed)`},
		{"unknown database", [][]byte{startupPacket(pgproto3.ProtocolVersion30, "user", "u", "database", "nodb")},
			`AuthenticationOk|ErrorResponse FATAL 3D000 "database \"nodb\" does not exist"|(closed)`},
		{"protocol 2.0", [][]byte{startupPacket(2 << 16)},
			`ErrorResponse FATAL 0A000 "unsupported frontend protocol 2.0: server supports 3.0 to 3.0"|(closed)`},
		{"protocol 3.2", [][]byte{startupPacket(pgproto3.ProtocolVersion32, "user", "u", "_pq_.thing", "1")},
			"NegotiateProtocolVersion|AuthenticationOk|" + statusList + okTail},
		{"SSL refused", [][]byte{packet(be32(sslRequestCode)), startupPacket(pgproto3.ProtocolVersion30, "user", "u")},
			"(byte N)|AuthenticationOk|" + statusList + okTail},
		{"GSS refused", [][]byte{packet(be32(gssEncRequestCode)), startupPacket(pgproto3.ProtocolVersion30, "user", "u")},
			"(byte N)|AuthenticationOk|" + statusList + okTail},
		{"bad layout", [][]byte{packet(be32(pgproto3.ProtocolVersion30), []byte("user\x00u"))},
			`ErrorResponse FATAL 08P01 "invalid startup packet layout: expected terminator as last byte"|(closed)`},
		{"short packet", [][]byte{{0, 0, 0, 6, 0, 0}},
			`ErrorResponse FATAL 08P01 "invalid length of startup packet"|(closed)`},
		{"huge packet", [][]byte{{0, 1, 0, 0, 0, 3, 0, 0}},
			`ErrorResponse FATAL 08P01 "invalid length of startup packet"|(closed)`},
		{"silent client", nil, `(closed)`},
		{"cancel request", [][]byte{cancelPacket(12345, []byte{1, 2, 3, 4})}, `(closed)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			conn := newRawConn(t, ts.addr)
			var out []string
			for _, p := range tc.send {
				if _, err := conn.Write(p); err != nil {
					t.Fatal(err)
				}
				if len(p) == 8 && (binary.BigEndian.Uint32(p[4:]) == sslRequestCode || binary.BigEndian.Uint32(p[4:]) == gssEncRequestCode) {
					var b [1]byte
					if _, err := io.ReadFull(conn, b[:]); err != nil {
						t.Fatal(err)
					}
					out = append(out, "(byte "+string(b[:])+")")
				}
			}
			for _, m := range readAll(t, conn) {
				if strings.HasPrefix(m, "ParameterStatus") {
					m = "ParameterStatus"
				}
				out = append(out, m)
			}
			if got := strings.Join(out, "|"); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// statusList is the fake session's ParameterStatus messages, as rendered
// by TestStartup.
var statusList = strings.Repeat("ParameterStatus|", 11)
