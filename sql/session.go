package sql

import (
	"context"
	"strings"
	"time"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/types"
)

// session is one client connection's state: settings, the open
// transaction, and caches of parsed statements. pgwire calls it from the
// connection's goroutine only.
type session struct {
	e        *Frontend
	pid      uint32
	info     sessionInfo
	notifier pgwire.Notifier
	portals  pgwire.Portals
	started  time.Time

	txn *txn // open explicit or implicit transaction, nil when idle
	// block is set while a multi-statement simple query runs as one
	// implicit transaction.
	block bool

	// parsed caches the raw parse of recent query strings: clients send
	// the same statement text again and again (pgx prepares every query).
	parsed map[string][]rawStatement
	// bound caches bindings of parsed statements.
	bound map[bindKey]*boundStmt

	// currval is the value each sequence last gave the session, lastSeq
	// the sequence nextval last advanced (for lastval).
	currval map[uint64]int64
	lastSeq uint64

	// cursors are the open DECLARE CURSORs by name.
	cursors map[string]*cursor

	// stmtDone is closed when the running statement is canceled, for
	// the waits that happen outside the engine (pg_advisory_lock).
	stmtDone <-chan struct{}

	// pending is set while the session waits to be admitted: it
	// connected before the engine opened (see awaitEngine).
	pending bool

	// largeQuery is set while the statements of a query string of
	// largeQueryBytes or more run.
	largeQuery bool
}

// txnState is the state of an open transaction.
type txnState uint8

const (
	txnOpen txnState = iota
	txnFailed
)

func newSession(e *Frontend, st pgwire.Startup, role *catalog.Object) *session {
	user := role.Name
	db := st.Database
	if db == "" {
		db = user
	}
	s := &session{
		e:        e,
		pid:      st.ProcessID,
		notifier: st.Notifier,
		portals:  st.Portals,
		started:  time.Now(),
		parsed:   map[string][]rawStatement{},
		bound:    map[bindKey]*boundStmt{},
	}
	s.info = sessionInfo{user: user, database: db, role: role.ID, current: user, loginRole: role.ID, super: role.RoleDef.Super}
	s.info.settings = s.info.sessionSettings()
	s.info.settings = s.info.settings.withNames(s.catalogView(nil))
	return s
}

// applyStartupParams applies the settings a client sent at startup.
func (s *session) applyStartupParams(params map[string]string) error {
	for name, value := range params {
		switch strings.ToLower(name) {
		case "user", "database", "replication":
			continue
		case "options":
			if err := s.applyOptions(value); err != nil {
				return err
			}
			continue
		}
		next, _, err := s.info.settings.set(name, value, false)
		if err != nil {
			if pgerr.CodeOf(err) == pgerr.UndefinedObject {
				continue // PostgreSQL ignores unknown startup parameters too
			}
			return err
		}
		s.info.settings = next
	}
	return nil
}

// applyOptions applies "-c name=value" settings from the options
// startup parameter.
func (s *session) applyOptions(opts string) error {
	fields := strings.Fields(opts)
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		var kv string
		switch {
		case f == "-c" && i+1 < len(fields):
			i++
			kv = fields[i]
		case strings.HasPrefix(f, "-c"):
			kv = f[2:]
		case strings.HasPrefix(f, "--"):
			kv = f[2:]
		default:
			continue
		}
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		next, _, err := s.info.settings.set(strings.ReplaceAll(name, "-", "_"), value, false)
		if err != nil {
			return err
		}
		s.info.settings = next
	}
	return nil
}

// Parse splits a query string into statements (pgwire.Session).
func (s *session) Parse(ctx context.Context, query string) ([]pgwire.Statement, error) {
	raws, ok := s.parsed[query]
	if !ok {
		var err error
		if raws, err = parseQuery(query); err != nil {
			return nil, err
		}
		if len(s.parsed) >= maxParseCache {
			clear(s.parsed)
			clear(s.bound)
		}
		if len(raws) <= lazyStatements {
			s.parsed[query] = raws
		}
	}
	s.largeQuery = len(query) >= largeQueryBytes
	out := make([]pgwire.Statement, len(raws))
	for i := range raws {
		out[i] = &statement{s: s, raw: &raws[i]}
	}
	return out, nil
}

// maxParseCache bounds the per-session parse cache.
const maxParseCache = 256

// largeQueryBytes is the size of a query string whose statements' memory
// is returned to the operating system once they have run (see EndBlock):
// ten megabytes of SELECT 1; are a million statements, and the hundreds
// of megabytes they take would stay resident for minutes.
const largeQueryBytes = 1 << 20

// ParameterStatuses returns the settings reported after startup.
func (s *session) ParameterStatuses() [][2]string { return s.info.settings.reported() }

// TextConfig returns the text encoding settings.
func (s *session) TextConfig() *types.TextConfig { return s.info.settings.textConfig() }

// TxStatus returns the ReadyForQuery status.
func (s *session) TxStatus() byte {
	switch {
	case s.txn == nil || s.txn.implicit:
		return 'I'
	case s.txn.state == txnFailed:
		return 'E'
	}
	return 'T'
}

// BeginBlock starts the implicit transaction of a multi-statement query.
func (s *session) BeginBlock() { s.block = true }

// EndBlock commits or rolls back the implicit transaction of a block.
func (s *session) EndBlock(err error) error {
	s.block = false
	if s.largeQuery {
		s.largeQuery = false
		s.e.guard.returnMemory()
	}
	if s.txn == nil || !s.txn.implicit {
		return nil
	}
	if err != nil {
		t := s.txn
		s.txn = nil
		s.endTxn(t, false)
		return nil
	}
	return s.commit(context.Background())
}

// Abort marks an open transaction block failed after a protocol error.
func (s *session) Abort(err error) {
	if s.txn != nil && !s.txn.implicit {
		s.txn.state = txnFailed
	}
}

// Close rolls back any open transaction.
func (s *session) Close() {
	s.rollback(context.Background())
	s.e.advisory.release(s, false)
	s.e.notify.unlisten(s, "", true)
	s.e.forget(s)
}

func (s *session) notice(n *pgerr.Error) {
	if s.notifier != nil {
		if n.Severity == "" {
			n.Severity = pgerr.SeverityNotice
		}
		s.notifier.Notice(n)
	}
}
