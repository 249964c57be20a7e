package sql

import (
	"context"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// LISTEN, UNLISTEN and NOTIFY, with PostgreSQL's delivery rules: a
// notification is sent when the transaction that made it commits (never
// if it rolls back), once per distinct channel and payload within that
// transaction, in the order they were first made, to every session of
// the same database listening on the channel at that moment — the
// sender too. LISTEN and UNLISTEN inside a transaction block take
// effect when it commits. pgwire's Notifier holds a notification for a
// session that is inside a transaction block until the block ends.

// maxPayload is PostgreSQL's limit on a notification's payload (8000
// bytes with the default page size).
const maxPayload = 7999

// notification is one NOTIFY of a transaction.
type notification struct {
	channel, payload string
}

// listenOp is a LISTEN or UNLISTEN waiting for its transaction to
// commit; all is UNLISTEN *.
type listenOp struct {
	channel string
	listen  bool
	all     bool
}

// notifyHub routes notifications to the sessions that listen, by
// database and channel.
type notifyHub struct {
	mu        sync.Mutex
	listeners map[[2]string]map[*session]bool
}

func newNotifyHub() *notifyHub {
	return &notifyHub{listeners: map[[2]string]map[*session]bool{}}
}

func (h *notifyHub) listen(s *session, channel string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	k := [2]string{s.info.database, channel}
	if h.listeners[k] == nil {
		h.listeners[k] = map[*session]bool{}
	}
	h.listeners[k][s] = true
}

// unlisten stops s listening on channel, or on every channel with all.
func (h *notifyHub) unlisten(s *session, channel string, all bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, set := range h.listeners {
		if k[0] == s.info.database && (all || k[1] == channel) {
			delete(set, s)
			if len(set) == 0 {
				delete(h.listeners, k)
			}
		}
	}
}

// deliver sends a committed transaction's notifications.
func (h *notifyHub) deliver(from *session, ns []notification) {
	type target struct {
		n pgwire.Notifier
		notification
	}
	var out []target
	h.mu.Lock()
	for _, n := range ns {
		for s := range h.listeners[[2]string{from.info.database, n.channel}] {
			if s.notifier != nil {
				out = append(out, target{s.notifier, n})
			}
		}
	}
	h.mu.Unlock()
	for _, t := range out {
		t.n.Notification(from.pid, t.channel, t.payload)
	}
}

// notify queues a notification in the session's transaction, starting
// an implicit one outside a block.
func (s *session) notify(channel, payload string) error {
	if channel == "" {
		return pgerr.New(pgerr.InvalidParameterValue, "channel name cannot be empty")
	}
	if len(channel) >= 64 {
		return pgerr.New(pgerr.InvalidParameterValue, "channel name too long")
	}
	if len(payload) > maxPayload {
		return pgerr.New(pgerr.InvalidParameterValue, "payload string too long")
	}
	t := s.writeTxn()
	for _, n := range t.notifies {
		if n.channel == channel && n.payload == payload {
			return nil
		}
	}
	t.notifies = append(t.notifies, notification{channel, payload})
	return nil
}

// Notify implements scalar.Session (pg_notify).
func (v *catalogView) Notify(channel, payload string) error { return v.s.notify(channel, payload) }

// endTxn finishes what a transaction holds beyond its writes, once it
// has committed or rolled back: its LISTENs and NOTIFYs take effect only
// on commit, and its transaction-level advisory locks are released
// either way.
func (s *session) endTxn(t *txn, committed bool) {
	if t == nil {
		return
	}
	if t.xactLocks {
		s.e.advisory.release(s, true)
	}
	if !committed {
		return
	}
	for _, op := range t.listens {
		if op.listen {
			s.e.notify.listen(s, op.channel)
		} else {
			s.e.notify.unlisten(s, op.channel, op.all)
		}
	}
	if len(t.notifies) > 0 {
		s.e.notify.deliver(s, t.notifies)
	}
}

func (s *session) bindListen(ls *pg_query.ListenStmt) *boundStmt {
	return s.listenStmt("LISTEN", listenOp{channel: ls.Conditionname, listen: true})
}

func (s *session) bindUnlisten(us *pg_query.UnlistenStmt) *boundStmt {
	return s.listenStmt("UNLISTEN", listenOp{channel: us.Conditionname, all: us.Conditionname == ""})
}

// listenStmt queues a LISTEN or UNLISTEN in the session's transaction.
func (s *session) listenStmt(tag string, op listenOp) *boundStmt {
	return independent(nil, func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
		t := s.writeTxn()
		t.listens = append(t.listens, op)
		return commandResult(tag), nil
	})
}

func (s *session) bindNotify(ns *pg_query.NotifyStmt) *boundStmt {
	channel, payload := ns.Conditionname, ns.Payload
	return independent(nil, func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
		if err := s.notify(channel, payload); err != nil {
			return nil, err
		}
		return commandResult("NOTIFY"), nil
	})
}

// SerialSequence implements scalar.Session: pg_get_serial_sequence finds
// the sequence a serial or identity column's default calls, by the
// table's (possibly qualified and quoted) name and the column's plain
// name, as PostgreSQL reads them.
func (v *catalogView) SerialSequence(table, column string) (string, bool, error) {
	oid, err := v.ObjectOID(types.RegClass, table)
	if err != nil {
		return "", false, err
	}
	cat := v.snapshot().Catalog()
	t, ok := cat.ByID(uint64(oid))
	if !ok {
		return "", false, nil
	}
	col := columnIndex(t, column)
	if col < 0 {
		return "", false, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", column, t.Name)
	}
	for _, d := range cat.Dependents(t.ID) {
		if d.Sequence != nil && d.On == t.ID && t.Columns[col].Default == nextvalDefault(d.Name) {
			return parser.QuoteIdent(d.Schema) + "." + parser.QuoteIdent(d.Name), true, nil
		}
	}
	return "", false, nil
}
