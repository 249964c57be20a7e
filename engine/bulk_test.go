package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// keyedOutput is an upsert output (id, v) keyed by id.
var keyedOutput = []sources.Output{{Name: "a", Columns: []sources.Column{
	{Name: "id", Type: types.TypeInt8, NotNull: true}, {Name: "v", Type: types.TypeInt8}}, Key: []int{0}}}

// startKeyed starts an engine on dir over a scripted keyed source and
// returns once the source has resumed, with its relation a. On a new
// directory (create) it first creates the source, and the view view
// unless that is empty (createKeyed).
func startKeyed(t *testing.T, dir string, create bool, view string) (*engine.Engine, *scripted, *catalog.Object, func()) {
	t.Helper()
	src := newScripted(keyedOutput)
	e, stop := start(dir, schemaBinder{src})
	if create {
		createKeyed(t, e, src, view)
	}
	<-src.resumed
	a, _ := e.Snapshot().Catalog().Lookup("", "a")
	return e, src, a, stop
}

// createKeyed creates source s with relation a over src, and a view mv
// reading a whole.
func createKeyed(t testing.TB, e *engine.Engine, src sources.Source, view string) {
	t.Helper()
	ctx := context.Background()
	err := e.RunDDL(ctx, func(ctx context.Context, tx *engine.DDL) error {
		return tx.CreateSource(ctx, engine.SourceDef{Name: "s", SQL: "CREATE SOURCE s …", Relations: []string{"a"}}, src)
	})
	if err != nil {
		t.Fatal(err)
	}
	if view != "" {
		createView(t, e, view)
	}
}

