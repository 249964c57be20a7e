package pgwire

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgproto3"
)

// A script is a protocol conversation kept as a golden file under
// testdata/scripts. Each block lists frontend messages after "send" (one per
// line: the message type and its pgproto3 JSON form, or "raw <hex>" for bytes
// written as they are) and, after "----", the backend messages the server
// answered with, rendered by renderBackend. The conversation starts after a
// normal startup handshake.
type scriptBlock struct {
	send   []string
	expect []string
}

func parseScript(t *testing.T, path string) []scriptBlock {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []scriptBlock
	var cur *scriptBlock
	inExpect := false
	for i, line := range strings.Split(string(data), "\n") {
		switch {
		case line == "send":
			blocks = append(blocks, scriptBlock{})
			cur = &blocks[len(blocks)-1]
			inExpect = false
		case cur == nil && (line == "" || strings.HasPrefix(line, "#")):
		case cur == nil:
			t.Fatalf("%s:%d: expected \"send\"", path, i+1)
		case line == "----":
			inExpect = true
		case inExpect && line == "":
			cur = nil
		case inExpect:
			cur.expect = append(cur.expect, line)
		case line == "" || strings.HasPrefix(line, "#"):
		default:
			cur.send = append(cur.send, line)
		}
	}
	return blocks
}

// frontendMessage decodes one "send" line.
func frontendMessage(line string) (pgproto3.FrontendMessage, []byte, error) {
	name, arg, _ := strings.Cut(line, " ")
	if name == "raw" {
		b, err := hex.DecodeString(strings.ReplaceAll(arg, " ", ""))
		return nil, b, err
	}
	var msg pgproto3.FrontendMessage
	switch name {
	case "Query":
		msg = &pgproto3.Query{}
	case "Parse":
		msg = &pgproto3.Parse{}
	case "Bind":
		msg = &pgproto3.Bind{}
	case "Describe":
		msg = &pgproto3.Describe{}
	case "Execute":
		msg = &pgproto3.Execute{}
	case "Close":
		msg = &pgproto3.Close{}
	case "Sync":
		msg = &pgproto3.Sync{}
	case "Flush":
		msg = &pgproto3.Flush{}
	case "Terminate":
		msg = &pgproto3.Terminate{}
	case "CopyData":
		msg = &pgproto3.CopyData{}
	case "CopyDone":
		msg = &pgproto3.CopyDone{}
	case "CopyFail":
		msg = &pgproto3.CopyFail{}
	case "FunctionCall":
		msg = &pgproto3.FunctionCall{}
	default:
		return nil, nil, fmt.Errorf("unknown message %q", name)
	}
	if arg != "" {
		if err := json.Unmarshal([]byte(arg), msg); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return msg, nil, nil
}

// renderBackend prints a backend message in the compact golden form.
func renderBackend(msg pgproto3.BackendMessage) string {
	switch m := msg.(type) {
	case *pgproto3.RowDescription:
		var b strings.Builder
		b.WriteString("RowDescription")
		for _, f := range m.Fields {
			fmt.Fprintf(&b, " %q:%d/%d/%d/%d", f.Name, f.DataTypeOID, f.DataTypeSize, f.TypeModifier, f.Format)
		}
		return b.String()
	case *pgproto3.DataRow:
		var b strings.Builder
		b.WriteString("DataRow")
		for _, v := range m.Values {
			b.WriteByte(' ')
			b.WriteString(renderValue(v))
		}
		return b.String()
	case *pgproto3.CommandComplete:
		return fmt.Sprintf("CommandComplete %q", m.CommandTag)
	case *pgproto3.ReadyForQuery:
		return "ReadyForQuery " + string(m.TxStatus)
	case *pgproto3.ErrorResponse:
		return renderError("ErrorResponse", m.Severity, m.Code, m.Message, m.Detail, m.Hint, m.Position)
	case *pgproto3.NoticeResponse:
		return renderError("NoticeResponse", m.Severity, m.Code, m.Message, m.Detail, m.Hint, m.Position)
	case *pgproto3.ParameterStatus:
		return fmt.Sprintf("ParameterStatus %s=%q", m.Name, m.Value)
	case *pgproto3.ParameterDescription:
		return fmt.Sprintf("ParameterDescription %v", m.ParameterOIDs)
	}
	name := fmt.Sprintf("%T", msg)
	return strings.TrimPrefix(name, "*pgproto3.")
}

func renderValue(v []byte) string {
	if v == nil {
		return "NULL"
	}
	for _, c := range v {
		if c < 32 || c == 127 {
			return `\x` + hex.EncodeToString(v)
		}
	}
	if !utf8.Valid(v) {
		return `\x` + hex.EncodeToString(v)
	}
	return strconv.Quote(string(v))
}

func renderError(kind, severity, code, message, detail, hint string, position int32) string {
	s := fmt.Sprintf("%s %s %s %q", kind, severity, code, message)
	if detail != "" {
		s += fmt.Sprintf(" detail=%q", detail)
	}
	if hint != "" {
		s += fmt.Sprintf(" hint=%q", hint)
	}
	if position != 0 {
		s += fmt.Sprintf(" position=%d", position)
	}
	return s
}

// startupFrontend opens a connection to addr and completes the startup
// handshake as user "postgres".
func startupFrontend(t testing.TB, addr string) (net.Conn, *pgproto3.Frontend) {
	t.Helper()
	conn, fe, _ := startupFrontendKey(t, addr)
	return conn, fe
}

// startupFrontendKey is startupFrontend that also returns the session's
// cancel key.
func startupFrontendKey(t testing.TB, addr string) (net.Conn, *pgproto3.Frontend, pgproto3.BackendKeyData) {
	t.Helper()
	var key pgproto3.BackendKeyData
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fe := pgproto3.NewFrontend(conn, conn)
	fe.Send(&pgproto3.StartupMessage{
		ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters:      map[string]string{"user": "postgres", "database": "postgres"},
	})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		msg, err := fe.Receive()
		if err != nil {
			t.Fatalf("startup: %v", err)
		}
		switch m := msg.(type) {
		case *pgproto3.ErrorResponse:
			t.Fatalf("startup: %s", m.Message)
		case *pgproto3.BackendKeyData:
			key = pgproto3.BackendKeyData{ProcessID: m.ProcessID, SecretKey: append([]byte(nil), m.SecretKey...)}
		case *pgproto3.ReadyForQuery:
			conn.SetReadDeadline(time.Time{})
			return conn, fe, key
		}
	}
}

