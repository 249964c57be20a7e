package engine

import (
	"testing"
	"time"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// TestHistoryRetention checks what the retained history keeps: a tick's
// changes of in-memory tables by reference, a cold relation's appended
// row ids, and no more ticks than its age and bytes allow, with since
// moving past what it forgets.
func TestHistoryRetention(t *testing.T) {
	store, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	hot := newTableState(&catalog.Object{ID: 1, Kind: catalog.KindTable})
	cold := newColdState(&catalog.Object{ID: 2, Kind: catalog.KindSource, Cold: true}, store)
	tables := map[uint64]*tableState{1: hot, 2: cold}
	row := func(x int64) dataflow.Update { return dataflow.Update{Row: types.Row{types.NewInt8(x)}, Diff: 1} }

	h := newHistory(time.Minute, 1<<20, 100)
	d1 := dataflow.Batch{row(1), row(2)}
	h.record(101, map[uint64]dataflow.Batch{1: d1}, tables)
	cold.nextRowID = 4 // three rows appended
	h.record(102, map[uint64]dataflow.Batch{2: {row(7), row(8), row(9)}}, tables)
	if got := h.after(100); len(got) != 2 || &got[0].deltas[1][0] != &d1[0] || got[1].appended[2] != [2]int64{1, 4} {
		t.Fatalf("retained %+v", got)
	}
	if got := h.after(101); len(got) != 1 || got[0].ts != 102 {
		t.Fatalf("after 101: %+v", got)
	}

	// Past its bytes the history forgets its oldest ticks.
	h.maxBytes = h.bytes - 1
	h.trim(time.Now())
	if h.since != 101 || len(h.ticks) != 1 {
		t.Fatalf("after trimming by bytes: since %d, %d ticks", h.since, len(h.ticks))
	}
	// And past its age, all of them.
	h.trim(time.Now().Add(2 * time.Minute))
	if h.since != 102 || len(h.ticks) != 0 || h.bytes != 0 {
		t.Fatalf("after trimming by age: since %d, %d ticks, %d bytes", h.since, len(h.ticks), h.bytes)
	}
	// A collection created later starts its history then.
	h.created[3] = 150
	if h.sinceOf(1) != 102 || h.sinceOf(3) != 150 {
		t.Errorf("sinceOf: %d, %d", h.sinceOf(1), h.sinceOf(3))
	}

	// Without retention, every tick moves since.
	none := newHistory(-1, 1<<20, 100)
	none.record(200, map[uint64]dataflow.Batch{1: d1}, tables)
	if none.since != 200 || len(none.ticks) != 0 {
		t.Errorf("no retention: since %d, %d ticks", none.since, len(none.ticks))
	}
}
