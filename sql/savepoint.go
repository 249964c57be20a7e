package sql

import (
	"context"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/types"
)

// savepoint is the state of a transaction block when SAVEPOINT ran: a
// copy of its pending changes and how many objects it had created.
type savepoint struct {
	name   string
	tables map[uint64]*txnTable
	// undo, notifies and listens are how many of the block's catalog
	// changes, notifications and LISTENs came before the savepoint.
	undo, notifies, listens int
}

// copyTables copies a transaction's pending changes, so that later
// statements do not change the copy.
func copyTables(in map[uint64]*txnTable) map[uint64]*txnTable {
	out := make(map[uint64]*txnTable, len(in))
	for id, tt := range in {
		c := &txnTable{obj: tt.obj, changes: make(map[string]*pendingRow, len(tt.changes)), order: slices.Clone(tt.order), nextTmp: tt.nextTmp}
		for k, p := range tt.changes {
			cp := *p
			c.changes[k] = &cp
		}
		out[id] = c
	}
	return out
}

// bindSavepoint binds SAVEPOINT, RELEASE SAVEPOINT and ROLLBACK TO
// SAVEPOINT. Rolling back to a savepoint discards the changes made after
// it, drops the objects created after it, and ends a failed state, as in
// PostgreSQL; clients use it to recover from an error inside a block.
func (s *session) bindSavepoint(ts *pg_query.TransactionStmt) *boundStmt {
	name := ts.SavepointName
	b := independent(nil, func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
		t := s.txn
		if t == nil || t.implicit {
			what := map[pg_query.TransactionStmtKind]string{
				pg_query.TransactionStmtKind_TRANS_STMT_SAVEPOINT:   "SAVEPOINT",
				pg_query.TransactionStmtKind_TRANS_STMT_RELEASE:     "RELEASE SAVEPOINT",
				pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO: "ROLLBACK TO SAVEPOINT",
			}[ts.Kind]
			return nil, pgerr.New(pgerr.NoActiveSQLTransaction, "%s can only be used in transaction blocks", what)
		}
		if ts.Kind == pg_query.TransactionStmtKind_TRANS_STMT_SAVEPOINT {
			t.savepoints = append(t.savepoints, savepoint{name: name, tables: copyTables(t.tables), undo: len(t.undo), notifies: len(t.notifies), listens: len(t.listens)})
			return commandResult("SAVEPOINT"), nil
		}
		i := len(t.savepoints) - 1
		for i >= 0 && t.savepoints[i].name != name {
			i--
		}
		if i < 0 {
			return nil, pgerr.New(pgerr.InvalidSavepointSpecification, "savepoint %q does not exist", name)
		}
		if ts.Kind == pg_query.TransactionStmtKind_TRANS_STMT_RELEASE {
			t.savepoints = t.savepoints[:i]
			return commandResult("RELEASE"), nil
		}
		sp := t.savepoints[i]
		t.savepoints = t.savepoints[:i+1]
		t.tables = copyTables(sp.tables)
		later := slices.Clone(t.undo[sp.undo:])
		t.undo, t.notifies, t.listens = t.undo[:sp.undo], t.notifies[:sp.notifies], t.listens[:sp.listens]
		s.undoSteps(ctx, later)
		t.state = txnOpen
		return commandResult("ROLLBACK"), nil
	})
	b.txnControl = ts.Kind == pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO
	return b
}
