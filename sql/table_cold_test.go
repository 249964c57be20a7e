package sql

import (
	"fmt"
	"testing"

	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/sql/types"
	"github.com/streamdb/streamdb/storage"
)

// TestColdRelation appends to a cold relation tick by tick and checks
// that it keeps nothing in memory, that each snapshot holds exactly the
// rows of its tick while later ticks append, that point reads and ranges
// respect the snapshot's end, that recovery finds where the row ids end,
// and that a retraction is refused rather than lost.
func TestColdRelation(t *testing.T) {
	db, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	obj := &Object{ID: 42, Name: "events", Appends: true, Cold: true}
	tbl := newColdState(obj, db)
	rs := &runningSource{obj: obj}
	tick := func(vals ...int64) {
		t.Helper()
		changes := make([]sources.Change, len(vals))
		for i, v := range vals {
			changes[i] = sources.Change{Row: types.Row{types.NewInt8(v)}, Diff: 1}
		}
		b := db.NewBatch()
		d, err := appendChanges(rs, tbl, changes, b, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(d) != len(vals) {
			t.Fatalf("delta has %d updates, want %d", len(d), len(vals))
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	contents := func(s *tableSnap) string {
		t.Helper()
		var got []string
		if err := s.scan(func(_ string, row types.Row) bool {
			got = append(got, fmt.Sprint(row[0].Int()))
			return true
		}); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(got)
	}

	tick(10, 11, 11)
	first := tbl.snapshot()
	tick(12)
	tick(13, 14)
	second := tbl.snapshot()
	if tbl.rows != nil {
		t.Fatal("a cold relation holds its rows in memory")
	}
	if got := contents(first); got != "[10 11 11]" {
		t.Errorf("first snapshot = %s", got)
	}
	if got := contents(second); got != "[10 11 11 12 13 14]" {
		t.Errorf("second snapshot = %s", got)
	}
	if _, ok, err := first.get(rowIDKey(4)); err != nil || ok {
		t.Errorf("first snapshot finds row 4, ingested after it (err %v)", err)
	}
	if row, ok, err := second.get(rowIDKey(4)); err != nil || !ok || row[0].Int() != 12 {
		t.Errorf("second snapshot's row 4 = %v, %v, %v", row, ok, err)
	}
	var ranged []string
	if err := second.scanRange(rowIDKey(3), rowIDKey(6), func(_ string, row types.Row) bool {
		ranged = append(ranged, fmt.Sprint(row[0].Int()))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(ranged) != "[11 12 13]" {
		t.Errorf("rows 3 to 5 = %v", ranged)
	}

	c := &coordinator{store: db, tables: map[uint64]*tableState{}, dirty: map[uint64]bool{}}
	var n int64
	if err := c.loadRows(obj, &n); err != nil {
		t.Fatal(err)
	}
	if got := c.tables[obj.ID].nextRowID; got != 7 {
		t.Errorf("recovered next row id %d, want 7", got)
	}
	if got := contents(c.tables[obj.ID].snapshot()); got != "[10 11 11 12 13 14]" {
		t.Errorf("recovered contents = %s", got)
	}

	b := db.NewBatch()
	defer b.Discard()
	retract := []sources.Change{{Row: types.Row{types.NewInt8(10)}, Diff: -1}}
	if _, err := appendChanges(rs, tbl, retract, b, nil); err == nil {
		t.Error("a retraction in a cold relation was accepted")
	}
}
