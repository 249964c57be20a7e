package dataflow

import "testing"

func TestUnionNegate(t *testing.T) {
	for _, tc := range []traceCase{{
		name:   "doc union",
		inputs: 2,
		build:  func(g *Graph, in []Node) Node { return g.Union(in[0], in[1]) },
		ticks:  [][]string{{"+(1)", "+(1) +(2)"}, {"-(1)", ""}},
		want:   []string{"+2(1) +(2)", "-(1)"},
	}, {
		name:  "doc negate",
		build: func(g *Graph, in []Node) Node { return g.Negate(in[0]) },
		ticks: [][]string{{"+(1) +(2)"}, {"-(1)"}},
		want:  []string{"-(1) -(2)", "+(1)"},
	}, {
		name:   "difference",
		inputs: 2,
		build:  func(g *Graph, in []Node) Node { return g.Union(in[0], g.Negate(in[1])) },
		ticks:  [][]string{{"+(1) +(2)", "+(2)"}, {"", "+(1) -(2)"}},
		want:   []string{"+(1)", "-(1) +(2)"},
	}} {
		runTrace(t, tc)
	}
}
