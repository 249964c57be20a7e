package engine_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// TestSourceBatchRelease checks when the engine hands a source batch's
// memory back (sources.Batch.Release): after the tick, for a source that
// is not stored or whose relation is cold, whose views build rows of
// their own; never when a view may keep the batch's rows or the relation
// is in memory (its history keeps the rows). A released
// batch's rows are overwritten before the next batch, as a generator
// reusing the memory does, and the view must not change.
func TestSourceBatchRelease(t *testing.T) {
	for _, tc := range []struct {
		name      string
		notStored bool
		// retracts makes the relation one kept in memory, not cold.
		retracts bool
		// project views the second column alone; otherwise the view
		// is the relation whole, its Output the rows themselves.
		project bool
		want    bool
		rows    string
	}{
		{"not stored, projection", true, false, true, true, "10 20 30 40"},
		{"not stored, whole rows", true, false, false, false, "1,10 2,20 3,30 4,40"},
		{"cold, projection", false, false, true, true, "10 20 30 40"},
		{"cold, whole rows", false, false, false, false, "1,10 2,20 3,30 4,40"},
		{"in memory, projection", false, true, true, false, "10 20 30 40"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			src := newScripted([]sources.Output{{Name: "a", Columns: []sources.Column{
				{Name: "id", Type: types.TypeInt8, NotNull: true}, {Name: "v", Type: types.TypeInt8}}, Retracts: tc.retracts}})
			e, stop := start(t.TempDir(), schemaBinder{src})
			defer stop()
			err := e.RunDDL(ctx, func(ctx context.Context, tx *engine.DDL) error {
				return tx.CreateSource(ctx, engine.SourceDef{Name: "s", SQL: "CREATE SOURCE s …", Relations: []string{"a"}, NotStored: tc.notStored}, src)
			})
			if err != nil {
				t.Fatal(err)
			}
			err = e.RunDDL(ctx, func(ctx context.Context, tx *engine.DDL) error {
				a, _ := tx.Catalog().Lookup("", "a")
				var plan planner.Node = &planner.Get{ID: planner.ObjectID(a.ID), Name: "a", Cols: a.PlanColumns()}
				cols := a.Columns
				if tc.project {
					plan = &planner.Project{Input: plan, Exprs: []scalar.Expr{&scalar.ColRef{Idx: 1, Typ: types.TypeInt8}},
						Cols: plan.Columns()[1:]}
					cols = cols[1:]
				}
				return tx.Create(ctx, &catalog.Object{ID: tx.NextID(), Kind: catalog.KindMaterializedView, Schema: catalog.DefaultSchema,
					Name: "mv", Columns: cols, DependsOn: []uint64{a.ID}, SQL: "CREATE MATERIALIZED VIEW mv AS …", Plan: plan})
			})
			if err != nil {
				t.Fatal(err)
			}
			<-src.resumed
			var released atomic.Int32
			rows := []types.Row{int8s(1, 10), int8s(2, 20)}
			src.emit(t, &sources.Batch{Changes: [][]sources.Change{{{Row: rows[0], Diff: 1}, {Row: rows[1], Diff: 1}}},
				Release: func() { released.Add(1) }})
			// The coordinator finishes a tick before it takes the next
			// batch: after this one, the first's release is decided.
			// The second tick's delta is built in the first's when it
			// was released, and the third's in the second's.
			src.emit(t, &sources.Batch{Changes: [][]sources.Change{{{Row: int8s(3, 30), Diff: 1}}}, Release: func() {}})
			if got := released.Load() == 1; got != tc.want {
				t.Fatalf("released = %v, want %v", got, tc.want)
			}
			src.emit(t, &sources.Batch{Changes: [][]sources.Change{{{Row: int8s(4, 40), Diff: 1}}}, Release: func() {}})
			want := viewRows(t, e, "mv")
			if want != tc.rows {
				t.Fatalf("view holds %s, want %s", want, tc.rows)
			}
			if released.Load() == 1 {
				for _, r := range rows {
					r[0], r[1] = types.NewInt8(-1), types.NewInt8(-1)
				}
			}
			if got := viewRows(t, e, "mv"); got != want {
				t.Errorf("view after the batch's memory was reused: %s, want %s", got, want)
			}
		})
	}
}
