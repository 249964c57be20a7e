package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/types"
)

// TestClockLeadBounded commits single-row transactions back to back,
// thousands a second, and checks that the logical clock (a tick's
// milliseconds, strictly increasing) stays within a bound of the wall
// clock instead of running ahead of it a millisecond per tick: mz_now()
// is the tick's time, and a temporal filter would otherwise let rows go
// early.
func TestClockLeadBounded(t *testing.T) {
	e, stop := start(t.TempDir(), nil)
	defer stop()
	ctx := context.Background()
	var tbl *catalog.Object
	if err := e.RunDDL(ctx, func(ctx context.Context, tx *engine.DDL) error {
		tbl = &catalog.Object{ID: tx.NextID(), Kind: catalog.KindTable, Schema: catalog.DefaultSchema, Name: "t",
			Columns: []catalog.ColumnDef{{Name: "x", Type: types.TypeInt8}}}
		return tx.Create(ctx, tbl)
	}); err != nil {
		t.Fatal(err)
	}
	const commits = 3000
	var lead time.Duration
	for i := range commits {
		w := &engine.WriteSet{Tables: map[uint64][]engine.RowChange{tbl.ID: {{Row: types.Row{types.NewInt8(int64(i))}}}}}
		if err := e.Commit(ctx, w); err != nil {
			t.Fatal(err)
		}
		lead = max(lead, time.Duration(int64(e.Snapshot().TS())-time.Now().UnixMilli())*time.Millisecond)
	}
	if bound := 300 * time.Millisecond; lead > bound {
		t.Errorf("after %d back-to-back commits the logical clock ran %v ahead of the wall clock, want at most %v", commits, lead, bound)
	}
}
