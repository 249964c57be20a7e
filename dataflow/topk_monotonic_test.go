package dataflow

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

func TestMonotonicTopK(t *testing.T) {
	byX := func(a, b types.Row) int { return types.Compare(a[0], b[0]) }
	byXDesc := func(a, b types.Row) int { return -types.Compare(a[0], b[0]) }
	mono := func(spec TopKSpec) func(g *Graph, in []Node) Node {
		return func(g *Graph, in []Node) Node { return g.MonotonicTopK(in[0], spec) }
	}
	for _, tc := range []traceCase{{
		name:  "doc",
		build: mono(TopKSpec{Compare: byX, Limit: 2}),
		ticks: [][]string{{"+(3)"}, {"+(1) +(2)"}, {"+(0)"}, {"+(4)"}},
		want:  []string{"+(3)", "+(1) +(2) -(3)", "+(0) -(2)", ""},
	}, {
		name:  "sort key",
		build: mono(TopKSpec{SortKey: ColumnSortKey([]SortColumn{{Col: 0}}), Limit: 2}),
		ticks: [][]string{{"+(3)"}, {"+(1) +(2)"}, {"+(0)"}, {"+(4)"}},
		want:  []string{"+(3)", "+(1) +(2) -(3)", "+(0) -(2)", ""},
	}, {
		name:  "multiplicities count toward the limit",
		build: mono(TopKSpec{Compare: byX, Limit: 3}),
		ticks: [][]string{{"+2(5) +4(7)"}, {"+(7)"}, {"+3(1)"}, {"+(5)"}},
		want:  []string{"+2(5) +(7)", "", "-2(5) -(7) +3(1)", ""},
	}, {
		name:  "a row equal to the last adds nothing",
		build: mono(TopKSpec{Compare: byX, Limit: 2}),
		ticks: [][]string{{"+(1) +(2)"}, {"+(2)"}, {"+(1)"}},
		want:  []string{"+(1) +(2)", "", "+(1) -(2)"},
	}, {
		name:  "offset and limit",
		build: mono(TopKSpec{Compare: byX, Offset: 1, Limit: 2}),
		ticks: [][]string{{"+(2) +(4) +(6) +(8)"}, {"+(9)"}, {"+(5)"}, {"+(1)"}},
		want:  []string{"+(4) +(6)", "", "+(5) -(6)", "+(2) -(5)"},
	}, {
		name:  "offset without limit is TopK",
		build: mono(TopKSpec{Compare: byX, Offset: 2, Limit: -1}),
		ticks: [][]string{{"+(1) +(2) +(3) +(4)"}, {"+(0)"}},
		want:  []string{"+(3) +(4)", "+(2)"},
	}, {
		name:  "limit 0",
		build: mono(TopKSpec{Compare: byX, Limit: 0}),
		ticks: [][]string{{"+(1)"}},
		want:  []string{""},
	}, {
		name:  "per group, descending, ties broken by row",
		build: mono(TopKSpec{Group: col(0), Compare: func(a, b types.Row) int { return byXDesc(a[1:], b[1:]) }, Limit: 1}),
		ticks: [][]string{{"+(a, 1, z) +(a, 3, y) +(b, 2, w)"}, {"+(a, 3, x) +(b, 1, v)"}, {"+(c, 0, u)"}},
		want:  []string{"+(a, 3, y) +(b, 2, w)", "-(a, 3, y) +(a, 3, x)", "+(c, 0, u)"},
	}, {
		name: "errors pass through",
		build: func(g *Graph, in []Node) Node {
			failOnZero := func(r types.Row) (bool, error) {
				if r[0].Int() == 0 {
					return false, errDivByZero
				}
				return true, nil
			}
			return g.MonotonicTopK(g.Filter(in[0], failOnZero), TopKSpec{Compare: byX, Limit: 1})
		},
		ticks:    [][]string{{"+(2) +(0) +(1)"}},
		want:     []string{"+(1)"},
		wantErrs: []string{"+1 22012 division by zero"},
	}} {
		runTrace(t, tc)
	}
}

// TestMonotonicTopKRetraction checks that a retraction fails the step
// with an internal error instead of producing a wrong window.
func TestMonotonicTopKRetraction(t *testing.T) {
	g := NewGraph()
	in := g.Input()
	g.Collect(g.MonotonicTopK(in.Node(), TopKSpec{Limit: 1}))
	in.Push(parseBatch("+(1) +(2)"))
	if err := g.Step(context.Background()); err != nil {
		t.Fatal(err)
	}
	in.Push(parseBatch("-(1)"))
	err := g.Step(context.Background())
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != pgerr.InternalError {
		t.Fatalf("step with a retraction: got %v, want an internal error", err)
	}
}

