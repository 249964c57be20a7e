package sql

import (
	"context"
	"log/slog"
	"slices"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/pgerr"
)

// # Serving while the store opens
//
// Opening the store can take seconds: Pebble replays its log and
// flushes it before anything can be read, and only then are the
// catalog and the roles known. A server started with Start listens
// meanwhile: a client that needs no password (trust) completes its
// startup at once, and its session is pending until the engine has
// opened. A pending session answers at once what reads no object and
// no role (SELECT 1, SET and SHOW of a setting: see engineFree); its
// first other statement waits for the engine, as long as the statement
// may run (a cancel or statement_timeout ends the wait), and is then
// admitted: its role is checked as Connect checks it, and a role that
// may not log in ends the connection with PostgreSQL's FATAL error
// then, instead of at startup. A client that must give a password waits
// in the handshake instead, since the verifiers are in the store
// (LoginRole). When the store fails to open, every waiting statement
// fails with 57P03 and the reason, and Run returns it.

// Start opens the engine on the data directory in the background and
// returns at once; see Open for what opening does. Sessions may connect
// at once (see "Serving while the store opens"); Wait waits for the
// opening.
func Start(ctx context.Context, cfg Config) *Frontend {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	limit := cfg.MemoryLimit
	if limit == 0 {
		limit = defaultMemoryLimit()
	}
	e := &Frontend{log: log, sessions: map[uint32]*session{}, guard: newMemoryGuard(limit, log), logParams: cfg.LogParameters,
		advisory: newAdvisoryLocks(), notify: newNotifyHub(), egress: cfg.Egress, opened: make(chan struct{}), empty: engine.EmptySnapshot()}
	go func() {
		defer close(e.opened)
		e.eng, e.mockNonce, e.openErr = openEngine(ctx, cfg, log)
		e.started = time.Now()
	}()
	return e
}

// Wait waits until the engine has opened, and returns the error it
// failed to open with.
func (e *Frontend) Wait(ctx context.Context) error {
	select {
	case <-e.opened:
		return e.openErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ready reports whether the engine has opened; a failed opening counts.
func (e *Frontend) ready() bool {
	select {
	case <-e.opened:
		return true
	default:
		return false
	}
}

// startupError is what a statement waiting for an engine that failed
// to open gets.
func (e *Frontend) startupError() error {
	return pgerr.New(pgerr.CannotConnectNow, "the database system failed to start: %v", e.openErr)
}

// awaitEngine admits a pending session before a statement that needs
// the engine: it waits for the engine to open, as long as the statement
// may run, and then checks the session's role. A statement that needs
// no engine runs at once while the engine opens.
func (s *session) awaitEngine(ctx context.Context, raw *rawStatement) error {
	e := s.e
	if !e.ready() {
		if engineFree(raw) {
			return nil
		}
		if err := s.waitOpened(ctx); err != nil {
			return err
		}
	}
	if e.openErr != nil {
		return e.startupError()
	}
	return s.admit()
}

// waitOpened waits for the engine under the session's statement_timeout
// and the client's cancel.
func (s *session) waitOpened(ctx context.Context) error {
	var timeout <-chan time.Time
	v, _ := s.info.settings.get("statement_timeout")
	if d, err := parseTimeout(v); err == nil && d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-s.e.opened:
		return nil
	case <-timeout:
		return pgerr.New(pgerr.QueryCanceled, "canceling statement due to statement timeout")
	case <-ctx.Done():
		return pgerr.Canceled()
	}
}

// admit checks the role of a pending session once the engine has
// opened, as Connect checks it, and gives the session the role. A role
// that may not connect ends the connection (FATAL).
func (s *session) admit() error {
	e := s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	role, err := e.loginRole(e.snapshot().Catalog(), s.info.user, s.info.database)
	if err != nil {
		if pe := pgerr.As(err); pe != nil {
			pe.Severity = pgerr.SeverityFatal
		}
		return err
	}
	old := s.info.settings
	s.info.role, s.info.loginRole, s.info.super = role.ID, role.ID, role.RoleDef.Super
	s.info.settings = old.withSuperuser(role.RoleDef.Super)
	s.reportChanges(old)
	s.pending = false
	return nil
}

// withSuperuser returns a copy whose is_superuser says super.
func (s *settings) withSuperuser(super bool) *settings {
	n := &settings{values: slices.Clone(s.values), names: s.names}
	n.values[settingIndex["is_superuser"]] = map[bool]string{true: "on", false: "off"}[super]
	n.text = n.buildText()
	return n
}

// engineFree reports whether a statement reads neither an object nor the
// session's role, so that a pending session runs it before the engine
// has opened: SET, RESET and SHOW of a setting (not of the role, which
// is not known yet), and a SELECT of constants without FROM.
func engineFree(raw *rawStatement) bool {
	if raw.ours != nil || raw.node == nil {
		return false
	}
	n := raw.node
	switch {
	case n.GetVariableSetStmt() != nil:
		vs := n.GetVariableSetStmt()
		switch settingName(vs.Name) {
		case "role", "session_authorization", "is_superuser":
			return false
		}
		return vs.Kind != pg_query.VariableSetKind_VAR_SET_MULTI && vs.Kind != pg_query.VariableSetKind_VAR_RESET_ALL
	case n.GetVariableShowStmt() != nil:
		name := settingName(n.GetVariableShowStmt().Name)
		_, known := settingIndex[name]
		return known && name != "is_superuser" && name != "role"
	case n.GetSelectStmt() != nil:
		sel := n.GetSelectStmt()
		if len(sel.FromClause) > 0 || sel.WithClause != nil || sel.Larg != nil || sel.ValuesLists != nil ||
			sel.IntoClause != nil || sel.WhereClause != nil || len(sel.GroupClause) > 0 || sel.HavingClause != nil ||
			len(sel.SortClause) > 0 || sel.LimitCount != nil || sel.LimitOffset != nil || len(sel.LockingClause) > 0 ||
			len(sel.DistinctClause) > 0 || len(sel.WindowClause) > 0 || len(sel.TargetList) == 0 {
			return false
		}
		for _, t := range sel.TargetList {
			rt := t.GetResTarget()
			if rt == nil || !constantExpr(rt.Val) {
				return false
			}
		}
		return true
	}
	return false
}

// constantExpr reports whether an expression is made of constants and
// the built-in operators on them, which bind without a catalog.
func constantExpr(n *pg_query.Node) bool {
	switch {
	case n == nil:
		return false
	case n.GetAConst() != nil:
		return true
	case n.GetAExpr() != nil:
		x := n.GetAExpr()
		if x.Kind != pg_query.A_Expr_Kind_AEXPR_OP || len(x.Name) != 1 {
			return false
		}
		return (x.Lexpr == nil || constantExpr(x.Lexpr)) && constantExpr(x.Rexpr)
	case n.GetBoolExpr() != nil:
		for _, a := range n.GetBoolExpr().Args {
			if !constantExpr(a) {
				return false
			}
		}
		return true
	}
	return false
}