// runBlock sends a block's messages and collects the server's answers: until
// one ReadyForQuery per Sync sent (per Query or FunctionCall when there is
// no Sync), until
// the connection closes, or, for blocks that expect no ReadyForQuery, until
// the server stays quiet.
func runBlock(t testing.TB, conn net.Conn, fe *pgproto3.Frontend, send []string) []string {
	t.Helper()
	queries, syncs := 0, 0
	for _, line := range send {
		msg, raw, err := frontendMessage(line)
		if err != nil {
			t.Fatal(err)
		}
		if raw != nil {
			if err := fe.Flush(); err != nil {
				return []string{"(closed)"}
			}
			if _, err := conn.Write(raw); err != nil {
				return []string{"(closed)"}
			}
			q, s := countFramed(raw)
			queries += q
			syncs += s
			continue
		}
		switch msg.(type) {
		case *pgproto3.Query, *pgproto3.FunctionCall:
			queries++
		case *pgproto3.Sync:
			syncs++
		}
		fe.Send(msg)
	}
	if err := fe.Flush(); err != nil {
		return []string{"(closed)"}
	}
	// A Query inside an extended batch is skipped after an error, so a
	// batch with a Sync is taken to end with its Syncs.
	wantReady := syncs
	if syncs == 0 {
		wantReady = queries
	}
	var out []string
	for ready := 0; wantReady == 0 || ready < wantReady; {
		timeout := 5 * time.Second
		if wantReady == 0 {
			timeout = 300 * time.Millisecond
		}
		conn.SetReadDeadline(time.Now().Add(timeout))
		msg, err := fe.Receive()
		if err != nil {
			var ne net.Error
			switch {
			case wantReady == 0 && errors.As(err, &ne) && ne.Timeout():
			case errors.As(err, &ne) && ne.Timeout():
				out = append(out, "(timeout)")
			case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed), isConnReset(err):
				out = append(out, "(closed)")
			default:
				t.Fatalf("receive: %v", err)
			}
			break
		}
		if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
			ready++
		}
		out = append(out, renderBackend(msg))
	}
	conn.SetReadDeadline(time.Time{})
	return out
}

// countFramed counts the Query and Sync messages in raw bytes, as far as
// they are framed like messages.
func countFramed(raw []byte) (queries, syncs int) {
	for len(raw) >= 5 {
		n := int(binary.BigEndian.Uint32(raw[1:]))
		if n < 4 || n+1 > len(raw) {
			break
		}
		switch raw[0] {
		case 'Q', 'F':
			queries++
		case 'S':
			syncs++
		}
		raw = raw[n+1:]
	}
	return queries, syncs
}

func isConnReset(err error) bool {
	return err != nil && strings.Contains(err.Error(), "connection reset")
}

// runScriptFile plays a script against addr and returns the transcript in
// the script's own format, expectations replaced by what was received.
func runScriptFile(t *testing.T, addr, path string) (got, want string) {
	blocks := parseScript(t, path)
	conn, fe := startupFrontend(t, addr)
	var g, w strings.Builder
	for i, b := range blocks {
		if i > 0 {
			g.WriteByte('\n')
			w.WriteByte('\n')
		}
		out := runBlock(t, conn, fe, b.send)
		for _, sb := range []*strings.Builder{&g, &w} {
			sb.WriteString("send\n")
			for _, l := range b.send {
				sb.WriteString(l + "\n")
			}
			sb.WriteString("----\n")
		}
		for _, l := range out {
			g.WriteString(l + "\n")
		}
		for _, l := range b.expect {
			w.WriteString(l + "\n")
		}
	}
	return g.String(), w.String()
}

func scriptFiles(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "scripts", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	return files
}

// scriptHeader returns the leading comment lines of a script, which are kept
// when the file is rewritten.
func scriptHeader(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var b strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if !strings.HasPrefix(sc.Text(), "#") {
			break
		}
		b.WriteString(sc.Text() + "\n")
	}
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	return b.String()
}
