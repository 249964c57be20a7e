package engine

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sinks"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// copyBinder plans every view as a copy of the relation its SQL names,
// enough to hold state and restore it without the SQL front end: a view
// of a table derives its state from the table; "DISTINCT name", a
// distinct copy, persists it.
type copyBinder struct{}

func (copyBinder) PlanView(cat *catalog.Catalog, o *catalog.Object) (planner.Node, error) {
	name, distinct := strings.CutPrefix(o.SQL, "DISTINCT ")
	src, ok := cat.Lookup(catalog.DefaultSchema, name)
	if !ok {
		return nil, fmt.Errorf("no relation %q", name)
	}
	var plan planner.Node = &planner.Get{ID: planner.ObjectID(src.ID), Name: src.Name, Cols: src.PlanColumns()}
	if distinct {
		plan = &planner.Distinct{Input: plan}
	}
	return plan, nil
}

func (copyBinder) OpenSource(*catalog.Catalog, *catalog.Object) (sources.Source, error) {
	return nil, fmt.Errorf("no sources here")
}

func (copyBinder) OpenSink(*catalog.Catalog, *catalog.Object, string) (sinks.Sink, error) {
	return nil, fmt.Errorf("no sinks here")
}

// testEngine is an engine on a directory, reopened as a test asks.
type testEngine struct {
	t         *testing.T
	dir       string
	log       bytes.Buffer
	e         *Engine
	stop      func()
	recompute bool
	testing   *TestingKnobs
}

func openTest(t *testing.T, dir string) *testEngine {
	t.Helper()
	te := &testEngine{t: t, dir: dir}
	te.open()
	return te
}

func (te *testEngine) open() {
	te.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e, err := Open(ctx, Config{DataDir: te.dir, Binder: copyBinder{}, Logger: slog.New(slog.NewTextHandler(&te.log, nil)), RecomputeViews: te.recompute, Testing: te.testing})
	if err != nil {
		cancel()
		te.t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- e.Run(ctx) }()
	te.e = e
	te.stop = func() {
		cancel()
		<-ran
		if err := e.Close(); err != nil {
			te.t.Error(err)
		}
	}
}

func (te *testEngine) restart() {
	te.stop()
	te.open()
}

// createTable creates table name (k int8 primary key, v text) and a view
// copying it, view_name.
func (te *testEngine) createTable(name string) (table, view *catalog.Object) {
	te.t.Helper()
	return te.createTableView(name, name)
}

// createTableView creates table name and a view of it planned from sql
// (see copyBinder).
func (te *testEngine) createTableView(name, sql string) (table, view *catalog.Object) {
	te.t.Helper()
	err := te.e.RunDDL(context.Background(), func(ctx context.Context, tx *DDL) error {
		table = &catalog.Object{ID: tx.NextID(), Kind: catalog.KindTable, Schema: catalog.DefaultSchema, Name: name,
			Columns: []catalog.ColumnDef{{Name: "k", Type: types.TypeInt8}, {Name: "v", Type: types.TypeText}}, PrimaryKey: []int{0}}
		return tx.Create(ctx, table)
	})
	if err != nil {
		te.t.Fatal(err)
	}
	err = te.e.RunDDL(context.Background(), func(ctx context.Context, tx *DDL) error {
		view = &catalog.Object{ID: tx.NextID(), Kind: catalog.KindMaterializedView, Schema: catalog.DefaultSchema, Name: "view_" + name,
			SQL: sql, Columns: table.Columns}
		view.Plan, _ = copyBinder{}.PlanView(tx.Catalog(), view)
		return tx.Create(ctx, view)
	})
	if err != nil {
		te.t.Fatal(err)
	}
	return table, view
}

