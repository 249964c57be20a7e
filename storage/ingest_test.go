package storage

import (
	"fmt"
	"strings"
	"testing"
)

// TestIngest adds rows as a table file after a batch's range deletion of
// the same collection: a snapshot taken before does not see them, the
// store does, and after reopening too; keys out of order are refused
// and leave the store as it was.
func TestIngest(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch()
	b.Put(5, []byte("a"), []byte("old"))
	b.Put(5, []byte("z"), []byte("old"))
	b.Put(6, []byte("b"), []byte("other"))
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	b = db.NewBatch()
	b.DropCollection(5)
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	before := db.NewSnapshot()
	keys := []string{"a", "b", "c"}
	if err := db.Ingest(5, len(keys), func(i int) ([]byte, []byte) { return []byte(keys[i]), []byte("new " + keys[i]) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Ingest(5, 2, func(i int) ([]byte, []byte) { return []byte{byte('y' - i)}, nil }); err == nil {
		t.Error("keys out of order were ingested")
	}
	read := func(db *DB) string {
		var out []string
		for _, c := range []uint64{5, 6} {
			if err := db.Scan(c, func(k, v []byte) error { out = append(out, fmt.Sprintf("%d/%s=%s", c, k, v)); return nil }); err != nil {
				t.Fatal(err)
			}
		}
		return strings.Join(out, " ")
	}
	want := "5/a=new a 5/b=new b 5/c=new c 6/b=other"
	if got := read(db); got != want {
		t.Errorf("store after Ingest = %s, want %s", got, want)
	}
	it, err := before.Iter(5, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if it.Valid() {
		t.Errorf("a snapshot taken before Ingest sees %s", it.Key())
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if err := before.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := read(db); got != want {
		t.Errorf("store reopened = %s, want %s", got, want)
	}
}
