package sql

import (
	"context"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/types"
)

// bindStatement binds a statement and records the privileges it needs.
func (s *session) bindStatement(cat *catalog.Catalog, raw *rawStatement, params []types.Type) (*boundStmt, error) {
	needs := &privNeeds{}
	s.info.needs = needs
	defer func() { s.info.needs = nil }()
	b, err := s.bindKind(cat, raw, params)
	if err != nil {
		return nil, err
	}
	b.needs = needs.list
	return b, nil
}

// bindKind dispatches on the statement kind.
func (s *session) bindKind(cat *catalog.Catalog, raw *rawStatement, params []types.Type) (*boundStmt, error) {
	if raw.ours != nil {
		return s.bindStreamdb(cat, raw, params)
	}
	n := raw.node
	switch {
	case n.GetSelectStmt() != nil:
		return s.bindQuery(cat, raw, params)
	case n.GetInsertStmt() != nil:
		return s.bindInsert(cat, n.GetInsertStmt(), params)
	case n.GetUpdateStmt() != nil:
		return s.bindUpdate(cat, n.GetUpdateStmt(), params)
	case n.GetDeleteStmt() != nil:
		return s.bindDelete(cat, n.GetDeleteStmt(), params)
	case n.GetCreateStmt() != nil:
		return s.bindCreateTable(cat, raw, n.GetCreateStmt())
	case n.GetViewStmt() != nil:
		return s.bindCreateView(cat, raw, n.GetViewStmt())
	case n.GetCreateTableAsStmt() != nil:
		return s.bindCreateTableAs(cat, raw, n.GetCreateTableAsStmt())
	case n.GetIndexStmt() != nil:
		return s.bindCreateIndex(cat, raw, n.GetIndexStmt())
	case n.GetCreateSeqStmt() != nil:
		return s.bindCreateSequence(raw, n.GetCreateSeqStmt())
	case n.GetDeclareCursorStmt() != nil:
		return s.bindDeclareCursor(cat, raw, n.GetDeclareCursorStmt(), params)
	case n.GetFetchStmt() != nil:
		return s.bindFetch(n.GetFetchStmt())
	case n.GetClosePortalStmt() != nil:
		return s.bindClose(n.GetClosePortalStmt()), nil
	case n.GetDropStmt() != nil:
		return s.bindDrop(n.GetDropStmt())
	case n.GetListenStmt() != nil:
		return s.bindListen(n.GetListenStmt()), nil
	case n.GetUnlistenStmt() != nil:
		return s.bindUnlisten(n.GetUnlistenStmt()), nil
	case n.GetNotifyStmt() != nil:
		return s.bindNotify(n.GetNotifyStmt()), nil
	case n.GetCreateSchemaStmt() != nil:
		return s.bindCreateSchema(n.GetCreateSchemaStmt())
	case n.GetRefreshMatViewStmt() != nil:
		return s.bindRefresh(cat, n.GetRefreshMatViewStmt())
	case n.GetRenameStmt() != nil && n.GetRenameStmt().RenameType == pg_query.ObjectType_OBJECT_ROLE:
		return s.bindRenameRole(n.GetRenameStmt())
	case n.GetRenameStmt() != nil:
		return s.bindRename(cat, n.GetRenameStmt())
	case n.GetCreateRoleStmt() != nil:
		return s.bindCreateRole(n.GetCreateRoleStmt())
	case n.GetAlterRoleStmt() != nil:
		return s.bindAlterRole(n.GetAlterRoleStmt())
	case n.GetDropRoleStmt() != nil:
		return s.bindDropRole(n.GetDropRoleStmt())
	case n.GetGrantRoleStmt() != nil:
		return s.bindGrantRole(n.GetGrantRoleStmt())
	case n.GetGrantStmt() != nil:
		return s.bindGrant(n.GetGrantStmt())
	case n.GetDropOwnedStmt() != nil:
		return s.bindDropOwned(n.GetDropOwnedStmt())
	case n.GetReassignOwnedStmt() != nil:
		return s.bindReassignOwned(n.GetReassignOwnedStmt())
	case n.GetAlterTableStmt() != nil && isOwnerChange(n.GetAlterTableStmt()):
		return s.bindAlterOwner(n.GetAlterTableStmt())
	case n.GetTransactionStmt() != nil:
		return s.bindTransaction(n.GetTransactionStmt())
	case n.GetVariableSetStmt() != nil:
		return s.bindSet(n.GetVariableSetStmt())
	case n.GetVariableShowStmt() != nil:
		return s.bindShow(cat, n.GetVariableShowStmt())
	case n.GetCopyStmt() != nil:
		return s.bindCopy(cat, raw, n.GetCopyStmt())
	case n.GetExplainStmt() != nil:
		return s.bindExplain(cat, raw, n.GetExplainStmt(), params)
	case n.GetDiscardStmt() != nil:
		return independent(nil, func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
			if s.txn != nil && !s.txn.implicit {
				return nil, pgerr.New(pgerr.ActiveSQLTransaction, "DISCARD ALL cannot run inside a transaction block")
			}
			s.resetRole()
			s.info.settings = s.info.sessionSettings().withNames(s.info.settings.names)
			clear(s.parsed)
			clear(s.bound)
			return commandResult("DISCARD ALL"), nil
		}), nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "%s is not supported", statementName(n))
}

