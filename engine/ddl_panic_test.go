package engine

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// TestDDLPanicFailsStatement runs a catalog change that panics halfway,
// after creating a table in its transaction: the change fails with
// XX000, the table does not exist, and the coordinator goes on to run the
// next change.
func TestDDLPanicFailsStatement(t *testing.T) {
	ctx := context.Background()
	e := runCoordinator(t)
	table := func(name string) *catalog.Object {
		return &catalog.Object{Kind: catalog.KindTable, Schema: catalog.DefaultSchema, Name: name, Columns: []catalog.ColumnDef{{Name: "a", Type: types.TypeInt4}}}
	}
	err := e.RunDDL(ctx, func(ctx context.Context, tx *DDL) error {
		o := table("half")
		o.ID = tx.NextID()
		if err := tx.Create(ctx, o); err != nil {
			return err
		}
		panic("a planner bug")
	})
	if pgerr.CodeOf(err) != pgerr.InternalError {
		t.Fatalf("a panicking catalog change returned %v, want XX000", err)
	}
	err = e.RunDDL(ctx, func(ctx context.Context, tx *DDL) error {
		if _, ok := tx.cat.Lookup(catalog.DefaultSchema, "half"); ok {
			t.Error("the failed change's table exists")
		}
		o := table("whole")
		o.ID = tx.NextID()
		return tx.Create(ctx, o)
	})
	if err != nil {
		t.Fatalf("the change after a panic: %v", err)
	}
}

// runCoordinator opens a coordinator on a temporary directory and runs
// its tick loop until the test ends. Its tests create no views or
// sources, so it has no binder.
func runCoordinator(t *testing.T) *Engine {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e, err := Open(ctx, Config{DataDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- e.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-ran
		e.Close()
	})
	return e
}
