package dataflow

import "testing"

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
