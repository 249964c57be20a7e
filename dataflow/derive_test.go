package dataflow

import (
	"context"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// TestDerivedState checks which structures a graph derives from its
// replayable inputs rather than persists (its StateShape and what it
// writes), and that a restore fed the inputs' contents through Derive
// reads as the graph that never restarted.
func TestDerivedState(t *testing.T) {
	for _, tc := range []struct {
		name string
		// replay marks which of the two inputs are replayable.
		replay [2]bool
		build  func(g *Graph, l, r Node) Node
		shape  string
		// persisted lists the operators that write state, derives the
		// inputs a restore feeds.
		persisted []string
		derives   [2]bool
	}{
		{
			name:   "projection of a table",
			replay: [2]bool{true, true},
			build: func(g *Graph, l, _ Node) Node {
				return g.Map(l, func(r types.Row) (types.Row, error) { return types.Row{r[1], r[0]}, nil })
			},
			shape:     "Input Input Map Output(derived)",
			persisted: nil,
			derives:   [2]bool{true, false},
		},
		{
			name:   "filter of a table",
			replay: [2]bool{true, true},
			build: func(g *Graph, l, _ Node) Node {
				return g.Filter(l, func(r types.Row) (bool, error) { return r[1].Int() != 3, nil })
			},
			shape:     "Input Input Filter Output(rows/2 errors/1)",
			persisted: []string{"Output"},
		},
		{
			name:   "join of two tables",
			replay: [2]bool{true, true},
			build: func(g *Graph, l, r Node) Node {
				return g.Join(l, r, JoinSpec{LeftKey: keyCol(0), RightKey: keyCol(0), Output: concat})
			},
			shape:     "Input Input Join(arranged/1 keep [] [] derived true true) Output(rows/2 errors/1)",
			persisted: []string{"Output"},
			derives:   [2]bool{true, true},
		},
		{
			name:   "join of a table and a stream",
			replay: [2]bool{true, false},
			build: func(g *Graph, l, r Node) Node {
				return g.Join(l, r, JoinSpec{LeftKey: keyCol(0), RightKey: keyCol(0), Output: concat})
			},
			shape:     "Input Input Join(arranged/1 keep [] [] derived true false) Output(rows/2 errors/1)",
			persisted: []string{"Join", "Output"},
			derives:   [2]bool{true, false},
		},
		{
			name:   "grouped output",
			replay: [2]bool{true, true},
			build: func(g *Graph, l, _ Node) Node {
				return g.Reduce(l, ReduceSpec{KeyCols: []int{0}, Aggs: []Aggregate{countAgg{}}})
			},
			shape:     "Input Input Reduce(groups/1 keys 1 words 0 states 1) Output(grouped/1 errors/1)",
			persisted: []string{"Reduce"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kv := newMemState()
			build := func(persist bool) (*Graph, [2]*Input, *Output) {
				g := NewGraph()
				ins := [2]*Input{g.Input(), g.Input()}
				out := g.Output(tc.build(g, ins[0].Node(), ins[1].Node()))
				for i, in := range ins {
					if tc.replay[i] {
						in.Replayable()
					}
				}
				if persist {
					g.Persist(kv)
				}
				return g, ins, out
			}
			live, lins, lout := build(false)
			g, ins, out := build(true)
			if got := g.StateShape(); got != tc.shape {
				t.Errorf("StateShape = %q, want %q", got, tc.shape)
			}
			var acc [2]Batch
			for i := range 40 {
				b := [2]Batch{
					{{Row: types.Row{types.NewInt8(int64(i % 3)), types.NewInt8(int64(i))}, Diff: 1}},
					{{Row: types.Row{types.NewInt8(int64(i % 4)), types.NewText("x")}, Diff: 1}},
				}
				if i%5 == 4 {
					b[0] = append(b[0], Update{Row: types.Row{types.NewInt8(int64((i - 2) % 3)), types.NewInt8(int64(i - 2))}, Diff: -1})
				}
				for side := range 2 {
					acc[side] = append(acc[side], b[side]...)
					lins[side].Push(b[side])
					ins[side].Push(b[side])
				}
				for _, gr := range []*Graph{live, g} {
					if err := gr.Step(context.Background()); err != nil {
						t.Fatal(err)
					}
				}
				if i%7 == 3 {
					g, ins, out = build(true)
					if err := g.Restore(context.Background(), kv); err != nil {
						t.Fatal(err)
					}
					for side, in := range ins {
						if in.Derives() != tc.derives[side] {
							t.Errorf("input %d: Derives = %v", side, in.Derives())
						}
						if in.Derives() {
							in.Push(append(Batch(nil), acc[side]...).Consolidate())
						}
					}
					if err := g.Derive(context.Background()); err != nil {
						t.Fatal(err)
					}
				}
				if got, want := fmtBatch(snapshotBatch(t, out.Snapshot())), fmtBatch(snapshotBatch(t, lout.Snapshot())); got != want {
					t.Fatalf("tick %d: %s\nwant %s", i, got, want)
				}
			}
			writers := map[string]bool{}
			for k := range kv.kv {
				writers[g.ops[int(k[0])<<8|int(k[1])].Name()] = true
			}
			var got []string
			for _, op := range g.ops {
				if writers[op.Name()] {
					got = append(got, op.Name())
					delete(writers, op.Name())
				}
			}
			if strings.Join(got, " ") != strings.Join(tc.persisted, " ") {
				t.Errorf("operators with persisted state: %v, want %v", got, tc.persisted)
			}
		})
	}
}

// TestDeriveOutsideRestore checks that Derive refuses to run on a graph
// that has stepped since its restore.
func TestDeriveOutsideRestore(t *testing.T) {
	g := NewGraph()
	in := g.Input()
	g.Output(in.Node())
	in.Replayable()
	g.Persist(newMemState())
	if err := g.Step(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := g.Derive(context.Background()); err == nil {
		t.Error("Derive after a Step succeeded")
	}
}
