package sql

import (
	"context"
	"errors"
	"testing"

	"github.com/tidwall/btree"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/types"
)

// TestQueriesUnpinViews runs queries over a materialized view's published
// snapshot (reading it once, twice, and failing on one of its rows): each
// must leave the snapshot unpinned, so that the next Step that changes the
// view revokes it and changes its trees in place. A pin left behind keeps
// the snapshot readable, and every later tick copies what it changes.
func TestQueriesUnpinViews(t *testing.T) {
	ctx := context.Background()
	cat := catalog.New()
	view := &catalog.Object{ID: catalog.FirstUserID, Kind: catalog.KindMaterializedView, Schema: catalog.DefaultSchema, Name: "v", Columns: []catalog.ColumnDef{{Name: "a", Type: types.TypeInt8}}}
	cat.Add(view)
	sess := &session{info: sessionInfo{user: "test", database: "test", settings: newSettings("test")}}
	for _, query := range []string{
		"SELECT a FROM v",
		"SELECT x.a FROM v x JOIN v y ON x.a = y.a + 1",
		"SELECT 1 / (a - 2) FROM v",
	} {
		g := dataflow.NewGraph()
		in := g.Input()
		out := g.Output(in.Node())
		in.Push(dataflow.Batch{{Row: types.Row{types.NewInt8(1)}, Diff: 1}, {Row: types.Row{types.NewInt8(2)}, Diff: 1}})
		if err := g.Step(ctx); err != nil {
			t.Fatal(err)
		}
		vs := out.Publish()
		var views btree.Map[uint64, *dataflow.Snapshot]
		views.Set(view.ID, vs)
		snap := &snapshot{cat: cat, tables: &btree.Map[uint64, *tableSnap]{}, views: &views}
		raws, err := parseQuery(query)
		if err != nil {
			t.Fatal(err)
		}
		bq, err := newBinder(cat, &sess.info, nil).selectStmt(raws[0].node.GetSelectStmt(), nil)
		if err != nil {
			t.Fatal(err)
		}
		q, err := planner.OptimizeQuery(bq.q)
		if err != nil {
			t.Fatal(err)
		}
		_, qerr := sess.runQueryAt(ctx, snap, q, nil)
		in.Push(dataflow.Batch{{Row: types.Row{types.NewInt8(3)}, Diff: 1}})
		if err := g.Step(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := vs.Rows(); !errors.Is(err, dataflow.ErrSnapshotGone) {
			t.Errorf("%s (%v): the view's snapshot outlived the query's pins (a read of it after the next Step: %v)", query, qerr, err)
		}
	}
}
