package sql

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/planner"
)

// TestQueriesUnpinViews runs queries over a materialized view's published
// snapshot (reading it once, twice, and failing on one of its rows): each
// must leave the snapshot unpinned, so that the next Step that changes the
// view revokes it and changes its trees in place. A pin left behind keeps
// the snapshot readable, and every later tick copies what it changes.
func TestQueriesUnpinViews(t *testing.T) {
	ctx := context.Background()
	e := runEngine(t)
	sess := testSession(t, e)
	execSQL(t, sess, "CREATE TABLE t (a int8); INSERT INTO t VALUES (1), (2); CREATE MATERIALIZED VIEW v AS SELECT a FROM t")
	for i, query := range []string{
		"SELECT a FROM v",
		"SELECT x.a FROM v x JOIN v y ON x.a = y.a + 1",
		"SELECT 1 / (a - 2) FROM v",
	} {
		snap := e.snapshot()
		view, _ := snap.Catalog().Lookup("", "v")
		vs, ok := snap.View(view.ID)
		if !ok {
			t.Fatal("the view has no published contents")
		}
		raws, err := parseQuery(query)
		if err != nil {
			t.Fatal(err)
		}
		bq, err := newBinder(snap.Catalog(), &sess.info, nil).selectStmt(raws[0].node.GetSelectStmt(), nil)
		if err != nil {
			t.Fatal(err)
		}
		q, err := planner.OptimizeQuery(bq.q)
		if err != nil {
			t.Fatal(err)
		}
		qerr := sess.runQueryAt(ctx, snap, q, nil, nil, func(dataflow.Batch) error { return nil })
		execSQL(t, sess, fmt.Sprintf("INSERT INTO t VALUES (%d)", 3+i))
		if _, err := vs.Rows(); !errors.Is(err, dataflow.ErrSnapshotGone) {
			t.Errorf("%s (%v): the view's snapshot outlived the query's pins (a read of it after the next tick: %v)", query, qerr, err)
		}
	}
}
