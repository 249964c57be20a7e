package dataflow

import (
	"testing"

	"github.com/streamdb/streamdb/types"
)

// TestInputKeepsRows checks which graphs let go of an input's rows within
// the Step: only those whose every path from the input passes linear
// operators that forward rows up to a MapNew.
func TestInputKeepsRows(t *testing.T) {
	pass := func(r types.Row) (types.Row, error) { return r[:1:1], nil }
	build := func(r types.Row) (types.Row, error) { return types.Row{r[0]}, nil }
	keep := func(types.Row) (bool, error) { return true, nil }
	for _, tc := range []struct {
		name  string
		build func(g *Graph, in Node)
		want  bool
	}{
		{"no reader", func(*Graph, Node) {}, false},
		{"output", func(g *Graph, in Node) { g.Output(in) }, true},
		{"filter, output", func(g *Graph, in Node) { g.Output(g.Filter(in, keep)) }, true},
		{"map, output", func(g *Graph, in Node) { g.Output(g.Map(in, pass)) }, true},
		{"map new, output", func(g *Graph, in Node) { g.Output(g.MapNew(in, build)) }, false},
		{"filter, map new, output", func(g *Graph, in Node) { g.Output(g.MapNew(g.Filter(in, keep), build)) }, false},
		{"map, map new, output", func(g *Graph, in Node) { g.Output(g.MapNew(g.Map(in, pass), build)) }, false},
		{"union of filter and negate, map new", func(g *Graph, in Node) {
			g.Output(g.MapNew(g.Union(g.Filter(in, keep), g.Negate(in)), build))
		}, false},
		{"map new and output", func(g *Graph, in Node) { g.Output(g.MapNew(in, build)); g.Output(in) }, true},
		{"distinct", func(g *Graph, in Node) { g.Output(g.MapNew(g.Distinct(in), build)) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph()
			in := g.Input()
			tc.build(g, in.Node())
			if got := in.KeepsRows(); got != tc.want {
				t.Errorf("KeepsRows() = %v, want %v", got, tc.want)
			}
		})
	}
}
