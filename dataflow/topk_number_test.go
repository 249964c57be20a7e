package dataflow

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/streamdb/streamdb/types"
)

func TestMonotonicTopKNumbered(t *testing.T) {
	spec := TopKSpec{SortKey: ColumnSortKey([]SortColumn{{Col: 0}}), Limit: 2, Number: true}
	runTrace(t, traceCase{
		name:  "doc",
		build: func(g *Graph, in []Node) Node { return g.MonotonicTopK(in[0], spec) },
		ticks: [][]string{{"+(5)"}, {"+(3)"}, {"+(4)"}, {"+(9)"}},
		want:  []string{"+(5, 1)", "-(5, 1) +(3, 1) +(5, 2)", "-(5, 2) +(4, 2)", ""},
	})
}

// TestMonotonicTopKNumberedMatchesWindow checks a numbered MonotonicTopK
// against row_number() computed by a Window over the same top-k, after
// every tick of random insertions (ties in the order, repeated rows,
// weights above one).
func TestMonotonicTopKNumberedMatchesWindow(t *testing.T) {
	for _, limit := range []int64{1, 3, 10} {
		t.Run(fmt.Sprintf("limit=%d", limit), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(9, uint64(limit)))
			sortKey := ColumnSortKey([]SortColumn{{Col: 1, Desc: true}})
			spec := TopKSpec{Group: col(0), SortKey: sortKey, Limit: limit}
			g := NewGraph()
			in := g.Input()
			window := g.Window(g.MonotonicTopK(in.Node(), spec), WindowSpec{Partition: col(0), SortKey: sortKey, Funcs: []WindowFunc{{Kind: RowNumber}}})
			spec.Number = true
			want, got := g.Output(window), g.Output(g.MonotonicTopK(in.Node(), spec))
			for tick := range 60 {
				var batch Batch
				for range 1 + rng.IntN(30) {
					batch = append(batch, Update{Row: int8Row(rng.Int64N(4), rng.Int64N(20), rng.Int64N(2)), Diff: 1 + rng.Int64N(2)})
				}
				in.Push(batch)
				if err := g.Step(context.Background()); err != nil {
					t.Fatal(err)
				}
				w, gt := fmtBatch(snapshotBatch(t, want.Snapshot())), fmtBatch(snapshotBatch(t, got.Snapshot()))
				if w != gt {
					t.Fatalf("tick %d:\nnumbered %s\nwindow   %s", tick, gt, w)
				}
			}
		})
	}
}

// BenchmarkMonotonicTopKNumbered: the top row per group numbered, as q9
// keeps its winning bids, by the top-k itself and by a Window over it,
// after 1e3 or 1e6 rows over 1e3 groups.
func BenchmarkMonotonicTopKNumbered(b *testing.B) {
	for _, op := range []string{"numbered", "window"} {
		for _, st := range benchStates {
			b.Run(op+"/"+st.name, func(b *testing.B) {
				sortKey := ColumnSortKey([]SortColumn{{Col: 1, Desc: true}})
				spec := TopKSpec{Group: col(0), SortKey: sortKey, Limit: 1, Number: op == "numbered"}
				g := NewGraph()
				in := g.Input()
				node := g.MonotonicTopK(in.Node(), spec)
				if op == "window" {
					node = g.Window(node, WindowSpec{Partition: col(0), SortKey: sortKey, Funcs: []WindowFunc{{Kind: RowNumber}}})
				}
				g.Collect(node)
				rng := rand.New(rand.NewPCG(1, uint64(st.n)))
				row := func(i int) types.Row { return int8Row(rng.Int64N(1e3), rng.Int64N(1<<40), int64(i)) }
				fill(b, g, in, st.n, row)
				appendTicks(b, g, in, st.n, row)
				b.ReportMetric(float64(g.StateBytes()), "state-B")
			})
		}
	}
}
