package dataflow

import (
	"testing"
)

func TestReduce(t *testing.T) {
	countSum := ReduceSpec{Key: col(0), Aggs: []Aggregate{countAgg{}, sumAgg{col: 1}}}
	for _, tc := range []traceCase{{
		name:  "doc",
		build: func(g *Graph, in []Node) Node { return g.Reduce(in[0], countSum) },
		ticks: [][]string{{"+(a, 1) +(a, 2) +(b, 5)"}, {"-(a, 1)"}, {"-(b, 5)"}},
		want:  []string{"+(a, 2, 3) +(b, 1, 5)", "-(a, 2, 3) +(a, 1, 2)", "-(b, 1, 5)"},
	}, {
		name: "unchanged output emits nothing",
		build: func(g *Graph, in []Node) Node {
			return g.Reduce(in[0], ReduceSpec{Key: col(0), Aggs: []Aggregate{sumAgg{col: 1}}})
		},
		ticks: [][]string{{"+(a, 1)"}, {"+(a, 0)"}, {"-(a, 1) +(a, 1)"}},
		want:  []string{"+(a, 1)", "", ""},
	}, {
		name:  "NULLs and a NULL group",
		build: func(g *Graph, in []Node) Node { return g.Reduce(in[0], countSum) },
		ticks: [][]string{{"+(NULL, 1) +(NULL, NULL) +(a, NULL)"}, {"-(NULL, 1)"}},
		want:  []string{"+(a, 1, NULL) +(NULL, 2, 1)", "-(NULL, 2, 1) +(NULL, 1, NULL)"},
	}, {
		name: "global aggregate over empty input",
		build: func(g *Graph, in []Node) Node {
			return g.Reduce(in[0], ReduceSpec{Aggs: []Aggregate{countAgg{}, sumAgg{col: 0}}, Global: true})
		},
		ticks: [][]string{{""}, {"+(4) +(5)"}, {"-(4) -(5)"}, {""}},
		want:  []string{"+(0, NULL)", "-(0, NULL) +(2, 9)", "-(2, 9) +(0, NULL)", ""},
	}, {
		name:  "group without Global disappears",
		build: func(g *Graph, in []Node) Node { return g.Reduce(in[0], ReduceSpec{Aggs: []Aggregate{countAgg{}}}) },
		ticks: [][]string{{""}, {"+(4)"}, {"-(4)"}},
		want:  []string{"", "+(1)", "-(1)"},
	}, {
		name: "min and max survive deleting the extreme",
		build: func(g *Graph, in []Node) Node {
			return g.Reduce(in[0], ReduceSpec{Key: col(0), Aggs: []Aggregate{minAgg{col: 1}, minAgg{col: 1, max: true}}})
		},
		ticks: [][]string{{"+(a, 3) +(a, 1) +(a, 7) +(a, 1)"}, {"-(a, 1)"}, {"-(a, 1)"}, {"-(a, 7)"}},
		want:  []string{"+(a, 1, 7)", "", "-(a, 1, 7) +(a, 3, 7)", "-(a, 3, 7) +(a, 3, 3)"},
	}, {
		name: "update errors travel as data",
		build: func(g *Graph, in []Node) Node {
			return g.Reduce(in[0], ReduceSpec{Key: col(0), Aggs: []Aggregate{sumAgg{col: 1, failOn: 13}}})
		},
		ticks:    [][]string{{"+(a, 1) +(a, 13)"}, {"-(a, 13)"}},
		want:     []string{"+(a, 1)", ""},
		wantErrs: []string{"+1 22012 division by zero", "-1 22012 division by zero"},
	}, {
		name: "result errors replace the group's row",
		build: func(g *Graph, in []Node) Node {
			return g.Reduce(in[0], ReduceSpec{Key: col(0), Aggs: []Aggregate{countAgg{}, sumAgg{col: 1, resultFailAbove: 10}}})
		},
		ticks:    [][]string{{"+(a, 5)"}, {"+(a, 6)"}, {"+(a, 7)"}, {"-(a, 6) -(a, 7)"}},
		want:     []string{"+(a, 1, 5)", "-(a, 1, 5)", "", "+(a, 1, 5)"},
		wantErrs: []string{"", "+1 22003 bigint out of range", "", "-1 22003 bigint out of range"},
	}, {
		name: "retraction before insertion in one tick",
		build: func(g *Graph, in []Node) Node {
			return g.Reduce(in[0], ReduceSpec{Key: col(0), Aggs: []Aggregate{minAgg{col: 1}}})
		},
		ticks: [][]string{{"+(a, 5)"}, {"-(a, 5) +(a, 2) -(a, 2) +(a, 9)"}},
		want:  []string{"+(a, 5)", "-(a, 5) +(a, 9)"},
	}} {
		runTrace(t, tc)
	}
}

// TestReduceStateIsPerGroup checks that Reduce keeps no input rows: its
// state does not grow with rows added to existing groups.
func TestReduceStateIsPerGroup(t *testing.T) {
	g := NewGraph()
	in := g.Input()
	r := g.Reduce(in.Node(), ReduceSpec{Key: col(0), Aggs: []Aggregate{countAgg{}, sumAgg{col: 1}}})
	g.Collect(r)
	in.Push(parseBatch("+(a, 1) +(b, 2)"))
	step(t, g)
	before := r.StateBytes()
	for i := 0; i < 100; i++ {
		in.Push(parseBatch("+(a, 1) +(b, 2) +(a, 3)"))
		step(t, g)
	}
	if after := r.StateBytes(); after != before {
		t.Fatalf("state grew from %d to %d bytes", before, after)
	}
	in.Push(parseBatch("-101(a, 1) -101(b, 2) -100(a, 3)"))
	step(t, g)
	if n := r.StateBytes(); n != 0 {
		t.Fatalf("state of empty reduce: %d bytes", n)
	}
}
