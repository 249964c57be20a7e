package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
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
	obj := &catalog.Object{ID: 42, Name: "events", Appends: true, Cold: true}
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
	contents := func(s *TableSnap) string {
		t.Helper()
		var got []string
		if err := s.Scan(func(_ string, row types.Row) bool {
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
	if tbl.overlay != nil {
		t.Fatal("a cold relation holds its rows in memory")
	}
	if got := contents(first); got != "[10 11 11]" {
		t.Errorf("first snapshot = %s", got)
	}
	if got := contents(second); got != "[10 11 11 12 13 14]" {
		t.Errorf("second snapshot = %s", got)
	}
	if _, ok, err := first.Get(rowIDKey(4)); err != nil || ok {
		t.Errorf("first snapshot finds row 4, ingested after it (err %v)", err)
	}
	if row, ok, err := second.Get(rowIDKey(4)); err != nil || !ok || row[0].Int() != 12 {
		t.Errorf("second snapshot's row 4 = %v, %v, %v", row, ok, err)
	}
	var ranged []string
	if err := second.ScanRange(rowIDKey(3), rowIDKey(6), nil, func(_ string, row types.Row) bool {
		ranged = append(ranged, fmt.Sprint(row[0].Int()))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(ranged) != "[11 12 13]" {
		t.Errorf("rows 3 to 5 = %v", ranged)
	}

	e := &Engine{store: db, tables: map[uint64]*tableState{}, dirty: map[uint64]bool{}}
	if err := e.openRelation(obj, false, nil); err != nil {
		t.Fatal(err)
	}
	if got := e.tables[obj.ID].nextRowID; got != 7 {
		t.Errorf("recovered next row id %d, want 7", got)
	}
	if got := contents(e.tables[obj.ID].snapshot()); got != "[10 11 11 12 13 14]" {
		t.Errorf("recovered contents = %s", got)
	}

	b := db.NewBatch()
	defer b.Discard()
	retract := []sources.Change{{Row: types.Row{types.NewInt8(10)}, Diff: -1}}
	if _, err := appendChanges(rs, tbl, retract, b, nil); err == nil {
		t.Error("a retraction in a cold relation was accepted")
	}
}

// TestColdChunks stores ticks whose rows span several chunks, after rows
// stored one per key as stores written before chunks hold them, and
// checks every point read and every range, across chunk and tick
// boundaries, against the rows appended.
func TestColdChunks(t *testing.T) {
	db, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	obj := &catalog.Object{ID: 7, Name: "wide", Appends: true, Cold: true}
	tbl := newColdState(obj, db)
	rs := &runningSource{obj: obj}
	// Rows of a third of a chunk: a tick of 10 spans four chunks.
	pad := strings.Repeat("x", coldChunkBytes/3)
	row := func(v int64) types.Row { return types.Row{types.NewInt8(v), types.NewText(pad)} }
	var want []int64
	legacy := db.NewBatch()
	for ; tbl.nextRowID <= 3; tbl.nextRowID++ {
		legacy.Put(obj.ID, []byte(rowIDKey(tbl.nextRowID)), types.AppendRow(nil, row(100+tbl.nextRowID)))
		want = append(want, 100+tbl.nextRowID)
	}
	if err := legacy.Commit(); err != nil {
		t.Fatal(err)
	}
	for tick := range int64(3) {
		var changes []sources.Change
		for i := range int64(10) {
			v := 1000*tick + i
			changes = append(changes, sources.Change{Row: row(v), Diff: 1})
			want = append(want, v)
		}
		b := db.NewBatch()
		if _, err := appendChanges(rs, tbl, changes, b, nil); err != nil {
			t.Fatal(err)
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	snap := tbl.snapshot()
	for i, v := range want {
		got, ok, err := snap.Get(rowIDKey(int64(i + 1)))
		if err != nil || !ok || got[0].Int() != v || got[1].Str() != pad {
			t.Fatalf("row %d = %v, %v, %v; want %d", i+1, got, ok, err, v)
		}
	}
	if _, ok, err := snap.Get(rowIDKey(int64(len(want) + 1))); ok || err != nil {
		t.Errorf("a row past the end was found (err %v)", err)
	}
	for lo := 1; lo <= len(want); lo++ {
		for hi := lo; hi <= len(want)+1; hi += 3 {
			var got []int64
			if err := snap.ScanRange(rowIDKey(int64(lo)), rowIDKey(int64(hi)), nil, func(key string, r types.Row) bool {
				if key != rowIDKey(int64(lo+len(got))) {
					t.Fatalf("range [%d, %d): key %x at position %d", lo, hi, key, len(got))
				}
				got = append(got, r[0].Int())
				return true
			}); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want[lo-1:hi-1]) {
				t.Fatalf("range [%d, %d) = %v, want %v", lo, hi, got, want[lo-1:hi-1])
			}
		}
	}
	e := &Engine{store: db, tables: map[uint64]*tableState{}, dirty: map[uint64]bool{}}
	if err := e.openRelation(obj, false, nil); err != nil {
		t.Fatal(err)
	}
	if got := e.tables[obj.ID].nextRowID; got != int64(len(want)+1) {
		t.Errorf("recovered next row id %d, want %d", got, len(want)+1)
	}
}