// createView creates a materialized view reading a whole.
func createView(t testing.TB, e *engine.Engine, name string) {
	t.Helper()
	err := e.RunDDL(context.Background(), func(ctx context.Context, tx *engine.DDL) error {
		a, _ := tx.Catalog().Lookup("", "a")
		return tx.Create(ctx, &catalog.Object{ID: tx.NextID(), Kind: catalog.KindMaterializedView, Schema: catalog.DefaultSchema, Name: name,
			Columns: a.Columns, DependsOn: []uint64{a.ID}, SQL: "CREATE MATERIALIZED VIEW " + name + " AS SELECT * FROM a",
			Plan: &planner.Get{ID: planner.ObjectID(a.ID), Name: "a", Cols: a.PlanColumns()}})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFreshBatches reloads a relation as a snapshot does, after a
// Truncate, with fresh batches (sources.Batch.Fresh) whose keys the
// relation held before the Truncate: the rows replace the old ones in
// the relation, its row count, a view made before, a view made between
// two batches and a subscription; the stream's changes after them find
// the rows (an update replaces, a delete deletes); and a restart reads
// the same.
func TestFreshBatches(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	e, src, a, stop := startKeyed(t, dir, true, "before")
	defer func() { stop() }()
	sub, err := e.Subscribe(ctx, &planner.Get{ID: planner.ObjectID(a.ID), Name: "a", Cols: a.PlanColumns()}, engine.FeedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Unsubscribe(ctx, sub)

	src.emit(t, &sources.Batch{Changes: [][]sources.Change{{
		{Key: int8s(1), Row: int8s(1, 10)}, {Key: int8s(2), Row: int8s(2, 20)}, {Key: int8s(3), Row: int8s(3, 30)}}}})
	nextTick(t, sub)
	src.emit(t, &sources.Batch{Truncate: []int{0}, Fresh: []int{0}, Replayable: true, Changes: [][]sources.Change{{
		{Key: int8s(2), Row: int8s(2, 21)}, {Key: int8s(4), Row: int8s(4, 41)}}}})
	if got, want := rowsText(nextTick(t, sub)), "1,10 2,20 3,30 2,21 4,41"; !sameRows(got, want) {
		t.Errorf("subscription after the first fresh batch = %s, want %s", got, want)
	}
	createView(t, e, "between")
	src.emit(t, &sources.Batch{Fresh: []int{0}, Changes: [][]sources.Change{{
		{Key: int8s(3), Row: int8s(3, 31)}, {Key: int8s(5), Row: int8s(5, 51)}}}})
	want := "2,21 3,31 4,41 5,51"
	for _, rel := range []string{"a", "before", "between"} {
		got := ""
		if rel == "a" {
			got = tableRows(t, e, rel)
		} else {
			got = viewRows(t, e, rel)
		}
		if got != want {
			t.Errorf("%s after the fresh batches = %s, want %s", rel, got, want)
		}
	}
	if snap, _ := e.Snapshot().Table(a.ID); snap.SizeHint() != 4 {
		t.Errorf("a counts %d rows, want 4", snap.SizeHint())
	}

	src.emit(t, &sources.Batch{Changes: [][]sources.Change{{
		{Key: int8s(3), Row: int8s(3, 32)}, {Key: int8s(5)}}}})
	want = "2,21 3,32 4,41"
	createView(t, e, "after")
	for _, rel := range []string{"before", "between", "after"} {
		if got := viewRows(t, e, rel); got != want {
			t.Errorf("%s after the stream's changes = %s, want %s", rel, got, want)
		}
	}

	stop()
	e, _, _, stop = startKeyed(t, dir, false, "")
	if got := tableRows(t, e, "a"); got != want {
		t.Errorf("a after the restart = %s, want %s", got, want)
	}
	if snap, _ := e.Snapshot().Table(a.ID); snap.SizeHint() != 3 {
		t.Errorf("a counts %d rows after the restart, want 3", snap.SizeHint())
	}
	if got := viewRows(t, e, "after"); got != want {
		t.Errorf("after after the restart = %s, want %s", got, want)
	}
}

// counted is a source that emits rows batches of size rows each, fresh
// or not, and reports when the engine has committed them all.
type counted struct {
	rows, size int
	fresh      bool
	done       chan struct{}
}

func (c *counted) Outputs() []sources.Output { return keyedOutput }

func (c *counted) Run(ctx context.Context, _ map[string][]byte, sink sources.Sink) error {
	defer close(c.done)
	rows := make([]types.Datum, 2*c.rows)
	for i := range c.rows {
		rows[2*i], rows[2*i+1] = types.NewInt8(int64(i)), types.NewInt8(int64(i%97))
	}
	for lo := 0; lo < c.rows; lo += c.size {
		hi := min(lo+c.size, c.rows)
		changes := make([]sources.Change, 0, hi-lo)
		for i := lo; i < hi; i++ {
			row := types.Row(rows[2*i : 2*i+2 : 2*i+2])
			changes = append(changes, sources.Change{Key: row[:1:1], Row: row})
		}
		b := &sources.Batch{Changes: [][]sources.Change{changes}, Replayable: hi < c.rows}
		if c.fresh {
			b.Fresh = []int{0}
		}
		if lo == 0 {
			b.Truncate = []int{0}
		}
		if err := sink.Emit(ctx, b); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkSourceLoad loads 262,144 keyed rows in key order into a
// source's relation in batches of 32,768, as a snapshot does, fresh (no
// lookup of a row to replace, no overlay, ingested as files after the
// first) or as ordinary upserts.
func BenchmarkSourceLoad(b *testing.B) {
	const rows = 1 << 18
	for _, fresh := range []bool{false, true} {
		b.Run(fmt.Sprintf("fresh=%t", fresh), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				b.StopTimer()
				src := &counted{rows: rows, size: 1 << 15, fresh: fresh, done: make(chan struct{})}
				e, stop := start(b.TempDir(), schemaBinder{src})
				b.StartTimer()
				createKeyed(b, e, src, "")
				<-src.done
				b.StopTimer()
				a, _ := e.Snapshot().Catalog().Lookup("", "a")
				if snap, _ := e.Snapshot().Table(a.ID); snap.SizeHint() != rows {
					b.Fatalf("loaded %d rows, want %d", snap.SizeHint(), rows)
				}
				stop()
				b.StartTimer()
			}
			b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// TestFreshBatchesUnread reloads a relation nothing reads: the Truncate
// drops its rows without reading them, and the relation, its row count,
// a view made after and the stream's later changes are as if it had
// retracted them; a change feed cannot start before the reload.
func TestFreshBatchesUnread(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	e, src, a, stop := startKeyed(t, dir, true, "")
	defer func() { stop() }()

	src.emit(t, &sources.Batch{Changes: [][]sources.Change{{
		{Key: int8s(1), Row: int8s(1, 10)}, {Key: int8s(2), Row: int8s(2, 20)}, {Key: int8s(3), Row: int8s(3, 30)}}}})
	before := e.Snapshot()
	src.emit(t, &sources.Batch{Truncate: []int{0}, Fresh: []int{0}, Replayable: true, Changes: [][]sources.Change{{
		{Key: int8s(2), Row: int8s(2, 21)}, {Key: int8s(4), Row: int8s(4, 41)}}}})
	if got, want := tableRows(t, e, "a"), "2,21 4,41"; got != want {
		t.Errorf("a after the reload = %s, want %s", got, want)
	}
	if snap, _ := before.Table(a.ID); snap.SizeHint() != 3 {
		t.Errorf("a snapshot of before the reload counts %d rows, want 3", snap.SizeHint())
	}
	if got, want := tableRowsAt(t, before, a.ID), "1,10 2,20 3,30"; got != want {
		t.Errorf("a snapshot of before the reload reads %s, want %s", got, want)
	}
	since, err := e.HistorySince(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if since[a.ID] <= before.TS() {
		t.Errorf("a change feed over a can start at %d, before the reload (after %d)", since[a.ID], before.TS())
	}
	// An empty batch that only empties the relation commits too.
	src.emit(t, &sources.Batch{Truncate: []int{0}, Fresh: []int{0}})
	if got := tableRows(t, e, "a"); got != "" {
		t.Errorf("a after an empty reload = %s, want nothing", got)
	}
	src.emit(t, &sources.Batch{Truncate: []int{0}, Fresh: []int{0}, Changes: [][]sources.Change{{
		{Key: int8s(2), Row: int8s(2, 22)}, {Key: int8s(5), Row: int8s(5, 52)}}}})
	src.emit(t, &sources.Batch{Changes: [][]sources.Change{{{Key: int8s(5), Row: int8s(5, 53)}, {Key: int8s(2)}}}})
	want := "5,53"
	createView(t, e, "after")
	if got := viewRows(t, e, "after"); got != want {
		t.Errorf("after = %s, want %s", got, want)
	}

	stop()
	e, _, _, stop = startKeyed(t, dir, false, "")
	if got := tableRows(t, e, "a"); got != want {
		t.Errorf("a after the restart = %s, want %s", got, want)
	}
	if snap, _ := e.Snapshot().Table(a.ID); snap.SizeHint() != 1 {
		t.Errorf("a counts %d rows after the restart, want 1", snap.SizeHint())
	}
}

// tableRowsAt renders the rows of relation id in snap.
func tableRowsAt(t *testing.T, snap *engine.Snapshot, id uint64) string {
	t.Helper()
	ts, _ := snap.Table(id)
	var rows []types.Row
	if err := ts.Scan(func(_ string, r types.Row) bool { rows = append(rows, r); return true }); err != nil {
		t.Fatal(err)
	}
	return rowsText(rows)
}

// TestFreshBatchesIngested loads batches large enough to be ingested as
// files, in key order and out of it, with a view over the relation, then
// reloads the relation with the same keys: the relation, its count and
// the view hold each load's rows once, the stream's later changes find
// them, and a restart reads the same.
func TestFreshBatchesIngested(t *testing.T) {
	const n = 20000
	dir := t.TempDir()
	e, src, a, stop := startKeyed(t, dir, true, "before")
	defer func() { stop() }()
	// load emits rows lo..hi-1 (descending when reversed) as one fresh
	// batch of v = id + add.
	load := func(lo, hi, add int64, reversed bool, truncate bool) {
		changes := make([]sources.Change, 0, hi-lo)
		for i := lo; i < hi; i++ {
			id := i
			if reversed {
				id = hi - 1 - (i - lo)
			}
			changes = append(changes, sources.Change{Key: int8s(id), Row: int8s(id, id+add)})
		}
		b := &sources.Batch{Fresh: []int{0}, Replayable: true, Changes: [][]sources.Change{changes}}
		if truncate {
			b.Truncate = []int{0}
		}
		src.emit(t, b)
	}
	// check compares count and sum(v) of a, as stored and in the view,
	// with want.
	check := func(e *engine.Engine, when string, want [2]int64) {
		t.Helper()
		snap := e.Snapshot()
		ts, _ := snap.Table(a.ID)
		var got [2]int64
		if err := ts.Scan(func(_ string, r types.Row) bool { got[0]++; got[1] += r[1].Int(); return true }); err != nil {
			t.Fatal(err)
		}
		if got != want || int64(ts.SizeHint()) != want[0] {
			t.Errorf("a %s: %d rows (counted %d) summing to %d, want %d and %d", when, got[0], ts.SizeHint(), got[1], want[0], want[1])
		}
		o, _ := snap.Catalog().Lookup("", "before")
		vs, _ := snap.View(o.ID)
		rows, err := vs.Rows()
		if err != nil {
			t.Fatal(err)
		}
		var vgot [2]int64
		for _, r := range rows {
			vgot[0]++
			vgot[1] += r[1].Int()
		}
		if vgot != want {
			t.Errorf("view over a %s: %d rows summing to %d, want %d and %d", when, vgot[0], vgot[1], want[0], want[1])
		}
	}
	// sum is the sum of v over ids lo..hi-1 of a load that added add.
	sum := func(lo, hi, add int64) int64 { return (lo+hi-1)*(hi-lo)/2 + add*(hi-lo) }

	load(0, n, 0, false, true)
	load(n, 2*n, 0, false, false)
	load(2*n, 3*n, 0, true, false)
	want := [2]int64{3 * n, sum(0, 3*n, 0)}
	check(e, "after the first load", want)

	src.emit(t, &sources.Batch{Changes: [][]sources.Change{{{Key: int8s(5), Row: int8s(5, 1000005)}, {Key: int8s(n + 1)}}}})
	want = [2]int64{3*n - 1, want[1] + 1000000 - (n + 1)}
	check(e, "after the stream's changes", want)

	// A reload, as after a crash in the middle of a snapshot: the same
	// keys, other values.
	load(0, n, 7, false, true)
	load(n, 2*n, 7, false, false)
	want = [2]int64{2 * n, sum(0, 2*n, 7)}
	check(e, "after the reload", want)

	stop()
	e, _, _, stop = startKeyed(t, dir, false, "")
	viewRows(t, e, "before") // waits for the view to hydrate
	check(e, "after the restart", want)
}
