package engine

import (
	"context"
	"testing"
)

// TestRestoreDroppedTable drops a table whose overlay deletes rows of
// the base, then restores it under the same id, as a rolled-back
// transaction block does: the restored table holds the rows it had when
// dropped, not the base's deleted ones, before and after a restart.
func TestRestoreDroppedTable(t *testing.T) {
	te := openTest(t, t.TempDir())
	defer func() { te.stop() }()
	table, view := te.createTable("t")
	te.write(table, map[int64]string{1: "a", 2: "b", 3: "c"}, nil)
	if err := te.e.call(context.Background(), func(e *Engine) error {
		e.rebase()
		e.publish()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	te.write(table, map[int64]string{4: "d"}, []int64{2})
	var dropped []Dropped
	err := te.e.RunDDL(context.Background(), func(ctx context.Context, tx *DDL) error {
		tx.Drop(view)
		tx.Drop(table)
		dropped = tx.DroppedObjects()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := len(dropped) - 1; i >= 0; i-- {
		if err := te.e.RunDDL(context.Background(), func(ctx context.Context, tx *DDL) error {
			return tx.Restore(ctx, dropped[i])
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, when := range []string{"restored", "after a restart"} {
		trows, vrows := te.contents(table, view)
		if want := "1=a 3=c 4=d"; trows != want || vrows != want {
			t.Errorf("%s: table %s, view %s, want %s", when, trows, vrows, want)
		}
		te.restart()
	}
}
