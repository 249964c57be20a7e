package sql

import (
	"context"
	"testing"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/types"
)

// TestStatementPanicFailsStatement makes a statement panic while it runs:
// it fails with XX000, its transaction block fails as after any error
// (25P02 until ROLLBACK), it leaves the memory guard, and the session
// runs the next statements.
func TestStatementPanicFailsStatement(t *testing.T) {
	ctx := context.Background()
	e := runEngine(t)
	ps, err := e.Connect(ctx, pgwire.Startup{User: "streamdb", Database: "streamdb", Params: map[string]string{}})
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	// run executes one statement; a non-nil panicking statement is bound
	// first and made to panic when it runs.
	run := func(sql string, panicking bool) (types.Row, error) {
		t.Helper()
		stmts, err := ps.Parse(ctx, sql)
		if err != nil || len(stmts) != 1 {
			t.Fatalf("parse %q: %v", sql, err)
		}
		st := stmts[0].(*statement)
		if panicking {
			if _, _, err := st.Describe(ctx, nil); err != nil {
				t.Fatal(err)
			}
			st.bound.run = func(context.Context, *session, []types.Datum) (pgwire.Result, error) {
				panic("a planner bug")
			}
		}
		res, err := st.Execute(ctx, nil)
		if err != nil {
			return nil, err
		}
		defer res.Close()
		row, _, err := res.Next(ctx)
		return row, err
	}
	if _, err := run("SELECT 1", true); pgerr.CodeOf(err) != pgerr.InternalError {
		t.Fatalf("a panicking statement returned %v, want XX000", err)
	}
	if !e.guard.idle() {
		t.Error("the memory guard still tracks the statement")
	}
	if row, err := run("SELECT 2", false); err != nil || row[0].Int() != 2 {
		t.Fatalf("the next statement returned %v, %v", row, err)
	}
	if _, err := run("BEGIN", false); err != nil {
		t.Fatal(err)
	}
	if _, err := run("SELECT 1", true); pgerr.CodeOf(err) != pgerr.InternalError {
		t.Fatalf("a panicking statement in a block returned %v, want XX000", err)
	}
	if _, err := run("SELECT 3", false); pgerr.CodeOf(err) != pgerr.InFailedSQLTransaction {
		t.Fatalf("a statement after it in the block returned %v, want 25P02", err)
	}
	if _, err := run("ROLLBACK", false); err != nil {
		t.Fatal(err)
	}
	if row, err := run("SELECT 4", false); err != nil || row[0].Int() != 4 {
		t.Fatalf("a statement after ROLLBACK returned %v, %v", row, err)
	}
}