// write commits changes to table: v set for each key of puts, each key of
// dels deleted.
func (te *testEngine) write(table *catalog.Object, puts map[int64]string, dels []int64) {
	te.t.Helper()
	var cs []RowChange
	snap, _ := te.e.Snapshot().Table(table.ID)
	for k, v := range puts {
		row := types.Row{types.NewInt8(k), types.NewText(v)}
		key := RowKey(table, row)
		old, existed, err := snap.GetRaw(key)
		if err != nil {
			te.t.Fatal(err)
		}
		cs = append(cs, RowChange{Key: key, Existed: existed, Expect: old, Row: row})
	}
	for _, k := range dels {
		key := RowKey(table, types.Row{types.NewInt8(k)})
		old, existed, err := snap.GetRaw(key)
		if err != nil {
			te.t.Fatal(err)
		}
		cs = append(cs, RowChange{Key: key, Existed: existed, Expect: old})
	}
	if err := te.e.Commit(context.Background(), &WriteSet{Tables: map[uint64][]RowChange{table.ID: cs}}); err != nil {
		te.t.Fatal(err)
	}
}

// contents renders a table's and its view's rows, in key order, after
// waiting for the view to hydrate.
func (te *testEngine) contents(table, view *catalog.Object) (string, string) {
	te.t.Helper()
	for {
		snap := te.e.Snapshot()
		if he, ok := snap.ViewErr(view.ID).(*HydrationError); ok {
			<-he.Ready
			continue
		} else if err := snap.ViewErr(view.ID); err != nil {
			te.t.Fatalf("view: %v", err)
		}
		ts, _ := snap.Table(table.ID)
		var trows []string
		if err := ts.Scan(func(_ string, r types.Row) bool {
			trows = append(trows, fmt.Sprintf("%d=%s", r[0].Int(), r[1].Str()))
			return true
		}); err != nil {
			te.t.Fatal(err)
		}
		vs, _ := snap.View(view.ID)
		var vrows []string
		if err := vs.ScanAll(func(r types.Row, n int64) bool {
			vrows = append(vrows, fmt.Sprintf("%d=%s", r[0].Int(), r[1].Str()))
			return true
		}); err != nil {
			te.t.Fatal(err)
		}
		slices.Sort(vrows)
		slices.Sort(trows)
		return strings.Join(trows, " "), strings.Join(vrows, " ")
	}
}

