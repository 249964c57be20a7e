package dataflow

import (
	"testing"

	"github.com/streamdb/streamdb/sql/types"
)

func TestFlatMap(t *testing.T) {
	series := func(r types.Row, emit func(types.Row)) error {
		for i := int64(1); i <= r[0].Int(); i++ {
			emit(types.Row{types.NewInt8(i)})
		}
		if r[0].Int() > 3 {
			return errDivByZero
		}
		return nil
	}
	for _, tc := range []traceCase{{
		name:  "doc",
		build: func(g *Graph, in []Node) Node { return g.FlatMap(in[0], series) },
		ticks: [][]string{{"+(2)"}, {"-(2)"}},
		want:  []string{"+(1) +(2)", "-(1) -(2)"},
	}, {
		name:     "a failing call emits nothing",
		build:    func(g *Graph, in []Node) Node { return g.FlatMap(in[0], series) },
		ticks:    [][]string{{"+(1) +2(5)"}, {"-2(5)"}},
		want:     []string{"+(1)", ""},
		wantErrs: []string{"+2 22012 division by zero", "-2 22012 division by zero"},
	}} {
		runTrace(t, tc)
	}
}