// independent builds a statement that does not depend on the catalog.
func independent(cols []pgwire.Column, run func(ctx context.Context, s *session, params []types.Datum) (pgwire.Result, error)) *boundStmt {
	return &boundStmt{cols: cols, run: run, catalogIndependent: true}
}

// isTxnControl reports whether a statement may run in a failed
// transaction block: only statements that end it.
func isTxnControl(raw *rawStatement) bool {
	if raw.node == nil {
		return false
	}
	ts := raw.node.GetTransactionStmt()
	if ts == nil {
		return false
	}
	switch ts.Kind {
	case pg_query.TransactionStmtKind_TRANS_STMT_COMMIT, pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK,
		pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		return true
	}
	return false
}

func (s *session) bindTransaction(ts *pg_query.TransactionStmt) (*boundStmt, error) {
	switch ts.Kind {
	case pg_query.TransactionStmtKind_TRANS_STMT_BEGIN, pg_query.TransactionStmtKind_TRANS_STMT_START:
		return independent(nil, func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
			switch {
			case s.txn == nil:
				s.txn = newTxn(false)
			case s.txn.implicit:
				s.txn.implicit = false
			default:
				s.notice(&pgerr.Error{Code: pgerr.ActiveSQLTransaction, Severity: "WARNING", Message: "there is already a transaction in progress"})
			}
			return commandResult("BEGIN"), nil
		}), nil
	case pg_query.TransactionStmtKind_TRANS_STMT_COMMIT:
		b := independent(nil, func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
			if s.txn == nil || s.txn.implicit {
				s.notice(&pgerr.Error{Code: pgerr.NoActiveSQLTransaction, Severity: "WARNING", Message: "there is no transaction in progress"})
				return commandResult("COMMIT"), nil
			}
			if s.txn.state == txnFailed {
				s.rollback(ctx)
				return commandResult("ROLLBACK"), nil
			}
			if err := s.commit(ctx); err != nil {
				return nil, err
			}
			return commandResult("COMMIT"), nil
		})
		b.txnControl = true
		return b, nil
	case pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK:
		b := independent(nil, func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
			if s.txn == nil || s.txn.implicit {
				s.notice(&pgerr.Error{Code: pgerr.NoActiveSQLTransaction, Severity: "WARNING", Message: "there is no transaction in progress"})
			}
			s.rollback(ctx)
			return commandResult("ROLLBACK"), nil
		})
		b.txnControl = true
		return b, nil
	case pg_query.TransactionStmtKind_TRANS_STMT_SAVEPOINT, pg_query.TransactionStmtKind_TRANS_STMT_RELEASE,
		pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		return s.bindSavepoint(ts), nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "two-phase commit is not supported")
}
