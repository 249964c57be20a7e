package dataflow

import "testing"

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
