package sql

import (
	"context"
	"errors"
	"testing"

	"github.com/tidwall/btree"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/types"
)

// TestTableInputCanceled reads a relation of more rows than a scan reads
// between checks with a canceled context: the scan must stop early with
// the context's error, not read the relation to its end.
func TestTableInputCanceled(t *testing.T) {
	obj := &catalog.Object{ID: 9, Name: "big"}
	tbl := newTableState(obj)
	for i := range int64(3 * scanCheckRows) {
		tbl.put(rowIDKey(i+1), string(types.AppendRow(nil, types.Row{types.NewInt8(i)})))
	}
	var tables btree.Map[uint64, *tableSnap]
	tables.Set(obj.ID, tbl.snapshot())
	snap := &snapshot{tables: &tables}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := &session{}
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
