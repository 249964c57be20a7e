package dataflow

import (
	"math/rand/v2"
	"testing"

	"github.com/streamdb/streamdb/sql/types"
)

func TestTopK(t *testing.T) {
	byX := func(a, b types.Row) int { return types.Compare(a[0], b[0]) }
	byXDesc := func(a, b types.Row) int { return -types.Compare(a[0], b[0]) }
	topk := func(spec TopKSpec) func(g *Graph, in []Node) Node {
		return func(g *Graph, in []Node) Node { return g.TopK(in[0], spec) }
	}
	for _, tc := range []traceCase{{
		name:  "doc",
		build: topk(TopKSpec{Compare: byX, Limit: 2}),
		ticks: [][]string{{"+(3) +(1) +(2)"}, {"+(0)"}, {"-(1)"}},
		want:  []string{"+(1) +(2)", "+(0) -(2)", "-(1) +(2)"},
	}, {
		name:  "multiplicities count toward the limit",
		build: topk(TopKSpec{Compare: byX, Limit: 3}),
		ticks: [][]string{{"+2(5) +4(7)"}, {"-(5)"}, {"+3(1)"}},
		want:  []string{"+2(5) +(7)", "-(5) +(7)", "-(5) -2(7) +3(1)"},
	}, {
		name:  "offset and limit",
		build: topk(TopKSpec{Compare: byX, Offset: 1, Limit: 2}),
		ticks: [][]string{{"+(1) +(2) +(3) +(4)"}, {"-(1)"}, {"+(9)"}},
		want:  []string{"+(2) +(3)", "-(2) +(4)", ""},
	}, {
		name:  "offset without limit",
		build: topk(TopKSpec{Compare: byX, Offset: 2, Limit: -1}),
		ticks: [][]string{{"+(1) +(2) +(3) +(4)"}, {"-(1) +(9)"}, {"+(0)"}},
		want:  []string{"+(3) +(4)", "-(3) +(9)", "+(3)"},
	}, {
		name:  "limit 0",
		build: topk(TopKSpec{Compare: byX, Limit: 0}),
		ticks: [][]string{{"+(1)"}},
		want:  []string{""},
	}, {
		name:  "no order, no limit",
		build: topk(TopKSpec{Limit: -1}),
		ticks: [][]string{{"+(1) +(2)"}, {"-(1)"}},
		want:  []string{"+(1) +(2)", "-(1)"},
	}, {
		name:  "per group, descending, ties broken by row",
		build: topk(TopKSpec{Group: col(0), Compare: func(a, b types.Row) int { return byXDesc(a[1:], b[1:]) }, Limit: 1}),
		ticks: [][]string{{"+(a, 1, z) +(a, 3, y) +(a, 3, x) +(b, 2, w)"}, {"-(a, 3, x)"}, {"-(b, 2, w)"}},
		want:  []string{"+(a, 3, x) +(b, 2, w)", "-(a, 3, x) +(a, 3, y)", "-(b, 2, w)"},
	}, {
		name:  "change after a full window emits nothing",
		build: topk(TopKSpec{Compare: byX, Limit: 2}),
		ticks: [][]string{{"+(1) +(2) +(3)"}, {"+(5) -(3)"}, {"+(2)"}},
		want:  []string{"+(1) +(2)", "", "-(2) +(2)"},
	}} {
		runTrace(t, tc)
	}
}

// BenchmarkTopK: cost per delta row of ORDER BY … LIMIT 10 over one group
// of 1e3 or 1e6 rows, with a sort key and with a comparator.
func BenchmarkTopK(b *testing.B) {
	for _, mode := range []string{"sortkey", "compare"} {
		for _, st := range benchStates {
			b.Run(mode+"/"+st.name, func(b *testing.B) {
				spec := TopKSpec{Limit: 10}
				if mode == "sortkey" {
					spec.SortKey = ColumnSortKey([]SortColumn{{Col: 1}})
				} else {
					spec.Compare = func(a, b types.Row) int { return types.Compare(a[1], b[1]) }
				}
				g := NewGraph()
				in := g.Input()
				g.Collect(g.TopK(in.Node(), spec))
				rng := rand.New(rand.NewPCG(1, uint64(st.n)))
				fill(b, g, in, st.n, func(i int) types.Row { return int8Row(int64(i), rng.Int64N(1<<40)) })
				batches := make([]Batch, 16)
				for i := range batches {
					for j := 0; j < benchDelta; j++ {
						row := int8Row(int64(st.n+i*benchDelta+j), rng.Int64N(1<<40))
						batches[i] = append(batches[i], Update{Row: row, Diff: 1})
					}
				}
				churn(b, g, in, batches)
			})
		}
	}
}
