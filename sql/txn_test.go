package sql

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// TestTableInputCanceled reads a relation of more rows than a scan reads
// between checks with a canceled context: the scan must stop early with
// the context's error, not read the relation to its end.
func TestTableInputCanceled(t *testing.T) {
	e := runEngine(t)
	s := testSession(t, e)
	execSQL(t, s, fmt.Sprintf("CREATE TABLE big (a int8); INSERT INTO big SELECT generate_series(1, %d)", 3*scanCheckRows))
	snap := e.snapshot()
	obj, _ := snap.Catalog().Lookup("", "big")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b, err := s.tableInput(ctx, snap, obj, false, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("scan = %v, want %v", err, context.Canceled)
	}
	if len(b) >= 3*scanCheckRows {
		t.Errorf("the canceled scan read all %d rows", len(b))
	}
	if b, err = s.tableInput(context.Background(), snap, obj, false, nil); err != nil || len(b) != 3*scanCheckRows {
		t.Errorf("scan read %d rows (%v), want %d", len(b), err, 3*scanCheckRows)
	}
}
