package dataflow

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

func TestOutputSnapshots(t *testing.T) {
	g := NewGraph()
	in := g.Input()
	out := g.Output(in.Node())
	in.Push(parseBatch("+(2, b) +(1, a) +(3, c) +(1, a)"))
	step(t, g)
	s1 := out.Snapshot()
	if s1 != out.Snapshot() {
		t.Fatal("unchanged output should return the same snapshot")
	}
	in.Push(parseBatch("-(2, b) +(4, d)"))
	step(t, g)
	s2 := out.Snapshot()
	if got := fmtBatch(snapshotBatch(t, s1)); got != "+2(1, a) +(2, b) +(3, c)" {
		t.Fatalf("old snapshot changed: %s", got)
	}
	rows, err := s2.Rows()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, fmtRow(r))
	}
	if join(got) != "(1, a) (1, a) (3, c) (4, d)" {
		t.Fatalf("rows %v", got)
	}
	if s2.Len() != 3 {
		t.Fatalf("len %d", s2.Len())
	}
	if got := fmtBatch(out.Delta()); got != "-(2, b) +(4, d)" {
		t.Fatalf("delta %s", got)
	}
	var seek []string
	if err := s2.Seek(types.Row{types.NewInt8(2)}, func(r types.Row, n int64) bool {
		seek = append(seek, fmtRow(r))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if join(seek) != "(3, c) (4, d)" {
		t.Fatalf("seek %v", seek)
	}
	var look []string
	if err := s2.Lookup(types.Row{types.NewInt8(1)}, func(r types.Row, n int64) bool {
		look = append(look, fmtUpdate(Update{Row: r, Diff: n}))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if join(look) != "+2(1, a)" {
		t.Fatalf("lookup %v", look)
	}
}

func TestIndexLookup(t *testing.T) {
	g := NewGraph()
	in := g.Input()
	idx := g.Index(in.Node(), col(1))
	in.Push(parseBatch("+(1, x) +(2, y) +(3, x) +(4, NULL)"))
	step(t, g)
	lookup := func(key types.Row) string {
		var got []string
		if err := idx.Snapshot().Lookup(key, func(r types.Row, n int64) bool {
			got = append(got, fmtRow(r))
			return true
		}); err != nil {
			t.Fatal(err)
		}
		return join(got)
	}
	if got := lookup(types.Row{types.NewText("x")}); got != "(1, x) (3, x)" {
		t.Fatalf("x: %s", got)
	}
	if got := lookup(types.Row{types.NewText("z")}); got != "" {
		t.Fatalf("z: %s", got)
	}
	if got := lookup(types.Row{types.Null}); got != "(4, NULL)" {
		t.Fatalf("NULL: %s", got)
	}
	var all []string
	if err := idx.Snapshot().Scan(func(r types.Row, n int64) bool { all = append(all, fmtRow(r)); return true }); err != nil {
		t.Fatal(err)
	}
	if join(all) != "(1, x) (3, x) (2, y) (4, NULL)" {
		t.Fatalf("index order %v", all)
	}
}

// TestOutputErrors: a view reads as its first error while an erroring
// row is present, and recovers when it is deleted.
func TestOutputErrors(t *testing.T) {
	g := NewGraph()
	in := g.Input()
	m := g.Map(in.Node(), func(r types.Row) (types.Row, error) {
		if r[0].Int() == 0 {
			return nil, errDivByZero
		}
		return types.Row{types.NewInt8(100 / r[0].Int())}, nil
	})
	out := g.Output(g.Distinct(m))
	in.Push(parseBatch("+(5) +(0)"))
	step(t, g)
	s := out.Snapshot()
	var pe *pgerr.Error
	if _, err := s.Rows(); !errors.As(err, &pe) || pe.Code != pgerr.DivisionByZero {
		t.Fatalf("got %v", err)
	}
	if len(out.Errors()) != 1 || fmtErrors(out.DeltaErrors()) != "+1 22012 division by zero" {
		t.Fatalf("errors %s", fmtErrors(out.Errors()))
	}
	in.Push(parseBatch("-(0)"))
	step(t, g)
	rows, err := out.Snapshot().Rows()
	if err != nil || len(rows) != 1 || rows[0][0].Int() != 20 {
		t.Fatalf("got %v %v", rows, err)
	}
	if s.Err() == nil {
		t.Fatal("old snapshot lost its error")
	}
}

// TestDependentGraphs feeds one graph's view into another, errors
// included, as the engine does for views on views.
func TestDependentGraphs(t *testing.T) {
	g1 := NewGraph()
	in1 := g1.Input()
	v1 := g1.Output(g1.Filter(in1.Node(), func(r types.Row) (bool, error) {
		if r[0].Int() < 0 {
			return false, errDivByZero
		}
		return r[0].Int() > 1, nil
	}))
	g2 := NewGraph()
	in2 := g2.Input()
	v2 := g2.Output(g2.Reduce(in2.Node(), ReduceSpec{Aggs: []Aggregate{countAgg{}}, Global: true}))
	tick := func(b string) {
		in1.Push(parseBatch(b))
		step(t, g1)
		in2.Push(v1.Delta())
		in2.PushErrors(v1.DeltaErrors())
		step(t, g2)
	}
	tick("+(1) +(2) +(3)")
	if got := fmtBatch(snapshotBatch(t, v2.Snapshot())); got != "+(2)" {
		t.Fatalf("got %s", got)
	}
	tick("+(-1)")
	if v2.Snapshot().Err() == nil {
		t.Fatal("dependent view not in error")
	}
	tick("-(-1) -(3)")
	if s := v2.Snapshot(); s.Err() != nil || fmtBatch(snapshotBatch(t, s)) != "+(1)" {
		t.Fatalf("got %v %s", s.Err(), fmtBatch(snapshotBatch(t, s)))
	}
}

func TestSnapshotNonPositive(t *testing.T) {
	g := NewGraph()
	in := g.Input()
	out := g.Output(in.Node())
	in.Push(parseBatch("-(1)"))
	step(t, g)
	if _, err := out.Snapshot().Rows(); err == nil {
		t.Fatal("negative multiplicity read without error")
	}
}

// TestSnapshotConcurrentReads reads snapshots on other goroutines while
// the graph keeps stepping; run with -race. Each snapshot must keep
// exactly the contents of its tick: the integers 0..n-1 after tick n.
func TestSnapshotConcurrentReads(t *testing.T) {
	g := NewGraph()
	in := g.Input()
	out := g.Output(in.Node())
	idx := g.Index(in.Node(), col(0))
	type tickSnaps struct {
		out, idx *Snapshot
		n        int64
	}
	const ticks = 300
	snaps := make(chan tickSnaps, ticks)
	errs := make(chan error, 4)
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range snaps {
				next := int64(0)
				if err := s.out.Scan(func(r types.Row, n int64) bool {
					if r[0].Int() != next || n != 1 {
						return false
					}
					next++
					return true
				}); err != nil {
					errs <- err
					return
				}
				found := 0
				if err := s.idx.Lookup(types.Row{types.NewInt8(s.n - 1)}, func(types.Row, int64) bool {
					found++
					return true
				}); err != nil {
					errs <- err
					return
				}
				if next != s.n || found != 1 || s.idx.Len() != int(s.n) {
					errs <- fmt.Errorf("snapshot of tick %d changed under reader: %d rows, %d found", s.n, next, found)
					return
				}
			}
		}()
	}
	// Another reader takes snapshots itself while the graph steps: each
	// must hold 0..n-1 for some n (or 1..n-1 between the two extra steps
	// of every 7th tick).
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			snap := out.Snapshot()
			var rows []int64
			if err := snap.Scan(func(r types.Row, n int64) bool {
				rows = append(rows, r[0].Int())
				return true
			}); err != nil {
				errs <- err
				return
			}
			for j := 1; j < len(rows); j++ {
				if rows[j] != rows[j-1]+1 {
					errs <- fmt.Errorf("snapshot taken during a step is torn: %v", rows)
					return
				}
			}
		}
	}()
	for i := int64(0); i < ticks; i++ {
		// Every 7th tick also deletes and re-adds row 0 in separate
		// steps, so that old and new trees share and clone nodes.
		if i%7 == 0 && i > 0 {
			in.Push(parseBatch("-(0)"))
			step(t, g)
			_ = out.Snapshot()
			in.Push(parseBatch("+(0)"))
			step(t, g)
		}
		in.Push(Batch{{Row: types.Row{types.NewInt8(i)}, Diff: 1}})
		step(t, g)
		snaps <- tickSnaps{out: out.Snapshot(), idx: idx.Snapshot(), n: i + 1}
	}
	close(snaps)
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// BenchmarkOutput: applying ticks of 256 changes to a view of 1e3 or 1e6
// rows and taking a snapshot after each, as the engine does.
func BenchmarkOutput(b *testing.B) {
	for _, st := range benchStates {
		b.Run(st.name, func(b *testing.B) {
			g := NewGraph()
			in := g.Input()
			out := g.Output(in.Node())
			fill(b, g, in, st.n, func(i int) types.Row { return int8Row(int64(i), int64(i)) })
			batches := make([]Batch, 16)
			for i := range batches {
				for j := range benchDelta {
					batches[i] = append(batches[i], Update{Row: int8Row(int64(st.n+i*benchDelta+j), 0), Diff: 1})
				}
			}
			neg := func(bt Batch) Batch {
				n := make(Batch, len(bt))
				for k, u := range bt {
					n[k] = Update{Row: u.Row, Diff: -1}
				}
				return n
			}
			negs := make([]Batch, len(batches))
			for i := range batches {
				negs[i] = neg(batches[i])
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				in.Push(batches[i%len(batches)])
				if i > 0 {
					in.Push(negs[(i-1)%len(batches)])
				}
				step(b, g)
				_ = out.Snapshot()
			}
			b.ReportMetric(float64(b.N*2*benchDelta)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// TestPublishedSnapshot checks Publish for each kind of Output (rows,
// groups, groups' words) against a reference Output of the same graph
// read only through kept snapshots: a published snapshot nobody read is
// revoked by the next Step that changes the Output, which changes its
// trees in place, and its read fails with ErrSnapshotGone; the next
// Publish holds its snapshot, which no Step revokes before it is read; a
// pinned snapshot stays as it was; one read and unpinned before a Step
// is revoked and gives its generation back; a Step that changes nothing
// revokes nothing; Publish holds its snapshot while the last one was read.
func TestPublishedSnapshot(t *testing.T) {
	for _, kind := range []string{"rows", "groups", "words"} {
		t.Run(kind, func(t *testing.T) {
			build := func() (*Graph, *Input, *Output) {
				g := NewGraph()
				in := g.Input()
				switch kind {
				case "groups":
					red := g.Reduce(in.Node(), ReduceSpec{KeyCols: []int{0}, Aggs: []Aggregate{countAgg{}}})
					g.Collect(red)
					return g, in, g.Output(red)
				case "words":
					return g, in, g.Output(g.Reduce(in.Node(), ReduceSpec{KeyCols: []int{0}, Aggs: []Aggregate{flatCountAgg{}}}))
				}
				return g, in, g.Output(in.Node())
			}
			g, in, out := build()
			refG, refIn, ref := build()
			tick := func(b string) {
				in.Push(parseBatch(b))
				refIn.Push(parseBatch(b))
				step(t, g)
				step(t, refG)
			}
			read := func(s *Snapshot) string {
				var b Batch
				err := s.Scan(func(r types.Row, n int64) bool { b = append(b, Update{Row: r, Diff: n}); return true })
				if err != nil {
					return err.Error()
				}
				return fmtBatch(b)
			}
			gens := func() uint64 { return out.tree.gen + out.groups.gen + out.words.gen }
			held := func(s *Snapshot) bool { return s.state.Load()&snapHeld != 0 }
			// inPlace runs a tick that must revoke s and change the
			// trees in place, in generation gen.
			inPlace := func(s *Snapshot, gen uint64, b, what string) {
				t.Helper()
				tick(b)
				if gens() != gen {
					t.Fatalf("%s: the Step started a new generation", what)
				}
				if _, err := s.Rows(); !errors.Is(err, ErrSnapshotGone) {
					t.Fatalf("%s: read after the Step: %v, want ErrSnapshotGone", what, err)
				}
			}

			tick("+(1) +(2)")
			unread := out.Publish()
			inPlace(unread, gens(), "+(3)", "a snapshot nobody read")
			retry := out.Publish()
			if !held(retry) {
				t.Fatal("the Publish after a failed read did not hold its snapshot")
			}
			want := read(ref.Snapshot())
			tick("+(4)")
			if got := read(retry); got != want {
				t.Fatalf("snapshot published after a failed read: %s, want %s", got, want)
			}

			pinned := out.Publish()
			if err := pinned.Pin(); err != nil {
				t.Fatal(err)
			}
			want = read(ref.Snapshot())
			tick("+(5) -(1)")
			if got := read(pinned); got != want {
				t.Fatalf("snapshot pinned over a Step: %s after it, want %s", got, want)
			}
			pinned.Unpin()

			gen := gens()
			released := out.Publish()
			if got, want := read(released), read(ref.Snapshot()); got != want {
				t.Fatalf("published snapshot: %s, want %s", got, want)
			}
			inPlace(released, gen, "+(6)", "a snapshot whose only read ended")

			quiet := out.Publish()
			tick("")
			if got, want := read(quiet), read(ref.Snapshot()); got != want || quiet.Len() != 5 {
				t.Fatalf("snapshot of a Step that changed nothing: %s (%d rows), want %s", got, quiet.Len(), want)
			}
			// Reads keep the published snapshots held; one unread lets
			// the next go unheld.
			tick("+(7)")
			if !held(out.Publish()) {
				t.Fatal("the Publish after a read snapshot did not hold its snapshot")
			}
			tick("+(8)")
			if held(out.Publish()) {
				t.Fatal("the Publish after an unread snapshot held its snapshot")
			}
		})
	}
}

// TestPublishedSnapshotConcurrentReads reads published snapshots on other
// goroutines, pinned over two scans, while the graph steps and publishes;
// run with -race. Every tick replaces each of 200 rows (k, t) by (k, t+1)
// (for words, adds 1 to each of 200 groups' sums), so that every leaf
// changes in place whenever the last snapshot's reads have ended: a
// snapshot must show one t in all its rows, the same in both scans.
func TestPublishedSnapshotConcurrentReads(t *testing.T) {
	for _, kind := range []string{"rows", "words"} {
		t.Run(kind, func(t *testing.T) {
			const keys, ticks = 200, 300
			g := NewGraph()
			in := g.Input()
			out := g.Output(in.Node())
			if kind == "words" {
				out = g.Output(g.Reduce(in.Node(), ReduceSpec{KeyCols: []int{0}, Aggs: []Aggregate{flatSumAgg{sumAgg{col: 1}}}}))
			}
			row := func(k, v int) types.Row { return types.Row{types.NewInt8(int64(k)), types.NewInt8(int64(v))} }
			var latest atomic.Pointer[Snapshot]
			// values returns the second column of every row, and the
			// scan's error.
			values := func(s *Snapshot) ([]int64, error) {
				var vs []int64
				err := s.Scan(func(r types.Row, _ int64) bool {
					vs = append(vs, r[1].Int())
					return true
				})
				return vs, err
			}
			stop := make(chan struct{})
			errs := make(chan error, 3)
			var reads, gone atomic.Int64
			var wg sync.WaitGroup
			for range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						select {
						case <-stop:
							return
						default:
						}
						s := latest.Load()
						if s == nil {
							continue
						}
						if err := s.Pin(); err != nil {
							gone.Add(1)
							runtime.Gosched()
							continue
						}
						first, err1 := values(s)
						second, err2 := values(s)
						s.Unpin()
						if err := errors.Join(err1, err2); err != nil {
							errs <- err
							return
						}
						if len(first) != keys || slices.Min(first) != slices.Max(first) || !slices.Equal(first, second) {
							errs <- fmt.Errorf("a pinned snapshot changed under its reader: %v, then %v", first, second)
							return
						}
						reads.Add(1)
						// A pause lets Steps find no pins, and change
						// the trees in place.
						time.Sleep(20 * time.Microsecond)
					}
				}()
			}
			var b Batch
			for k := range keys {
				b = append(b, Update{Row: row(k, 1), Diff: 1})
			}
			for tick := 1; tick <= ticks; tick++ {
				in.Push(b)
				step(t, g)
				latest.Store(out.Publish())
				b = b[:0]
				for k := range keys {
					if kind == "words" {
						b = append(b, Update{Row: row(k, 1), Diff: 1})
						continue
					}
					b = append(b, Update{Row: row(k, tick), Diff: -1}, Update{Row: row(k, tick+1), Diff: 1})
				}
				if tick%50 == 0 {
					time.Sleep(time.Millisecond)
				}
			}
			close(stop)
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			if reads.Load() == 0 {
				t.Fatal("no reads")
			}
			t.Logf("%d reads, %d of revoked snapshots", reads.Load(), gone.Load())
		})
	}
}
