package dataflow

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// recursiveScenarios are the property test's recursive queries over a
// base (input 0: rows (k, v, t)) and an edge collection (input 1: edges
// k → v): reachability with UNION, bounded walks with UNION ALL, and a
// walk without bound that cycles past MaxIterations while the edges
// allow it.
func recursiveScenarios() []scenario {
	step := func(g *Graph, work Node, ext []Node) (Node, error) {
		j := g.Join(work, ext[0], JoinSpec{LeftKey: keyCol(0), RightKey: keyCol(0), Output: concat})
		return g.Map(j, func(r types.Row) (types.Row, error) { return types.Row{r[2]}, nil }), nil
	}
	reachBase := func(g *Graph, in Node) Node {
		return g.Distinct(g.Map(in, func(r types.Row) (types.Row, error) { return types.Row{r[0]}, nil }))
	}
	walkBase := func(g *Graph, in Node) Node {
		return g.Map(in, func(r types.Row) (types.Row, error) { return types.Row{r[0], types.NewInt8(0)}, nil })
	}
	walkStep := func(g *Graph, work Node, ext []Node) (Node, error) {
		short := g.Filter(work, func(r types.Row) (bool, error) { return r[1].Int() < 3, nil })
		j := g.Join(short, ext[0], JoinSpec{LeftKey: keyCol(0), RightKey: keyCol(0), Output: concat})
		return g.Map(j, func(r types.Row) (types.Row, error) {
			return types.Row{r[3], types.NewInt8(r[1].Int() + 1)}, nil
		}), nil
	}
	return []scenario{
		{name: "recursive-union", inputs: 2,
			build: func(g *Graph, in []Node) Node {
				n, err := g.Recursive(reachBase(g, in[0]), []Node{in[1]}, RecursiveSpec{Step: step, Distinct: true, MaxIterations: 50})
				if err != nil {
					panic(err)
				}
				return n
			},
			ref: func(in []Batch) Batch {
				return refRecursive(in, func(r types.Row) types.Row { return types.Row{r[0]} }, func(w, e types.Row) (types.Row, bool) {
					return types.Row{e[1]}, types.Compare(w[0], e[0]) == 0 && !w[0].IsNull()
				}, true)
			}},
		{name: "recursive-union-all", inputs: 2,
			build: func(g *Graph, in []Node) Node {
				n, err := g.Recursive(walkBase(g, in[0]), []Node{in[1]}, RecursiveSpec{Step: walkStep, MaxIterations: 50})
				if err != nil {
					panic(err)
				}
				return n
			},
			ref: func(in []Batch) Batch {
				return refRecursive(in, func(r types.Row) types.Row { return types.Row{r[0], types.NewInt8(0)} }, func(w, e types.Row) (types.Row, bool) {
					ok := w[1].Int() < 3 && !w[0].IsNull() && types.Compare(w[0], e[0]) == 0
					return types.Row{e[1], types.NewInt8(w[1].Int() + 1)}, ok
				}, false)
			}},
		{name: "recursive-overflow", inputs: 2,
			build: func(g *Graph, in []Node) Node {
				base := g.Map(in[0], func(r types.Row) (types.Row, error) { return types.Row{r[0]}, nil })
				// Edges lead forward, but those labelled 'c' either way:
				// a walk cycles only while such an edge closes a loop.
				onward := func(g *Graph, work Node, ext []Node) (Node, error) {
					e := g.Filter(ext[0], func(r types.Row) (bool, error) {
						return r[2].Str() == "c" || types.Compare(r[0], r[1]) < 0, nil
					})
					return step(g, work, []Node{e})
				}
				n, err := g.Recursive(base, []Node{in[1]}, RecursiveSpec{Step: onward, MaxIterations: 7})
				if err != nil {
					panic(err)
				}
				return n
			}},
	}
}

// refRecursive evaluates a recursive query as PostgreSQL does, by
// iteration over consolidated inputs: base rows, then step(w, edge) over
// every pair of the previous iteration's rows and the edges (input 1);
// with distinct, UNION's semantics.
func refRecursive(in []Batch, base func(types.Row) types.Row, step func(w, e types.Row) (types.Row, bool), distinct bool) Batch {
	seen := map[string]bool{}
	var out Batch
	add := func(r types.Row, n int64, next *Batch) {
		if distinct {
			k := string(types.AppendKeyRow(nil, r))
			if seen[k] {
				return
			}
			seen[k], n = true, 1
		}
		out = append(out, Update{Row: r, Diff: n})
		*next = append(*next, Update{Row: r, Diff: n})
	}
	var work Batch
	for _, u := range in[0] {
		add(base(u.Row), u.Diff, &work)
	}
	for len(work) > 0 {
		var next Batch
		for _, w := range work {
			for _, e := range in[1] {
				if r, ok := step(w.Row, e.Row); ok {
					add(r, w.Diff*e.Diff, &next)
				}
			}
		}
		work = next.Consolidate()
	}
	return out.Consolidate()
}

