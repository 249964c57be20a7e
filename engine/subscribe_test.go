package engine_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// feedLines reads a feed until it has n ticks with changes, rendering
// each as "time: +x +y"; progress ticks are checked to increase.
func feedLines(t *testing.T, sub *engine.Subscription, n int) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out []string
	var progress uint64
	for len(out) < n {
		ticks, err := sub.Next(ctx)
		if err != nil {
			t.Fatalf("after %q: %v", out, err)
		}
		for _, tk := range ticks {
			if tk.Progress {
				if tk.TS < progress {
					t.Fatalf("progress went back from %d to %d", progress, tk.TS)
				}
				progress = tk.TS
				continue
			}
			if tk.TS < progress {
				t.Fatalf("changes at %d after progress %d", tk.TS, progress)
			}
			var parts []string
			for _, u := range tk.Delta {
				parts = append(parts, fmt.Sprintf("%+d", u.Diff*u.Row[0].Int()))
			}
			out = append(out, fmt.Sprintf("%d: %s", tk.TS, strings.Join(parts, " ")))
		}
	}
	return out
}

// TestSubscribeAsOfCold replays a cold relation (a source's append-only
// output, whose rows live only in the store) from a past tick: the
// snapshot holds the rows appended up to it, read back by row id, and
// each later tick brings its own rows; UP TO ends the feed.
func TestSubscribeAsOfCold(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	src := &gatedCounter{gate: make(chan struct{})}
	e, stop := start(dir, nil)
	defer stop()
	var rel *catalog.Object
	err := e.RunDDL(ctx, func(ctx context.Context, tx *engine.DDL) error {
		if err := tx.CreateSource(ctx, engine.SourceDef{Name: "numbers", SQL: "CREATE SOURCE numbers …", Own: true}, src); err != nil {
			return err
		}
		rel, _ = tx.Catalog().Lookup(catalog.DefaultSchema, "numbers")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	get := &planner.Get{ID: planner.ObjectID(rel.ID), Name: rel.Name, Cols: rel.PlanColumns()}
	follow, err := e.Subscribe(ctx, get, engine.FeedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Unsubscribe(ctx, follow)
	if !rel.Cold {
		t.Fatalf("the source's relation is not cold: the test proves nothing")
	}
	for range 5 {
		src.gate <- struct{}{} // one row, one tick
	}
	seen := strings.Join(feedLines(t, follow, 5), "\n")
	var times []uint64
	for _, l := range strings.Split(seen, "\n") {
		var ts uint64
		fmt.Sscanf(l, "%d:", &ts)
		times = append(times, ts)
	}

	// AS OF the second row's tick: rows 1 and 2 as the snapshot, then 3
	// and 4, and UP TO the fifth's tick leaves it out.
	sub, err := e.Subscribe(ctx, get, engine.FeedOptions{Snapshot: true, HasAsOf: true, AsOf: times[1], UpTo: times[4]})
	if err != nil {
		t.Fatal(err)
	}
	got := feedLines(t, sub, 3)
	want := []string{fmt.Sprintf("%d: +1 +2", times[1]), fmt.Sprintf("%d: +3", times[2]), fmt.Sprintf("%d: +4", times[3])}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("AS OF replay\n%s\nwant\n%s\n(live feed:\n%s)", strings.Join(got, "\n"), strings.Join(want, "\n"), seen)
	}
	for {
		ticks, err := sub.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range ticks {
			if !tk.Progress || tk.TS > times[4] {
				t.Fatalf("after the replay: %+v", tk)
			}
		}
	}
}

// gatedCounter is counter that emits its next number each time the test
// opens its gate.
type gatedCounter struct {
	counter
	gate chan struct{}
}

func (c *gatedCounter) Run(ctx context.Context, _ map[string][]byte, sink sources.Sink) error {
	sink.Status(sources.Running, "")
	for next := int64(1); ; next++ {
		select {
		case <-c.gate:
		case <-ctx.Done():
			return nil
		}
		b := &sources.Batch{Changes: [][]sources.Change{{{Row: types.Row{types.NewInt8(next)}, Diff: 1}}}}
		if err := sink.Emit(ctx, b); err != nil {
			return err
		}
	}
}

// TestSubscribeAsOfFuture starts a feed at a time not reached yet: it
// waits for it, and its snapshot holds the changes made meanwhile.
func TestSubscribeAsOfFuture(t *testing.T) {
	e, stop := start(t.TempDir(), nil)
	defer stop()
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
	get := &planner.Get{ID: planner.ObjectID(tbl.ID), Name: tbl.Name, Cols: tbl.PlanColumns()}
	now, err := e.Subscribe(ctx, get, engine.FeedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.Unsubscribe(ctx, now)
	asOf := now.AsOf() + 3000
	sub, err := e.Subscribe(ctx, get, engine.FeedOptions{Snapshot: true, HasAsOf: true, AsOf: asOf})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Unsubscribe(ctx, sub)
	commit := func(x int64) {
		t.Helper()
		w := &engine.WriteSet{Tables: map[uint64][]engine.RowChange{tbl.ID: {{Row: types.Row{types.NewInt8(x)}}}}}
		if err := e.Commit(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	commit(1)
	commit(2)
	if sub.Ready() {
		t.Fatal("a feed whose start is still ahead delivered something")
	}
	got := feedLines(t, sub, 1)
	if want := fmt.Sprintf("%d: +1 +2", asOf); got[0] != want {
		t.Fatalf("snapshot %q, want %q", got[0], want)
	}
	commit(3)
	if got := feedLines(t, sub, 1); !strings.HasSuffix(got[0], ": +3") {
		t.Fatalf("after the start: %q", got)
	}
}
