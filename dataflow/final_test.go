package dataflow

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/types"
)

// TestFinalStepChunks checks that a final step's result does not depend
// on how it is chunked: for every property scenario and random inputs,
// pushed or fed, the rows a Sink receives with chunks of 1, 2 and 5
// rows, and of the default size, equal the delta of a plain first Step,
// and the step fails exactly when that delta carries errors, with one of
// them.
func TestFinalStepChunks(t *testing.T) {
	iters := 40
	if testing.Short() {
		iters = 10
	}
	for _, sc := range propertyScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			for seed := uint64(1); seed <= uint64(iters); seed++ {
				if err := checkFinalChunks(sc, seed); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
			}
		})
	}
}

func checkFinalChunks(sc scenario, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 0xc4))
	h := randHistory(rng, sc.inputs, sc.anyWeights, sc.appendOnly)
	acc := make([]Batch, sc.inputs)
	for i, u := range h.upd {
		acc[h.input[i]] = append(acc[h.input[i]], u)
	}
	for i := range acc {
		acc[i] = acc[i].Consolidate()
		if !positive(acc[i]) {
			return nil // a query's inputs are insertions
		}
	}
	g := NewGraph()
	ins, nodes := inputs(g, sc.inputs)
	c := g.Collect(sc.build(g, nodes))
	for i, b := range acc {
		ins[i].Push(b)
	}
	if err := g.Step(context.Background()); err != nil {
		return err
	}
	if !positive(c.Delta()) {
		return nil // nor is a query's result
	}
	want, wantErrs := fmtBatch(c.Delta()), c.Errors()
	for _, chunk := range []int{1, 2, 5, 0} {
		g := NewGraph()
		g.fin.chunk = chunk
		ins, nodes := inputs(g, sc.inputs)
		var got Batch
		g.Sink(sc.build(g, nodes), func(_ context.Context, b Batch) error {
			got = append(got, b...)
			return nil
		})
		for i, b := range acc {
			// Half of the inputs as one batch, half as a feed of rows.
			if i%2 == 0 {
				ins[i].Push(b)
				continue
			}
			ins[i].Feed(len(b), func(ctx context.Context, emit func(Batch) error) error {
				for j := range b {
					if err := emit(b[j : j+1]); err != nil {
						return err
					}
				}
				return nil
			})
		}
		err := g.StepFinal(context.Background())
		switch {
		case len(wantErrs) > 0:
			if err == nil || !slices.ContainsFunc(wantErrs, func(e ErrorUpdate) bool { return strings.HasSuffix(err.Error(), e.Err.Error()) }) {
				return fmt.Errorf("chunk %d: error %v, want one of %s", chunk, err, fmtErrors(wantErrs))
			}
		case err != nil:
			return fmt.Errorf("chunk %d: %v", chunk, err)
		case fmtBatch(got.Consolidate()) != want:
			return fmt.Errorf("chunk %d: sink got %s, want %s", chunk, fmtBatch(got.Consolidate()), want)
		}
	}
	return nil
}

