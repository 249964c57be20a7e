package sinkstest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/streamdb/streamdb/sinks"
	"github.com/streamdb/streamdb/types"
)

func row(v int64) types.Row { return types.Row{types.NewInt8(v)} }

func next(t *testing.T, f sinks.Feed) sinks.Tick {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	tk, err := f.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestScript(t *testing.T) {
	s := New(5)
	s.Append(sinks.Tick{Time: 10, Changes: []sinks.Change{{Row: row(1), Diff: 1}, {Row: row(2), Diff: 2}}})
	s.Append(sinks.Tick{Time: 20, Changes: []sinks.Change{{Row: row(2), Diff: -1}, {Row: row(3), Diff: 1}}})
	ctx := context.Background()

	// A first start without snapshot begins with an empty tick now.
	f, _ := s.Open(ctx, sinks.Start{})
	if tk := next(t, f); tk.Time != 20 || tk.Snapshot || len(tk.Changes) != 0 {
		t.Fatalf("first tick %+v", tk)
	}
	if f.Pending() {
		t.Fatal("nothing should be pending")
	}
	// A first start with snapshot sees the folded contents.
	f, _ = s.Open(ctx, sinks.Start{Snapshot: true})
	if tk := next(t, f); tk.Time != 20 || !tk.Snapshot || len(tk.Changes) != 3 || tk.Changes[1].Diff != 1 {
		t.Fatalf("snapshot %+v", tk)
	}
	// A resume replays the ticks after its progress, then live ones.
	f, _ = s.Open(ctx, sinks.Start{Resume: true, After: 10, Snapshot: true})
	if tk := next(t, f); tk.Time != 20 || tk.Snapshot {
		t.Fatalf("replayed %+v", tk)
	}
	go s.Append(sinks.Tick{Time: 30, Changes: []sinks.Change{{Row: row(1), Diff: -1}}})
	if tk := next(t, f); tk.Time != 30 {
		t.Fatalf("live %+v", tk)
	}
	// Once the history is compacted, a resume from before it gets a
	// snapshot.
	s.Compact(20)
	f, _ = s.Open(ctx, sinks.Start{Resume: true, After: 10, Snapshot: true})
	if tk := next(t, f); tk.Time != 30 || !tk.Snapshot || len(tk.Changes) != 2 {
		t.Fatalf("snapshot after compaction %+v", tk)
	}
	f, _ = s.Open(ctx, sinks.Start{Resume: true, After: 20, Snapshot: true})
	if tk := next(t, f); tk.Time != 30 || tk.Snapshot {
		t.Fatalf("replay after compaction %+v", tk)
	}
	s.Stop()
	if _, err := f.Next(ctx); !errors.Is(err, ErrStopped) {
		t.Fatalf("after Stop: %v", err)
	}
	if got := len(s.Starts()); got != 5 {
		t.Fatalf("%d starts recorded", got)
	}
}
