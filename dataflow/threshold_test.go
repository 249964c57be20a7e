package dataflow

import (
	"math/rand/v2"
	"testing"

	"github.com/streamdb/streamdb/types"
)

func TestThreshold(t *testing.T) {
	exceptAll := func(lc, rc int64) int64 { return max(lc-rc, 0) }
	intersectAll := func(lc, rc int64) int64 { return max(min(lc, rc), 0) }
	intersect := func(lc, rc int64) int64 { return int64(boolInt(lc > 0 && rc > 0)) }
	except := func(lc, rc int64) int64 { return int64(boolInt(lc > 0 && rc <= 0)) }
	th := func(f func(lc, rc int64) int64) func(g *Graph, in []Node) Node {
		return func(g *Graph, in []Node) Node { return g.Threshold(in[0], in[1], f) }
	}
	for _, tc := range []traceCase{{
		name:   "doc except all",
		inputs: 2,
		build:  th(exceptAll),
		ticks:  [][]string{{"+(1) +(1) +(2)", "+(1)"}, {"-(2)", "+(2)"}},
		want:   []string{"+(1) +(2)", "-(2)"},
	}, {
		name:   "intersect all",
		inputs: 2,
		build:  th(intersectAll),
		ticks:  [][]string{{"+3(1) +(2)", "+2(1)"}, {"", "+2(1) +(2)"}, {"-3(1)", ""}},
		want:   []string{"+2(1)", "+(1) +(2)", "-3(1)"},
	}, {
		name:   "intersect",
		inputs: 2,
		build:  th(intersect),
		ticks:  [][]string{{"+3(1) +(2)", "+2(1)"}, {"", "+(2) -(1)"}, {"", "-(1)"}},
		want:   []string{"+(1)", "+(2)", "-(1)"},
	}, {
		name:   "except",
		inputs: 2,
		build:  th(except),
		ticks:  [][]string{{"+3(1) +(2)", "+(1)"}, {"", "-(1)"}},
		want:   []string{"+(2)", "+(1)"},
	}} {
		runTrace(t, tc)
	}
}

func TestDistinct(t *testing.T) {
	runTrace(t, traceCase{
		name:  "doc",
		build: func(g *Graph, in []Node) Node { return g.Distinct(in[0]) },
		ticks: [][]string{{"+(1) +(1) +(2)"}, {"-(1)"}, {"-(1)"}, {"+(1) -(1)"}},
		want:  []string{"+(1) +(2)", "", "-(1)", ""},
	})
}

// BenchmarkDistinct: cost per delta row of DISTINCT over 1e3 or 1e6
// distinct rows.
func BenchmarkDistinct(b *testing.B) {
	for _, st := range benchStates {
		b.Run(st.name, func(b *testing.B) {
			g := NewGraph()
			in := g.Input()
			g.Collect(g.Distinct(in.Node()))
			rng := rand.New(rand.NewPCG(1, uint64(st.n)))
			fill(b, g, in, st.n, func(i int) types.Row { return int8Row(int64(i), int64(i%7)) })
			batches := make([]Batch, 16)
			for i := range batches {
				for range benchDelta {
					batches[i] = append(batches[i], Update{Row: int8Row(rng.Int64N(int64(2*st.n)), 0), Diff: 1})
				}
			}
			churn(b, g, in, batches)
		})
	}
}
