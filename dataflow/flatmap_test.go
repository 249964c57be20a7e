package dataflow

import (
	"context"
	"errors"
	"testing"

	"github.com/streamdb/streamdb/types"
)

func TestFlatMap(t *testing.T) {
	series := func(r types.Row, emit func(types.Row) bool) error {
		for i := int64(1); i <= r[0].Int(); i++ {
			if !emit(types.Row{types.NewInt8(i)}) {
				break
			}
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

// TestFlatMapCanceled expands one row into a million and cancels the
// step's context after the first ten: the step must stop with the
// context's error within a check's worth of rows, and emit tell the
// expansion to stop there.
func TestFlatMapCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const rows = 1_000_000
	g := NewGraph()
	in := g.Input()
	calls := 0
	out := g.Collect(g.FlatMap(in.Node(), func(_ types.Row, emit func(types.Row) bool) error {
		for i := range int64(rows) {
			if i == 10 {
				cancel()
			}
			calls++
			if !emit(types.Row{types.NewInt8(i)}) {
				return nil
			}
		}
		return nil
	}))
	in.Push(Batch{{Row: types.Row{types.NewInt8(0)}, Diff: 1}})
	if err := g.Step(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("step = %v, want %v", err, context.Canceled)
	}
	if n := len(out.in.delta); n > cancelCheckRows {
		t.Errorf("%d rows kept after the cancellation, want at most %d", n, cancelCheckRows)
	}
	if calls > cancelCheckRows {
		t.Errorf("emit was called %d times, want it to refuse rows after %d", calls, cancelCheckRows)
	}
}
