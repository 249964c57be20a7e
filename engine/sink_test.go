package engine_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sinks"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// recordingSink is a sink that writes nowhere: each Run opens the feed
// at the start the test sets, hands every tick to the test, and reports
// each committed when the test says so.
type recordingSink struct {
	start  chan sinks.Start
	ticks  chan sinks.Tick
	commit chan uint64
}

func newRecordingSink() *recordingSink {
	return &recordingSink{start: make(chan sinks.Start, 1), ticks: make(chan sinks.Tick, 100), commit: make(chan uint64, 100)}
}

func (s *recordingSink) Run(ctx context.Context, eng sinks.Engine) error {
	var start sinks.Start
	select {
	case start = <-s.start:
	case <-ctx.Done():
		return nil
	}
	feed, err := eng.Open(ctx, start)
	if err != nil {
		return err
	}
	defer feed.Close()
	eng.Status(sinks.Running, "")
	for {
		t, err := feed.Next(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		s.ticks <- t
		select {
		case c := <-s.commit:
			feed.Committed(c)
		default:
		}
	}
}

type sinkBinder struct{ sink *recordingSink }

func (b sinkBinder) PlanView(*catalog.Catalog, *catalog.Object) (planner.Node, error) {
	return nil, errors.New("no views")
}

func (b sinkBinder) OpenSource(*catalog.Catalog, *catalog.Object) (sources.Source, error) {
	return nil, errors.New("no sources")
}

func (b sinkBinder) OpenSink(*catalog.Catalog, *catalog.Object, string) (sinks.Sink, error) {
	return b.sink, nil
}

func render(t sinks.Tick) string {
	var parts []string
	for _, c := range t.Changes {
		parts = append(parts, fmt.Sprintf("%+d:%d", c.Diff, c.Row[0].Int()))
	}
	return strings.Join(parts, " ")
}

// TestSinkHistory follows the sinks.Engine contract across restarts: a
// first start gets a snapshot; the ticks after it come from the history
// the engine writes with each tick; a sink that resumes after a time its
// history covers gets exactly the ticks after it, from the store, after
// the engine restarted; one that resumes before its (trimmed) history
// gets a snapshot.
func TestSinkHistory(t *testing.T) {
	dir := t.TempDir()
	s := newRecordingSink()
	e, stop := start(dir, sinkBinder{s})
	ctx := context.Background()
	var tbl *catalog.Object
	err := e.RunDDL(ctx, func(ctx context.Context, tx *engine.DDL) error {
		tbl = &catalog.Object{ID: tx.NextID(), Kind: catalog.KindTable, Schema: catalog.DefaultSchema, Name: "t",
			Columns: []catalog.ColumnDef{{Name: "x", Type: types.TypeInt8}}}
		return tx.Create(ctx, tbl)
	})
	if err != nil {
		t.Fatal(err)
	}
	insert := func(e *engine.Engine, xs ...int64) {
		t.Helper()
		var rows []engine.RowChange
		for _, x := range xs {
			rows = append(rows, engine.RowChange{Row: types.Row{types.NewInt8(x)}})
		}
		if err := e.Commit(ctx, &engine.WriteSet{Tables: map[uint64][]engine.RowChange{tbl.ID: rows}}); err != nil {
			t.Fatal(err)
		}
	}
	next := func() sinks.Tick {
		t.Helper()
		select {
		case tk := <-s.ticks:
			return tk
		case <-time.After(10 * time.Second):
			t.Fatal("no tick")
			return sinks.Tick{}
		}
	}
	insert(e, 1, 2)
	err = e.RunDDL(ctx, func(ctx context.Context, tx *engine.DDL) error {
		return tx.CreateSink(ctx, engine.SinkDef{ID: tx.NextID(), Name: "s", SQL: "CREATE SINK s …", From: tbl.ID}, s)
	})
	if err != nil {
		t.Fatal(err)
	}
	s.start <- sinks.Start{Snapshot: true}
	first := next()
	if !first.Snapshot || render(first) != "+1:1 +1:2" {
		t.Fatalf("first tick %+v, want the snapshot", first)
	}
	insert(e, 3)
	t1 := next()
	insert(e, 4, 5)
	t2 := next()
	if render(t1) != "+1:3" || render(t2) != "+1:4 +1:5" || t1.Snapshot || t1.Time <= first.Time || t2.Time <= t1.Time {
		t.Fatalf("ticks %+v %+v", t1, t2)
	}
	stop()

	// The sink committed up to t1 (its progress, in Kafka); after the
	// restart it asks for the ticks after it and gets t2 and the new
	// ones, from the history in the store.
	e, stop = start(dir, sinkBinder{s})
	s.start <- sinks.Start{Resume: true, After: t1.Time}
	if got := next(); got.Time != t2.Time || got.Snapshot || render(got) != render(t2) {
		t.Fatalf("after the restart: %+v, want %+v", got, t2)
	}
	insert(e, 6)
	t3 := next()
	if render(t3) != "+1:6" {
		t.Fatalf("tick after the restart: %+v", t3)
	}
	s.commit <- t3.Time // reported with the next tick
	insert(e, 7)
	next()
	insert(e, 8) // a tick after the report: it trims the history up to t3
	next()
	stop()

	// Resuming before the history (t1, forgotten since) gets a snapshot.
	e, stop = start(dir, sinkBinder{s})
	defer stop()
	s.start <- sinks.Start{Resume: true, After: t1.Time}
	if got := next(); !got.Snapshot || render(got) != "+1:1 +1:2 +1:3 +1:4 +1:5 +1:6 +1:7 +1:8" {
		t.Fatalf("resuming before the history: %+v, want a snapshot", got)
	}
	if got := e.SinkStatus(tbl.ID + 1); got != "running" {
		t.Errorf("SinkStatus = %q", got)
	}
}

// fencedSink stands for a sink another instance took over: its Run fails
// with sinks.ErrFenced every time.
type fencedSink struct{ runs chan struct{} }

func (s *fencedSink) Run(ctx context.Context, eng sinks.Engine) error {
	s.runs <- struct{}{}
	eng.Status(sinks.Stalled, "fenced")
	return fmt.Errorf("kafka sink 1: %w", sinks.ErrFenced)
}

// TestSinkFencedNotRestarted checks that a sink whose Run returns
// sinks.ErrFenced is not run again (it would fence the other instance
// back), and stays stalled with its reason.
func TestSinkFencedNotRestarted(t *testing.T) {
	e, stop := start(t.TempDir(), nil)
	defer stop()
	ctx := context.Background()
	s := &fencedSink{runs: make(chan struct{}, 10)}
	var id uint64
	err := e.RunDDL(ctx, func(ctx context.Context, tx *engine.DDL) error {
		tbl := &catalog.Object{ID: tx.NextID(), Kind: catalog.KindTable, Schema: catalog.DefaultSchema, Name: "t",
			Columns: []catalog.ColumnDef{{Name: "x", Type: types.TypeInt8}}}
		if err := tx.Create(ctx, tbl); err != nil {
			return err
		}
		id = tx.NextID()
		return tx.CreateSink(ctx, engine.SinkDef{ID: id, Name: "s", SQL: "CREATE SINK s …", From: tbl.ID}, s)
	})
	if err != nil {
		t.Fatal(err)
	}
	<-s.runs
	select {
	case <-s.runs:
		t.Fatal("a fenced sink ran again")
	case <-time.After(1500 * time.Millisecond): // past the first restart's backoff
	}
	if got := e.SinkStatus(id); !strings.HasPrefix(got, "stalled: ") || !strings.Contains(got, "took over") {
		t.Errorf("SinkStatus = %q", got)
	}
}

// TestSinkWithoutSnapshot checks that a sink without SNAPSHOT writes
// every change after CREATE SINK, the ones committed before it first
// opens its feed (while it connects to its system) too, across a
// restart in between.
func TestSinkWithoutSnapshot(t *testing.T) {
	dir := t.TempDir()
	s := newRecordingSink()
	e, stop := start(dir, sinkBinder{s})
	ctx := context.Background()
	var tbl *catalog.Object
	err := e.RunDDL(ctx, func(ctx context.Context, tx *engine.DDL) error {
		tbl = &catalog.Object{ID: tx.NextID(), Kind: catalog.KindTable, Schema: catalog.DefaultSchema, Name: "t",
			Columns: []catalog.ColumnDef{{Name: "x", Type: types.TypeInt8}}}
		return tx.Create(ctx, tbl)
	})
	if err != nil {
		t.Fatal(err)
	}
	insert := func(e *engine.Engine, x int64) {
		t.Helper()
		w := &engine.WriteSet{Tables: map[uint64][]engine.RowChange{tbl.ID: {{Row: types.Row{types.NewInt8(x)}}}}}
		if err := e.Commit(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	insert(e, 1)
	err = e.RunDDL(ctx, func(ctx context.Context, tx *engine.DDL) error {
		return tx.CreateSink(ctx, engine.SinkDef{ID: tx.NextID(), Name: "s", SQL: "CREATE SINK s …", From: tbl.ID}, s)
	})
	if err != nil {
		t.Fatal(err)
	}
	insert(e, 2)
	stop()
	e, stop = start(dir, sinkBinder{s})
	defer stop()
	insert(e, 3)
	s.start <- sinks.Start{}
	var got []string
	var last uint64
	for len(got) < 3 {
		select {
		case tk := <-s.ticks:
			if tk.Snapshot || (len(got) > 0 && tk.Time <= last) {
				t.Fatalf("tick %+v after %d", tk, last)
			}
			got, last = append(got, render(tk)), tk.Time
		case <-time.After(10 * time.Second):
			t.Fatalf("ticks %q, then nothing", got)
		}
	}
	if want := []string{"", "+1:2", "+1:3"}; !slices.Equal(got, want) {
		t.Fatalf("ticks %q, want %q", got, want)
	}
}
