package pgwire

import (
	"bufio"
	"encoding/binary"
	"io"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/pgerr"
)

// Message framing is done here rather than by pgproto3.Backend so that the
// server can answer like PostgreSQL does: an unknown message type is
// rejected by its type byte before its length is trusted ("invalid frontend
// message type 90"), a malformed body of a well-framed message is an
// ordinary ERROR after which the connection goes on, and the bytes buffered
// after an SSLRequest are visible (PostgreSQL refuses them, CVE-2021-23214).
// The bodies are decoded by pgproto3's message types.

const (
	// maxStartupPacket is PostgreSQL's MAX_STARTUP_PACKET_LENGTH.
	maxStartupPacket = 10000
	// readChunk bounds how much body memory is committed before the bytes
	// arrive, so a huge length prefix with no data behind it costs little.
	readChunk = 1 << 20
)

// Codes of the packets that may open a connection in place of a
// StartupMessage.
const (
	cancelRequestCode = 80877102
	sslRequestCode    = 80877103
	gssEncRequestCode = 80877104
)

// msgReader reads frontend messages from one connection.
type msgReader struct {
	br   *bufio.Reader
	hdr  [5]byte // kept here so that reading it does not allocate
	body []byte
	max  int // largest accepted body, in bytes
	msgs frontendMessages
}

// frontendMessages holds one reusable value per message type.
type frontendMessages struct {
	query        pgproto3.Query
	parse        pgproto3.Parse
	bind         pgproto3.Bind
	describe     pgproto3.Describe
	execute      pgproto3.Execute
	close        pgproto3.Close
	sync         pgproto3.Sync
	flush        pgproto3.Flush
	terminate    pgproto3.Terminate
	functionCall pgproto3.FunctionCall
	copyData     pgproto3.CopyData
	copyDone     pgproto3.CopyDone
	copyFail     pgproto3.CopyFail
}

func newMsgReader(r io.Reader, maxBody int) *msgReader {
	return &msgReader{br: bufio.NewReaderSize(r, 8192), max: maxBody}
}

// startupPacket reads the length-prefixed packet that opens a connection and
// returns its body.
func (r *msgReader) startupPacket() ([]byte, error) {
	hdr := r.hdr[:4]
	if _, err := io.ReadFull(r.br, hdr); err != nil {
		return nil, err
	}
	n := int(int32(binary.BigEndian.Uint32(hdr))) - 4
	if n < 4 || n > maxStartupPacket {
		return nil, fatal(pgerr.ProtocolViolation, "invalid length of startup packet")
	}
	return r.readBody(n)
}

// next reads one message and decodes it. A framing error (unknown type,
// bad length, connection failure) is returned as err and ends the
// connection; a body that does not decode is returned as decodeErr beside
// the message, and the connection can go on. password is where a 'p'
// message (the answer to an authentication request, whose layout depends on
// the request) is decoded; nil when none is expected.
func (r *msgReader) next(password pgproto3.FrontendMessage) (msg pgproto3.FrontendMessage, decodeErr, err error) {
	hdr := r.hdr[:]
	if _, err := io.ReadFull(r.br, hdr[:1]); err != nil {
		return nil, nil, err
	}
	msg = r.msgs.forType(hdr[0])
	if hdr[0] == 'p' && password != nil {
		msg = password
	}
	if msg == nil {
		return nil, nil, fatal(pgerr.ProtocolViolation, "invalid frontend message type %d", hdr[0])
	}
	if _, err := io.ReadFull(r.br, hdr[1:]); err != nil {
		return nil, nil, unexpectedEOF(err)
	}
	n := int(int32(binary.BigEndian.Uint32(hdr[1:]))) - 4
	if n < 0 || n > r.max {
		return nil, nil, fatal(pgerr.ProtocolViolation, "invalid message length")
	}
	body, err := r.readBody(n)
	if err != nil {
		return nil, nil, unexpectedEOF(err)
	}
	if err := msg.Decode(body); err != nil {
		return msg, pgerr.New(pgerr.ProtocolViolation, "invalid message format"), nil
	}
	return msg, nil, nil
}

// peekType returns the type byte of the next message without consuming it.
func (r *msgReader) peekType() (byte, error) {
	b, err := r.br.Peek(1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

// readBody reads n bytes into the reusable body buffer. A large body is read
// in chunks so that memory grows with the data actually received.
func (r *msgReader) readBody(n int) ([]byte, error) {
	if cap(r.body) > readChunk && n <= readChunk {
		r.body = nil // let a one-off huge buffer go
	}
	if n <= cap(r.body) {
		r.body = r.body[:n]
		_, err := io.ReadFull(r.br, r.body)
		return r.body, err
	}
	r.body = r.body[:0]
	for len(r.body) < n {
		step := min(n-len(r.body), readChunk)
		r.body = append(r.body, make([]byte, step)...)
		if _, err := io.ReadFull(r.br, r.body[len(r.body)-step:]); err != nil {
			return nil, err
		}
	}
	return r.body, nil
}

// buffered reports whether bytes beyond the last message have been read
// from the connection already.
func (r *msgReader) buffered() bool { return r.br.Buffered() > 0 }

// forType returns the reusable message for a type byte, nil for a type a
// client may not send once the session has started.
func (m *frontendMessages) forType(t byte) pgproto3.FrontendMessage {
	switch t {
	case 'Q':
		return &m.query
	case 'P':
		return &m.parse
	case 'B':
		return &m.bind
	case 'D':
		return &m.describe
	case 'E':
		return &m.execute
	case 'C':
		return &m.close
	case 'S':
		return &m.sync
	case 'H':
		return &m.flush
	case 'X':
		return &m.terminate
	case 'F':
		return &m.functionCall
	case 'd':
		return &m.copyData
	case 'c':
		return &m.copyDone
	case 'f':
		return &m.copyFail
	}
	return nil
}

func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