// TestTablesAcrossRebases writes a table through many ticks while the
// engine takes new bases under the overlays, and checks after each tick
// and each restart that a scan, a point read and the view over it hold
// exactly the model's rows.
func TestTablesAcrossRebases(t *testing.T) {
	te := openTest(t, t.TempDir())
	defer func() { te.stop() }()
	table, view := te.createTable("t")
	rng := rand.New(rand.NewPCG(7, 7))
	model := map[int64]string{}
	for tick := range 60 {
		puts := map[int64]string{}
		var dels []int64
		for range 1 + rng.IntN(40) {
			k := rng.Int64N(200)
			if _, ok := model[k]; ok && rng.IntN(3) == 0 {
				if _, put := puts[k]; !put && !slices.Contains(dels, k) {
					dels = append(dels, k)
				}
				continue
			}
			if !slices.Contains(dels, k) {
				puts[k] = fmt.Sprintf("v%d.%d", k, tick)
			}
		}
		te.write(table, puts, dels)
		for k, v := range puts {
			model[k] = v
		}
		for _, k := range dels {
			delete(model, k)
		}
		if tick%7 == 3 {
			// Force a new base, as rebaseRows overlaid rows would.
			if err := te.e.call(context.Background(), func(e *Engine) error {
				e.overlaid = rebaseRows
				e.maybeRebase()
				e.publish()
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		if tick%20 == 19 {
			te.restart()
		}
		var want []string
		for k, v := range model {
			want = append(want, fmt.Sprintf("%d=%s", k, v))
		}
		slices.Sort(want)
		trows, vrows := te.contents(table, view)
		if trows != strings.Join(want, " ") || vrows != trows {
			t.Fatalf("tick %d:\ntable %s\nview  %s\nwant  %s", tick, trows, vrows, strings.Join(want, " "))
		}
		ts, _ := te.e.Snapshot().Table(table.ID)
		if got := ts.SizeHint(); got != len(model) {
			t.Fatalf("tick %d: row count %d, want %d", tick, got, len(model))
		}
		for k := range int64(200) {
			row, ok, err := ts.Get(RowKey(table, types.Row{types.NewInt8(k)}))
			if err != nil {
				t.Fatal(err)
			}
			if v, in := model[k]; ok != in || ok && row[1].Str() != v {
				t.Fatalf("tick %d: Get(%d) = %v, %v; want %q, %v", tick, k, row, ok, v, in)
			}
		}
	}
	if !strings.Contains(te.log.String(), "how=restoring") {
		t.Errorf("the view was not restored from its state:\n%s", te.log.String())
	}
}

// TestStateFormatRebuild changes the store's state format to one this
// build does not read: the views are rebuilt from their inputs, said so,
// and persist again in this build's format.
func TestStateFormatRebuild(t *testing.T) {
	dir := t.TempDir()
	te := openTest(t, dir)
	table, view := te.createTable("t")
	te.write(table, map[int64]string{1: "a", 2: "b"}, nil)
	te.stop()
	setMeta(t, dir, stateFormatKey, "0")
	te.log.Reset()
	te.open()
	if _, vrows := te.contents(table, view); vrows != "1=a 2=b" {
		t.Errorf("rebuilt view = %s", vrows)
	}
	log := te.log.String()
	if !strings.Contains(log, "format this build cannot read") || !strings.Contains(log, "how=rebuilding") {
		t.Errorf("the log does not say the view was rebuilt for its format:\n%s", log)
	}
	te.write(table, map[int64]string{3: "c"}, nil)
	te.log.Reset()
	te.restart()
	defer func() { te.stop() }()
	if _, vrows := te.contents(table, view); vrows != "1=a 2=b 3=c" {
		t.Errorf("view after the next restart = %s", vrows)
	}
	if !strings.Contains(te.log.String(), "how=restoring") {
		t.Errorf("the rebuilt view was not persisted again:\n%s", te.log.String())
	}
}

// TestRecomputeThenPersist runs a server that recomputes its views
// between two that persist them: the state the first left must not come
// back stale.
func TestRecomputeThenPersist(t *testing.T) {
	dir := t.TempDir()
	te := openTest(t, dir)
	table, view := te.createTable("t")
	te.write(table, map[int64]string{1: "a"}, nil)
	te.stop()
	te.recompute = true
	te.open()
	te.write(table, map[int64]string{2: "b"}, nil)
	te.stop()
	te.recompute = false
	te.open()
	defer func() { te.stop() }()
	if _, vrows := te.contents(table, view); vrows != "1=a 2=b" {
		t.Errorf("view after a server that recomputed = %s, want 1=a 2=b", vrows)
	}
}

// TestRestoreFailure corrupts a view's persisted state: the view fails,
// reads of it say why, the rest of the engine serves, and the view can
// be dropped.
func TestRestoreFailure(t *testing.T) {
	dir := t.TempDir()
	te := openTest(t, dir)
	table, view := te.createTableView("t", "DISTINCT t")
	te.write(table, map[int64]string{1: "a"}, nil)
	te.stop()
	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch()
	b.PutState(view.ID, []byte{0, 1, 0, 'x'}, []byte{0xff})
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	te.open()
	defer func() { te.stop() }()
	var verr error
	for {
		snap := te.e.Snapshot()
		verr = snap.ViewErr(view.ID)
		if he, ok := verr.(*HydrationError); ok {
			<-he.Ready
			continue
		}
		break
	}
	if verr == nil || !strings.Contains(verr.Error(), "could not be restored") {
		t.Fatalf("read of a view whose state is corrupt: %v", verr)
	}
	te.write(table, map[int64]string{2: "b"}, nil)
	err = te.e.RunDDL(context.Background(), func(ctx context.Context, tx *DDL) error {
		tx.Drop(view)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// setMeta writes a metadata value of the store in dir.
func setMeta(t *testing.T, dir, name, value string) {
	t.Helper()
	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch()
	b.SetMeta(name, []byte(value))
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}
