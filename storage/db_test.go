package storage

import (
	"fmt"
	"testing"
	"time"
)

func TestCommitReopen(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch()
	b.PutCatalog(7, []byte("table t"))
	b.PutCatalog(3, []byte("table s"))
	for i := 0; i < 5; i++ {
		b.Put(7, []byte{byte(i)}, []byte(fmt.Sprint("row", i)))
		b.Put(8, []byte{byte(i)}, []byte("other"))
	}
	b.Put(7, []byte{0xff}, []byte("last"))
	b.SetMeta("tick", []byte("42"))
	b.SetPosition(9, "p0", []byte("100"))
	b.SetPosition(9, "p1", []byte("200"))
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	b = db.NewBatch()
	b.Delete(7, []byte{2})
	b.DropCollection(8)
	b.DeleteCatalog(3)
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var cat []string
	if err := db.Catalog(func(id uint64, data []byte) error {
		cat = append(cat, fmt.Sprintf("%d=%s", id, data))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(cat); got != "[7=table t]" {
		t.Errorf("catalog = %s", got)
	}
	var rows []string
	if err := db.Scan(7, func(k, v []byte) error {
		rows = append(rows, fmt.Sprintf("%x=%s", k, v))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(rows); got != "[00=row0 01=row1 03=row3 04=row4 ff=last]" {
		t.Errorf("rows = %s", got)
	}
	n := 0
	if err := db.Scan(8, func(k, v []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("dropped collection still has %d rows", n)
	}
	v, ok, err := db.Meta("tick")
	if err != nil || !ok || string(v) != "42" {
		t.Errorf("meta tick = %q %v %v", v, ok, err)
	}
	if _, ok, _ := db.Meta("missing"); ok {
		t.Error("missing meta found")
	}
	pos := map[string]string{}
	if err := db.Positions(9, func(part string, p []byte) error {
		pos[part] = string(p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(pos) != "map[p0:100 p1:200]" {
		t.Errorf("positions = %v", pos)
	}
}

// TestCommitUnsynced: a batch committed without waiting for the disk is
// read at once, and a later synced commit and a reopen keep it.
func TestCommitUnsynced(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatchSized(1 << 10)
	b.Put(7, []byte{1}, []byte("replayed"))
	b.SetPosition(9, "p0", []byte("10"))
	if err := b.CommitUnsynced(); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		v, ok, err := db.Get(7, []byte{1})
		if err != nil || !ok || string(v) != "replayed" {
			t.Fatalf("%s: Get = %q, %v, %v", when, v, ok, err)
		}
	}
	check("after the unsynced commit")
	b = db.NewBatch()
	b.Put(7, []byte{2}, []byte("synced"))
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	check("after reopening")
}

func TestPrefixEnd(t *testing.T) {
	for _, tc := range []struct{ in, want []byte }{
		{[]byte{1, 2}, []byte{1, 3}},
		{[]byte{1, 0xff}, []byte{2}},
		{[]byte{0xff, 0xff}, nil},
	} {
		if got := prefixEnd(tc.in); string(got) != string(tc.want) {
			t.Errorf("prefixEnd(%x) = %x, want %x", tc.in, got, tc.want)
		}
	}
}

func BenchmarkCommitRows(b *testing.B) {
	db, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	val := make([]byte, 64)
	key := make([]byte, 8)
	const perBatch = 1000
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		batch := db.NewBatch()
		for j := 0; j < perBatch; j++ {
			k := i*perBatch + j
			key[0], key[1], key[2], key[3] = byte(k>>24), byte(k>>16), byte(k>>8), byte(k)
			batch.Put(1, key, val)
		}
		if err := batch.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*perBatch)/b.Elapsed().Seconds(), "rows/s")
}

// TestRangeReads checks ScanRange's bounds and early stop, Get and LastKey
// on a collection between two neighbours, whose keys must never leak in.
func TestRangeReads(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b := db.NewBatch()
	for _, coll := range []uint64{4, 5, 6} {
		for i := range 5 {
			b.Put(coll, []byte{byte(i)}, []byte(fmt.Sprint(coll, "/", i)))
		}
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		start, end []byte
		stopAfter  int
		want       string
	}{
		{"all", nil, nil, 0, "[5/0 5/1 5/2 5/3 5/4]"},
		{"from", []byte{2}, nil, 0, "[5/2 5/3 5/4]"},
		{"until", nil, []byte{2}, 0, "[5/0 5/1]"},
		{"between", []byte{1}, []byte{3}, 0, "[5/1 5/2]"},
		{"empty", []byte{3}, []byte{3}, 0, "[]"},
		{"stop", nil, nil, 2, "[5/0 5/1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			err := db.ScanRange(5, tc.start, tc.end, func(_, v []byte) error {
				got = append(got, string(v))
				if len(got) == tc.stopAfter {
					return ErrStop
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != tc.want {
				t.Errorf("got %v, want %s", got, tc.want)
			}
		})
	}
	if v, ok, err := db.Get(5, []byte{3}); err != nil || !ok || string(v) != "5/3" {
		t.Errorf("Get(5, 3) = %q, %v, %v", v, ok, err)
	}
	if _, ok, err := db.Get(5, []byte{9}); err != nil || ok {
		t.Errorf("Get(5, 9) found = %v, %v", ok, err)
	}
	if k, ok, err := db.LastKey(5); err != nil || !ok || fmt.Sprint(k) != "[4]" {
		t.Errorf("LastKey(5) = %v, %v, %v", k, ok, err)
	}
	if _, ok, err := db.LastKey(9); err != nil || ok {
		t.Errorf("LastKey of an empty collection found = %v, %v", ok, err)
	}
}

// TestRangeDeletionsFlush commits range deletions one batch at a time,
// as dropping views does, and requires the store to flush them out of
// the memtable, where every new iterator would fragment them all again.
func TestRangeDeletionsFlush(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for id := range uint64(rangeDelsPerFlush + 1) {
		b := db.NewBatch()
		b.PutCatalog(id, []byte("x"))
		b.DropState(id)
		if err := b.CommitUnsynced(); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for db.pdb.Metrics().Flush.Count == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d range deletions committed and the memtable was never flushed", rangeDelsPerFlush+1)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