// TestMonotonicTopKMatchesTopK drives MonotonicTopK and TopK with the
// same random insertions (duplicates, weights above one, a large first
// tick, ascending and descending feeds) and checks after every tick
// that both equal the recomputed top-k.
func TestMonotonicTopKMatchesTopK(t *testing.T) {
	byX := func(a, b types.Row) int { return types.Compare(a[1], b[1]) }
	specs := []struct{ offset, limit int64 }{{0, 1}, {0, 3}, {2, 5}, {0, 0}, {3, 0}, {0, 150}}
	for _, mode := range []string{"compare", "sortkey"} {
		for _, sp := range specs {
			for _, wl := range []string{"random", "ascending", "descending", "bulk"} {
				t.Run(fmt.Sprintf("%s/offset=%d,limit=%d/%s", mode, sp.offset, sp.limit, wl), func(t *testing.T) {
					spec := TopKSpec{Group: col(0), Offset: sp.offset, Limit: sp.limit}
					if mode == "sortkey" {
						spec.SortKey = ColumnSortKey([]SortColumn{{Col: 1}})
					} else {
						spec.Compare = byX
					}
					checkMonotonicWorkload(t, spec, byX, wl)
				})
			}
		}
	}
}

func checkMonotonicWorkload(t *testing.T, spec TopKSpec, cmp func(a, b types.Row) int, workload string) {
	rng := rand.New(rand.NewPCG(11, uint64(len(workload))))
	g := NewGraph()
	in := g.Input()
	mono := g.Output(g.MonotonicTopK(in.Node(), spec))
	full := g.Output(g.TopK(in.Node(), spec))
	var acc Batch
	next := int64(0)
	for tick := range 60 {
		var batch Batch
		n := 1 + rng.IntN(40)
		if workload == "bulk" && tick == 0 {
			n = 2000
		}
		for range n {
			x := rng.Int64N(500)
			switch workload {
			case "ascending":
				next++
				x = next
			case "descending":
				next--
				x = next
			}
			row := int8Row(rng.Int64N(3), x, rng.Int64N(2))
			batch = append(batch, Update{Row: row, Diff: 1 + rng.Int64N(2)})
		}
		acc = append(acc, batch...)
		in.Push(batch)
		if err := g.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
		want := fmtBatch(refTopK(append(Batch(nil), acc...).Consolidate(), spec.Group, cmp, spec.Offset, spec.Limit).Consolidate())
		if got := fmtBatch(snapshotBatch(t, mono.Snapshot())); got != want {
			t.Fatalf("tick %d:\nmonotonic %s\nreference %s", tick, got, want)
		}
		if got := fmtBatch(snapshotBatch(t, full.Snapshot())); got != want {
			t.Fatalf("tick %d:\nTopK      %s\nreference %s", tick, got, want)
		}
	}
}

// BenchmarkMonotonicTopK: cost per inserted row and state of the top
// row per group (row_number() ≤ 1, q9's shape) over 1e3 groups, after
// 1e3 or 1e6 rows, with MonotonicTopK and with TopK. The inputs only
// grow, as an append-only source's do.
func BenchmarkMonotonicTopK(b *testing.B) {
	for _, op := range []string{"monotonic", "topk"} {
		for _, st := range benchStates {
			b.Run(op+"/"+st.name, func(b *testing.B) {
				spec := TopKSpec{Group: col(0), SortKey: ColumnSortKey([]SortColumn{{Col: 1, Desc: true}}), Limit: 1}
				g := NewGraph()
				in := g.Input()
				node := g.MonotonicTopK(in.Node(), spec)
				if op == "topk" {
					node = g.TopK(in.Node(), spec)
				}
				g.Collect(node)
				rng := rand.New(rand.NewPCG(1, uint64(st.n)))
				row := func(i int) types.Row { return int8Row(rng.Int64N(1e3), rng.Int64N(1<<40), int64(i)) }
				fill(b, g, in, st.n, row)
				batches := make([]Batch, 64)
				for i := range batches {
					for j := range benchDelta {
						batches[i] = append(batches[i], Update{Row: row(st.n + i*benchDelta + j), Diff: 1})
					}
				}
				ctx := context.Background()
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					in.Push(batches[i%len(batches)])
					if err := g.Step(ctx); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(b.N*benchDelta)/b.Elapsed().Seconds(), "rows/s")
				b.ReportMetric(float64(node.StateBytes()), "state-B")
			})
		}
	}
}
