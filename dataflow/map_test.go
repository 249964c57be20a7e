package dataflow

import (
	"errors"
	"testing"

	"github.com/streamdb/streamdb/types"
)

func TestMap(t *testing.T) {
	add := func(r types.Row) (types.Row, error) { return types.Row{types.NewInt8(r[0].Int() + r[1].Int())}, nil }
	div := func(r types.Row) (types.Row, error) {
		if r[1].Int() == 0 {
			return nil, errDivByZero
		}
		return types.Row{types.NewInt8(r[0].Int() / r[1].Int())}, nil
	}
	bug := func(types.Row) (types.Row, error) { return nil, errors.New("evaluator bug") }
	for _, tc := range []traceCase{{
		name:  "doc",
		build: func(g *Graph, in []Node) Node { return g.Map(in[0], add) },
		ticks: [][]string{{"+(1, 10) +(2, 20)"}, {"-(1, 10)"}},
		want:  []string{"+(11) +(22)", "-(11)"},
	}, {
		name:  "distinct rows map to one",
		build: func(g *Graph, in []Node) Node { return g.Map(in[0], add) },
		ticks: [][]string{{"+(1, 2) +(2, 1) +(0, 3)"}, {"-(1, 2) +(3, 0)"}},
		want:  []string{"+3(3)", ""},
	}, {
		name:     "errors cancel on retraction",
		build:    func(g *Graph, in []Node) Node { return g.Map(in[0], div) },
		ticks:    [][]string{{"+(6, 3) +(1, 0)"}, {"-(1, 0)"}},
		want:     []string{"+(2)", ""},
		wantErrs: []string{"+1 22012 division by zero", "-1 22012 division by zero"},
	}, {
		name:     "non-pgerr errors become internal errors",
		build:    func(g *Graph, in []Node) Node { return g.Map(in[0], bug) },
		ticks:    [][]string{{"+(1, 1)"}},
		want:     []string{""},
		wantErrs: []string{"+1 XX000 evaluator bug"},
	}} {
		runTrace(t, tc)
	}
}