// TestFinalStepStreams checks that rows reach the sink while the input is
// still being read, and that a cross join's output and a flat map's
// expansion move in chunks however large they are.
func TestFinalStepStreams(t *testing.T) {
	g := NewGraph()
	in := g.Input()
	fed := 0
	in.Feed(100, func(ctx context.Context, emit func(Batch) error) error {
		for i := range 100 {
			fed++
			if err := emit(Batch{{Row: types.Row{types.NewInt8(int64(i))}, Diff: 1}}); err != nil {
				return err
			}
		}
		return nil
	})
	other := g.Input()
	other.Push(Batch{{Row: types.Row{types.NewInt8(1)}, Diff: 1}})
	cross := g.Join(other.Node(), in.Node(), JoinSpec{Output: concat})
	expand := g.FlatMap(cross, func(r types.Row, emit func(types.Row) bool) error {
		for range 1000 {
			if !emit(r) {
				return nil
			}
		}
		return nil
	})
	g.fin.chunk = 64
	firstAt, rows, largest := -1, 0, 0
	g.Sink(expand, func(_ context.Context, b Batch) error {
		if firstAt < 0 {
			firstAt = fed
		}
		rows += len(b)
		largest = max(largest, len(b))
		return nil
	})
	if err := g.StepFinal(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A chunk of the join's output, 64 matches of as many rows, fills
	// first.
	if firstAt != 64 || rows != 100*1000 || largest > 2*64 {
		t.Fatalf("first rows after %d fed, %d rows, largest chunk %d", firstAt, rows, largest)
	}
}

// TestFinalStepBounded runs count(*) over a hundred million generated
// rows: the step holds one chunk at a time, so it finishes in constant
// memory, and the memory check sees the graph's small state.
func TestFinalStepBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("counts 1e8 rows")
	}
	g := NewGraph()
	in := g.Input()
	in.Push(Batch{{Row: types.Row{types.NewInt8(1e8)}, Diff: 1}})
	gen := g.FlatMap(in.Node(), func(r types.Row, emit func(types.Row) bool) error {
		for i := range r[0].Int() {
			if !emit(types.Row{types.NewInt8(i)}) {
				return nil
			}
		}
		return nil
	})
	var count int64
	g.Sink(g.Reduce(gen, ReduceSpec{Aggs: []Aggregate{flatCountAgg{}}, Global: true}), func(_ context.Context, b Batch) error {
		count = b[0].Row[0].Int()
		return nil
	})
	var checks int
	var most int64
	g.SetMemoryCheck(func(held int64) error {
		checks++
		most = max(most, held)
		return nil
	})
	if err := g.StepFinal(context.Background()); err != nil {
		t.Fatal(err)
	}
	if count != 1e8 || checks < 1000 || most > 1<<20 {
		t.Fatalf("count %d, %d memory checks, at most %d bytes held", count, checks, most)
	}
}

// TestFinalStepStops checks that a memory check's error and a
// cancellation stop a cross join of a hundred thousand rows a side,
// whose ten billion matches would take minutes.
func TestFinalStepStops(t *testing.T) {
	build := func() *Graph {
		g := NewGraph()
		var b Batch
		for i := range 100000 {
			b = append(b, Update{Row: types.Row{types.NewInt8(int64(i))}, Diff: 1})
		}
		l, r := g.Input(), g.Input()
		l.Push(b)
		r.Push(b)
		g.Sink(g.Reduce(g.Join(l.Node(), r.Node(), JoinSpec{Output: concat}), ReduceSpec{Aggs: []Aggregate{flatCountAgg{}}, Global: true}),
			func(context.Context, Batch) error { return nil })
		return g
	}
	over := errors.New("over budget")
	g := build()
	checks := 0
	g.SetMemoryCheck(func(int64) error {
		if checks++; checks == 100 {
			return over
		}
		return nil
	})
	if err := g.StepFinal(context.Background()); !errors.Is(err, over) {
		t.Fatalf("memory check: %v", err)
	}
	if err := g.Step(context.Background()); err == nil {
		t.Fatal("a failed final step did not poison the graph")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := build().StepFinal(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("canceled: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("the cross join stopped %v after its deadline", d)
	}
}

// TestFinalStepLargeWindow streams a hundred thousand rows in random
// order into a top-k of twenty thousand, chunk by chunk, merged into its
// window as they pile up: the window holds exactly the first rows.
func TestFinalStepLargeWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	perm := rng.Perm(100000)
	g := NewGraph()
	g.fin.chunk = 64
	in := g.Input()
	var b Batch
	for _, v := range perm {
		b = append(b, Update{Row: types.Row{types.NewInt8(int64(v))}, Diff: 1})
	}
	in.Push(b)
	spec := TopKSpec{SortKey: ColumnSortKey([]SortColumn{{Col: 0}}), Limit: 20000}
	var got Batch
	g.Sink(g.MonotonicTopK(in.Node(), spec), func(_ context.Context, b Batch) error {
		got = append(got, b...)
		return nil
	})
	if err := g.StepFinal(context.Background()); err != nil {
		t.Fatal(err)
	}
	got = got.Consolidate()
	if len(got) != 20000 || got[0].Row[0].Int() != 0 || got[len(got)-1].Row[0].Int() != 19999 {
		t.Fatalf("%d rows, from %v to %v", len(got), got[0].Row, got[len(got)-1].Row)
	}
}
