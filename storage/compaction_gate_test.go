package storage

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// TestOpenDoesNotWaitForCompaction opens a store as a crash under load
// leaves it: writes in the log, and more L0 files than start a
// compaction. Pebble's Open flushes the log, which schedules a
// compaction, and by default waits for it to end; the store's Open must
// return without having run one, and run it after.
func TestOpenDoesNotWaitForCompaction(t *testing.T) {
	dir := crashImageDueCompaction(t)
	var at pebble.Metrics
	db, err := Open(dir, Options{opened: func(pdb *pebble.DB) { at = *pdb.Metrics() }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if at.Flush.Count == 0 {
		t.Fatal("the opening replayed no log: the crash image is not one")
	}
	if at.Compact.Count != 0 {
		t.Fatalf("%d compactions ran during the opening", at.Compact.Count)
	}
	if n := at.Levels[0].TablesCount; n < 8 {
		t.Fatalf("%d L0 files at the opening, fewer than start a compaction", n)
	}
	for deadline := time.Now().Add(30 * time.Second); db.pdb.Metrics().Compact.Count == 0; {
		if time.Now().After(deadline) {
			t.Fatal("no compaction ran after the opening")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// crashImageDueCompaction returns a directory holding a store, copied
// while it was open, with ten overlapping L0 files and a synced batch in
// its log that no file holds.
func crashImageDueCompaction(t *testing.T) string {
	t.Helper()
	src, dst := t.TempDir(), t.TempDir()
	// Writes stay in the log: the batches are smaller than half the
	// memtable, which Pebble would flush at once.
	pdb, err := pebble.Open(src, &pebble.Options{MemTableSize: 32 << 20, DisableAutomaticCompactions: true,
		Logger: pebbleLogger{slog.New(slog.DiscardHandler)}})
	if err != nil {
		t.Fatal(err)
	}
	defer pdb.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	val := make([]byte, 1000)
	write := func() {
		b := pdb.NewBatch()
		for i := range 2000 {
			for j := range val {
				val[j] = byte(rng.Uint32())
			}
			if err := b.Set(append(collPrefix(1), fmt.Sprintf("%06d", i*7%2000)...), val, nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.Commit(pebble.Sync); err != nil {
			t.Fatal(err)
		}
	}
	for range 10 {
		write()
		if err := pdb.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	write()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() == "LOCK" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}
