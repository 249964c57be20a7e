package pgwire

import (
	"encoding/binary"
	"io"
	"math"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

const (
	// flushSize is how much output is batched before it is written while a
	// statement streams rows, so a large result goes out in steady chunks
	// and memory stays bounded.
	flushSize = 32 << 10
	// maxKeptBuffer is the largest buffer kept between flushes; one huge
	// row does not pin its memory for the life of the connection.
	maxKeptBuffer = 1 << 20
)

// writer batches the messages sent to one client. The connection goroutine
// appends messages and flushes at ReadyForQuery, Flush and PortalSuspended,
// and whenever flushSize bytes are pending. The engine may call the
// Notifier methods from any goroutine, so every method takes mu; none calls
// out of pgwire while holding it.
type writer struct {
	mu  sync.Mutex
	out io.Writer
	buf []byte
	// status holds ParameterStatus reports waiting for ReadyForQuery.
	status [][2]string
	err    error // first write error; the connection is dead after it
	// idle is set while the connection waits for the client's next
	// message: a ParameterStatus report then goes out at once, as no
	// ReadyForQuery is coming to carry it.
	idle atomic.Bool
	// notifications wait for the session to be out of a transaction
	// block; inBlock is the status of the last ReadyForQuery ('T' or 'E').
	notifications []*pgproto3.NotificationResponse
	inBlock       bool
}

var _ Notifier = (*writer)(nil)

func newWriter(out io.Writer) *writer {
	return &writer{out: out, buf: make([]byte, 0, 4096)}
}

// send appends a message.
func (w *writer) send(msg pgproto3.BackendMessage) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.appendLocked(msg)
	return w.err
}

func (w *writer) appendLocked(msg pgproto3.BackendMessage) {
	if w.err != nil {
		return
	}
	buf, err := msg.Encode(w.buf)
	if err != nil {
		w.err = err
		return
	}
	w.buf = buf
	if len(w.buf) >= flushSize {
		w.flushLocked()
	}
}

// raw writes bytes that are not a message (the one-byte answer to an
// SSLRequest) and flushes.
func (w *writer) raw(b ...byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, b...)
	w.flushLocked()
	return w.err
}

// dataRow appends a DataRow for row.
func (w *writer) dataRow(row types.Row, cols []Column, formats []int16, cfg *types.TextConfig) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.buf = appendDataRow(w.buf, row, cols, formats, cfg)
	if len(w.buf) >= flushSize {
		w.flushLocked()
	}
	return w.err
}

// rowDescription appends a RowDescription for cols, of which the
// protocol counts at most 32,767.
func (w *writer) rowDescription(cols []Column, formats []int16) error {
	if len(cols) > math.MaxInt16 {
		return localf(pgerr.TooManyColumns, "a result of %d columns cannot be described", len(cols))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.buf = appendRowDescription(w.buf, cols, formats)
	}
	return w.err
}

// commandComplete appends CommandComplete with the given tag.
func (w *writer) commandComplete(tag string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.buf = append(w.buf, 'C', 0, 0, 0, 0)
		w.buf = append(w.buf, tag...)
		w.buf = append(w.buf, 0)
		binary.BigEndian.PutUint32(w.buf[len(w.buf)-len(tag)-5:], uint32(len(tag)+5))
	}
	return w.err
}

// readyForQuery sends the pending ParameterStatus reports and
// ReadyForQuery, and flushes.
func (w *writer) readyForQuery(txStatus byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.status {
		w.appendLocked(&pgproto3.ParameterStatus{Name: s[0], Value: s[1]})
	}
	w.status = w.status[:0]
	w.inBlock = txStatus != 'I'
	if !w.inBlock {
		for _, n := range w.notifications {
			w.appendLocked(n)
		}
		w.notifications = w.notifications[:0]
	}
	w.appendLocked(&pgproto3.ReadyForQuery{TxStatus: txStatus})
	w.flushLocked()
	return w.err
}

// flush writes everything pending.
func (w *writer) flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushLocked()
	return w.err
}

func (w *writer) flushLocked() {
	if w.err != nil || len(w.buf) == 0 {
		return
	}
	_, w.err = w.out.Write(w.buf)
	if cap(w.buf) > maxKeptBuffer {
		w.buf = make([]byte, 0, 4096)
	} else {
		w.buf = w.buf[:0]
	}
}

// setOut redirects output after a TLS upgrade.
func (w *writer) setOut(out io.Writer) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.out = out
}

// failed returns the write error that ended the connection, if any.
func (w *writer) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Notice implements Notifier. Like PostgreSQL it flushes at once, so
// notices raised during a long statement reach the client as they happen.
func (w *writer) Notice(n *pgerr.Error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.appendLocked(noticeResponse(n))
	w.flushLocked()
}

// ParameterStatus implements Notifier.
func (w *writer) ParameterStatus(name, value string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.idle.Load() {
		w.appendLocked(&pgproto3.ParameterStatus{Name: name, Value: value})
		w.flushLocked()
		return
	}
	for i := range w.status {
		if w.status[i][0] == name {
			w.status[i][1] = value
			return
		}
	}
	w.status = append(w.status, [2]string{name, value})
}

// Notification implements Notifier. As in PostgreSQL a notification
// reaches a session only outside a transaction block: at once when the
// session is idle, otherwise just before the ReadyForQuery that ends its
// block or its statement.
func (w *writer) Notification(pid uint32, channel, payload string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := &pgproto3.NotificationResponse{PID: pid, Channel: channel, Payload: payload}
	if w.idle.Load() && !w.inBlock {
		w.appendLocked(n)
		w.flushLocked()
		return
	}
	w.notifications = append(w.notifications, n)
}
