package dataflow

import (
	"math/rand/v2"
	"testing"

	"github.com/streamdb/streamdb/types"
)

func TestSemiJoin(t *testing.T) {
	semi := func(g *Graph, in []Node) Node { return g.SemiJoin(in[0], in[1], keyCol(0), keyCol(0)) }
	anti := func(g *Graph, in []Node) Node { return g.AntiJoin(in[0], in[1], keyCol(0), keyCol(0)) }
	for _, tc := range []traceCase{{
		name:   "doc semi",
		inputs: 2,
		build:  semi,
		ticks:  [][]string{{"+(1, a) +(2, b)", "+(1)"}, {"", "+(2)"}, {"", "-(1)"}},
		want:   []string{"+(1, a)", "+(2, b)", "-(1, a)"},
	}, {
		name:   "doc anti",
		inputs: 2,
		build:  anti,
		ticks:  [][]string{{"+(1, a) +(2, b)", "+(1)"}, {"", "+(2)"}, {"", "-(1)"}},
		want:   []string{"+(2, b)", "-(2, b)", "+(1, a)"},
	}, {
		name:   "right multiplicity ignored",
		inputs: 2,
		build:  semi,
		ticks:  [][]string{{"+2(1, a)", "+3(1, x)"}, {"", "-2(1, x)"}, {"-(1, a)", "-(1, x)"}},
		want:   []string{"+2(1, a)", "", "-2(1, a)"},
	}, {
		name:   "presence flip and left delta in one tick",
		inputs: 2,
		build:  semi,
		ticks:  [][]string{{"+(1, a)", ""}, {"+(1, b) -(1, a)", "+(1)"}, {"+(1, c)", "-(1)"}},
		want:   []string{"", "+(1, b)", "-(1, b)"},
	}, {
		name:   "NULL keys",
		inputs: 2,
		build:  anti,
		ticks:  [][]string{{"+(NULL, a) +(1, b)", "+(NULL) +(1)"}, {"-(NULL, a)", ""}},
		want:   []string{"+(NULL, a)", "-(NULL, a)"},
	}, {
		name:   "NULL keys semi",
		inputs: 2,
		build:  semi,
		ticks:  [][]string{{"+(NULL, a) +(1, b)", "+(NULL) +(1)"}},
		want:   []string{"+(1, b)"},
	}} {
		runTrace(t, tc)
	}
}

// BenchmarkSemiJoin: cost per delta row of a semi-join whose left side
// holds 1e3 or 1e6 rows, with the right side's presence changing.
func BenchmarkSemiJoin(b *testing.B) {
	for _, st := range benchStates {
		b.Run(st.name, func(b *testing.B) {
			g := NewGraph()
			l, r := g.Input(), g.Input()
			g.Collect(g.SemiJoin(l.Node(), r.Node(), keyCol(0), keyCol(0)))
			rng := rand.New(rand.NewPCG(1, uint64(st.n)))
			fill(b, g, l, st.n, func(i int) types.Row { return int8Row(int64(i), int64(i)) })
			fill(b, g, r, st.n/2, func(i int) types.Row { return int8Row(int64(2*i), 0) })
			batches := make([]Batch, 16)
			for i := range batches {
				for range benchDelta {
					batches[i] = append(batches[i], Update{Row: int8Row(rng.Int64N(int64(st.n)), 1), Diff: 1})
				}
			}
			churn(b, g, r, batches)
		})
	}
}
