package dataflow

import (
	"testing"

	"github.com/streamdb/streamdb/types"
)

func TestFilter(t *testing.T) {
	notTwo := func(r types.Row) (bool, error) { return r[0].Int() != 2, nil }
	failOnZero := func(r types.Row) (bool, error) {
		if r[0].Int() == 0 {
			return false, errDivByZero
		}
		return 10/r[0].Int() > 3, nil
	}
	for _, tc := range []traceCase{{
		name:  "doc",
		build: func(g *Graph, in []Node) Node { return g.Filter(in[0], notTwo) },
		ticks: [][]string{{"+(1) +(2) +(3)"}, {"-(2)"}},
		want:  []string{"+(1) +(3)", ""},
	}, {
		name:     "errors as data",
		build:    func(g *Graph, in []Node) Node { return g.Filter(in[0], failOnZero) },
		ticks:    [][]string{{"+(1) +(0) +(5)"}, {"+2(0)"}, {"-3(0) -(1)"}},
		want:     []string{"+(1)", "", "-(1)"},
		wantErrs: []string{"+1 22012 division by zero", "+2 22012 division by zero", "-3 22012 division by zero"},
	}} {
		runTrace(t, tc)
	}
}

// BenchmarkLinear: a filter, a projection and a union over ticks of 4096
// rows: the stateless path every query takes.
func BenchmarkLinear(b *testing.B) {
	g := NewGraph()
	in := g.Input()
	f := g.Filter(in.Node(), func(r types.Row) (bool, error) { return r[1].Int()%3 != 0, nil })
	m := g.Map(f, func(r types.Row) (types.Row, error) { return r[:1], nil })
	g.Collect(g.Union(m, g.Negate(m)))
	batch := make(Batch, 4096)
	for i := range batch {
		batch[i] = Update{Row: int8Row(int64(i), int64(i*7)), Diff: 1}
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		in.Push(batch)
		step(b, g)
	}
	b.ReportMetric(float64(b.N*len(batch))/b.Elapsed().Seconds(), "rows/s")
}