// TestRecursiveOverflowRecovers drives a walk into a cycle past
// MaxIterations and out of it again: the result is the overflow's error
// while the cycle lasts, and the walk's rows once it is gone.
func TestRecursiveOverflowRecovers(t *testing.T) {
	g := NewGraph()
	base, edges := g.Input(), g.Input()
	n, err := g.Recursive(base.Node(), []Node{edges.Node()}, RecursiveSpec{MaxIterations: 5,
		Step: func(g *Graph, work Node, ext []Node) (Node, error) {
			j := g.Join(work, ext[0], JoinSpec{LeftKey: keyCol(0), RightKey: keyCol(0), Output: concat})
			return g.Map(j, func(r types.Row) (types.Row, error) { return types.Row{r[2]}, nil }), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	out := g.Output(n)
	i := func(v int64) types.Datum { return types.NewInt8(v) }
	step := func(b, e Batch) {
		base.Push(b)
		edges.Push(e)
		if err := g.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	step(Batch{{Row: types.Row{i(1)}, Diff: 1}}, Batch{{Row: types.Row{i(1), i(2)}, Diff: 1}, {Row: types.Row{i(2), i(3)}, Diff: 1}})
	if errs := out.Snapshot().Errors(); len(errs) != 0 {
		t.Fatalf("walk: errors %v", fmtErrors(errs))
	}
	step(nil, Batch{{Row: types.Row{i(3), i(1)}, Diff: 1}})
	if errs := out.Snapshot().Errors(); len(errs) != 1 || errs[0].Err.Code != "54000" {
		t.Fatalf("cycle: errors %v", fmtErrors(errs))
	}
	step(nil, Batch{{Row: types.Row{i(3), i(1)}, Diff: -1}, {Row: types.Row{i(3), i(4)}, Diff: 1}})
	snap := out.Snapshot()
	if errs := snap.Errors(); len(errs) != 0 {
		t.Fatalf("after the cycle: errors %v", fmtErrors(errs))
	}
	want := refRecursive([]Batch{{{Row: types.Row{i(1)}, Diff: 1}}, {{Row: types.Row{i(1), i(2)}, Diff: 1}, {Row: types.Row{i(2), i(3)}, Diff: 1}, {Row: types.Row{i(3), i(4)}, Diff: 1}}},
		func(r types.Row) types.Row { return r }, func(w, e types.Row) (types.Row, bool) { return types.Row{e[1]}, types.Compare(w[0], e[0]) == 0 }, false)
	if got := fmtBatch(snapshotBatch(t, snap)); got != fmtBatch(want) {
		t.Fatalf("after the cycle: got %s, want %s", got, fmtBatch(want))
	}
}

// BenchmarkRecursive measures reachability from one node over a random
// graph of edges i → j (i < j, so that walks end), kept incrementally as
// an edge comes and goes per tick, against recomputing it in one tick:
// the ratio is what maintaining a recursive view saves. persisted is
// incremental writing its state changes (to a writer that drops them):
// the CPU persisting costs beside the store's own.
func BenchmarkRecursive(b *testing.B) {
	for _, n := range []int{1e3, 1e4} {
		edges := make(Batch, n)
		rng := rand.New(rand.NewPCG(5, uint64(n)))
		nodes := int64(n / 4)
		for i := range edges {
			x := rng.Int64N(nodes - 1)
			edges[i] = Update{Row: int8Row(x, x+1+rng.Int64N(min(8, nodes-1-x))), Diff: 1}
		}
		build := func(g *Graph, base, e Node) Node {
			n, err := g.Recursive(base, []Node{e}, RecursiveSpec{Distinct: true, Step: func(g *Graph, work Node, ext []Node) (Node, error) {
				j := g.Join(work, ext[0], JoinSpec{LeftKey: keyCol(0), RightKey: keyCol(0), Output: concat})
				return g.Map(j, func(r types.Row) (types.Row, error) { return types.Row{r[2]}, nil }), nil
			}})
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
		incremental := func(b *testing.B, persist bool) {
			g := NewGraph()
			base, in := g.Input(), g.Input()
			g.Collect(build(g, base.Node(), in.Node()))
			if persist {
				g.Persist(discardState{})
			}
			base.Push(Batch{{Row: types.Row{types.NewInt8(0)}, Diff: 1}})
			in.Push(edges)
			if err := g.Step(context.Background()); err != nil {
				b.Fatal(err)
			}
			batches := make([]Batch, 16)
			for i := range batches {
				x := rng.Int64N(nodes - 1)
				batches[i] = Batch{{Row: int8Row(x, x+1), Diff: 1}}
			}
			churn(b, g, in, batches)
		}
		b.Run(fmt.Sprintf("incremental/edges=%d", n), func(b *testing.B) { incremental(b, false) })
		b.Run(fmt.Sprintf("persisted/edges=%d", n), func(b *testing.B) { incremental(b, true) })
		b.Run(fmt.Sprintf("recompute/edges=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				g := NewGraph()
				base, in := g.Input(), g.Input()
				g.Collect(build(g, base.Node(), in.Node()))
				base.Push(Batch{{Row: types.Row{types.NewInt8(0)}, Diff: 1}})
				in.Push(edges)
				if err := g.StepFinal(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*len(edges))/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// discardState is a StateWriter that drops what it is given.
type discardState struct{}

func (discardState) Set(key, value []byte)         {}
func (discardState) Delete(key []byte)             {}
func (discardState) DeleteRange(start, end []byte) {}
