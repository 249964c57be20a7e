package sql

import (
	"context"
	"log/slog"
	"runtime/debug"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/types"
)

// statement is one parsed statement of a session (pgwire.Statement). It
// caches its binding for the catalog version it was bound against.
type statement struct {
	s         *session
	raw       *rawStatement
	paramOIDs []uint32
	bound     *boundStmt
}

// boundStmt is a statement resolved against one catalog version: its
// parameter and result types and the function that runs it.
type boundStmt struct {
	catVersion uint64
	settings   *settings
	params     []types.Type
	cols       []pgwire.Column
	// run executes the statement.
	run func(ctx context.Context, s *session, params []types.Datum) (pgwire.Result, error)
	// txnControl statements (COMMIT, ROLLBACK) run in a failed
	// transaction; everything else is refused there.
	txnControl bool
	// catalogIndependent statements need no rebinding when the catalog
	// changes.
	catalogIndependent bool
	// rebind statements depend on session state (FETCH on a cursor) and
	// are bound again every time.
	rebind bool
	// needs are the privileges the statement needs, checked each time
	// it executes (privileges.go).
	needs []privNeed
}

// Describe binds the statement (pgwire.Statement).
func (st *statement) Describe(ctx context.Context, paramOIDs []uint32) (_ []types.Type, _ []pgwire.Column, err error) {
	defer st.s.recoverPanic(&err)
	if st.raw, err = st.raw.parsed(); err != nil {
		return nil, nil, err
	}
	if st.s.pending {
		if err := st.s.awaitEngine(ctx, st.raw); err != nil {
			st.s.fail()
			return nil, nil, err
		}
	}
	st.paramOIDs = paramOIDs
	st.bound = nil
	b, err := st.bind()
	if err != nil {
		// As any error in a transaction block, one found while planning
		// (a constant 1 / 0) fails the block.
		st.s.fail()
		return nil, nil, err
	}
	return b.params, b.cols, nil
}

// Execute runs the statement (pgwire.Statement).
func (st *statement) Execute(ctx context.Context, params []types.Datum) (_ pgwire.Result, err error) {
	s := st.s
	defer s.recoverPanic(&err)
	if st.raw, err = st.raw.parsed(); err != nil {
		return nil, err
	}
	if s.pending {
		if err := s.awaitEngine(ctx, st.raw); err != nil {
			s.fail()
			return nil, err
		}
	}
	if s.txn != nil && s.txn.state == txnFailed {
		if !isTxnControl(st.raw) {
			return nil, pgerr.New(pgerr.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
		}
	}
	b, err := st.bind()
	if err == nil {
		err = s.checkNeeds(s.e.snapshot().Catalog(), b.needs)
	}
	if err != nil {
		s.fail()
		return nil, err
	}
	s.logStatement(ctx, st, params)
	res, err := s.runTracked(ctx, b, params)
	if err != nil {
		s.fail()
		return nil, err
	}
	if s.txn != nil && s.txn.implicit && !s.block {
		if err := s.commit(ctx); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// runTracked runs a bound statement under the memory guard and the
// session's statement_timeout (see stmtRun). The execution ends when run
// returns, or, for a result whose work goes on, when it is closed.
func (s *session) runTracked(ctx context.Context, b *boundStmt, params []types.Datum) (res pgwire.Result, err error) {
	sctx, run := s.startRun(ctx, !b.txnControl)
	detach := run.attach(ctx)
	s.stmtDone = sctx.Done()
	defer func() {
		detach()
		err = run.err(err)
		if l, ok := res.(lingering); ok && err == nil {
			l.linger(run)
			return
		}
		run.end()
	}()
	return b.run(sctx, s, params)
}

// recoverPanic turns a panic while binding or running a statement on the
// session's goroutine into an internal error (XX000) of that statement,
// logged with its stack. As PostgreSQL does with an internal error, the
// statement fails, and with it the transaction block it is in, and the
// session goes on: without this, the connection ended with FATAL. What
// the statement holds of the engine's shared state is released by defers
// (its snapshot pins, its place in the memory guard), and it changes
// that state only through the coordinator, which recovers from panics in
// catalog changes itself (runDDL).
func (s *session) recoverPanic(err *error) {
	p := recover()
	if p == nil {
		return
	}
	*err = internalError(s.e.log, "panic in a statement; it fails", p)
	s.fail()
}

// bind binds the statement against the latest catalog, reusing the
// previous binding when the catalog has not changed.
func (st *statement) bind() (*boundStmt, error) {
	snap := st.s.e.snapshot()
	if st.bound != nil && st.bound.valid(snap.Catalog(), st.s.info.settings) {
		return st.bound, nil
	}
	key := bindKey{raw: st.raw, oids: oidKey(st.paramOIDs)}
	if b, ok := st.s.bound[key]; ok && b.valid(snap.Catalog(), st.s.info.settings) {
		st.bound = b
		return b, nil
	}
	params := make([]types.Type, len(st.paramOIDs))
	for i, oid := range st.paramOIDs {
		if oid == 0 {
			params[i] = types.TypeUnknown
			continue
		}
		t, ok := types.TypeForOID(oid)
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedObject, "type with OID %d does not exist", oid)
		}
		params[i] = t
	}
	b, err := st.s.bindStatement(snap.Catalog(), st.raw, params)
	if err != nil {
		return nil, shiftPosition(err, st.raw.offset)
	}
	b.catVersion, b.settings = snap.Catalog().Version, st.s.info.settings
	st.bound = b
	if len(st.s.bound) >= maxParseCache {
		clear(st.s.bound)
	}
	st.s.bound[key] = b
	return b, nil
}

// bindKey identifies a binding in the session's cache: clients such as
// pgbench and pgx send Parse for the same text again and again, and the
// parse cache hands back the same rawStatement for it.
type bindKey struct {
	raw  *rawStatement
	oids string
}

func oidKey(oids []uint32) string {
	b := make([]byte, 0, 4*len(oids))
	for _, o := range oids {
		b = append(b, byte(o>>24), byte(o>>16), byte(o>>8), byte(o))
	}
	return string(b)
}

// valid reports whether a binding still holds: it was made against the
// same catalog version and session settings (which decide how literals
// such as timestamps are read).
func (b *boundStmt) valid(cat *catalog.Catalog, set *settings) bool {
	return !b.rebind && (b.catalogIndependent || b.catVersion == cat.Version && b.settings == set)
}

// fail records a statement error: an implicit transaction ends, an
// explicit one becomes failed until ROLLBACK.
func (s *session) fail() {
	if s.txn == nil {
		return
	}
	if s.txn.implicit {
		if !s.block {
			t := s.txn
			s.txn = nil
			s.endTxn(t, false)
		}
		return
	}
	s.txn.state = txnFailed
}

// writeTxn returns the transaction writes go into, starting an implicit
// one for a statement outside a transaction block.
func (s *session) writeTxn() *txn {
	if s.txn == nil {
		s.txn = newTxn(true)
	}
	return s.txn
}

// rowsResult is a materialised result (pgwire.Result).
type rowsResult struct {
	rows []types.Row
	tag  string
	i    int
}

func (r *rowsResult) Next(ctx context.Context) (types.Row, bool, error) {
	if r.i >= len(r.rows) {
		return nil, false, nil
	}
	if r.i&1023 == 0 && ctx.Err() != nil {
		return nil, false, pgerr.Canceled()
	}
	row := r.rows[r.i]
	r.i++
	return row, true, nil
}

func (r *rowsResult) Tag() string { return r.tag }
func (r *rowsResult) Close()      {}

// commandResult is the result of a statement that returns no rows.
func commandResult(tag string) pgwire.Result { return &rowsResult{tag: tag} }

// internalError logs a recovered panic p with its stack and returns the
// internal error (XX000) its statement fails with, for the two places
// that recover: a session's statements (session.recoverPanic) and the
// coordinator's catalog changes (coordinator.runDDL).
func internalError(log *slog.Logger, msg string, p any) error {
	log.Error(msg, "panic", p, "stack", string(debug.Stack()))
	return pgerr.New(pgerr.InternalError, "internal error: %v", p)
}
