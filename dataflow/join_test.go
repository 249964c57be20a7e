package dataflow

import (
	"testing"

	"github.com/streamdb/streamdb/sql/types"
)

func TestJoin(t *testing.T) {
	on0 := JoinSpec{LeftKey: keyCol(0), RightKey: keyCol(0), Output: concat}
	for _, tc := range []traceCase{{
		name:   "doc",
		inputs: 2,
		build:  func(g *Graph, in []Node) Node { return g.Join(in[0], in[1], on0) },
		ticks:  [][]string{{"+(1, a)", "+(1, x) +(1, y)"}, {"+(2, c)", "-(1, x) +(2, z)"}},
		want:   []string{"+(1, a, 1, x) +(1, a, 1, y)", "-(1, a, 1, x) +(2, c, 2, z)"},
	}, {
		name:   "both sides in one tick multiply weights",
		inputs: 2,
		build:  func(g *Graph, in []Node) Node { return g.Join(in[0], in[1], on0) },
		ticks:  [][]string{{"+2(1, a)", "+3(1, x)"}, {"-(1, a)", "-(1, x)"}, {"-(1, a)", "+(1, y)"}},
		want:   []string{"+6(1, a, 1, x)", "-4(1, a, 1, x)", "-2(1, a, 1, x)"},
	}, {
		name:   "NULL keys match nothing",
		inputs: 2,
		build:  func(g *Graph, in []Node) Node { return g.Join(in[0], in[1], on0) },
		ticks:  [][]string{{"+(NULL, a) +(1, b)", "+(NULL, x) +(1, y)"}},
		want:   []string{"+(1, b, 1, y)"},
	}, {
		name:   "cross join",
		inputs: 2,
		build:  func(g *Graph, in []Node) Node { return g.Join(in[0], in[1], JoinSpec{Output: concat}) },
		ticks:  [][]string{{"+(1) +(2)", "+(a)"}, {"", "+(b)"}, {"-(1)", ""}},
		want:   []string{"+(1, a) +(2, a)", "+(1, b) +(2, b)", "-(1, a) -(1, b)"},
	}, {
		name:   "self join",
		inputs: 1,
		build:  func(g *Graph, in []Node) Node { return g.Join(in[0], in[0], on0) },
		ticks:  [][]string{{"+(1, a) +(1, b)"}, {"-(1, a)"}},
		want: []string{"+(1, a, 1, a) +(1, a, 1, b) +(1, b, 1, a) +(1, b, 1, b)",
			"-(1, a, 1, a) -(1, a, 1, b) -(1, b, 1, a)"},
	}} {
		runTrace(t, tc)
	}
}

// TestJoinSkewedKey drives one key past the bucket index threshold and
// back, so both bucket representations are exercised.
func TestJoinSkewedKey(t *testing.T) {
	var left, right, want Batch
	right = Batch{{Row: types.Row{types.NewInt8(7), types.NewText("r")}, Diff: 1}}
	for i := range 3 * bucketIndexMin {
		l := types.Row{types.NewInt8(7), types.NewInt8(int64(i))}
		left = append(left, Update{Row: l, Diff: 1})
		want = append(want, Update{Row: concat(l, right[0].Row), Diff: 1})
	}
	g := NewGraph()
	li, ri := g.Input(), g.Input()
	j := g.Join(li.Node(), ri.Node(), JoinSpec{LeftKey: keyCol(0), RightKey: keyCol(0), Output: concat})
	out := g.Output(j)
	li.Push(left)
	ri.Push(right)
	step(t, g)
	if got := fmtBatch(out.Delta()); got != fmtBatch(want) {
		t.Fatalf("got %s", got)
	}
	neg := make(Batch, 0, len(left))
	for _, u := range left[1:] {
		neg = append(neg, Update{Row: u.Row, Diff: -1})
	}
	li.Push(neg)
	step(t, g)
	rows := snapshotBatch(t, out.Snapshot())
	if got := fmtBatch(rows); got != fmtBatch(want[:1]) {
		t.Fatalf("after deletes got %s", got)
	}
	if n := g.StateBytes(); n <= 0 {
		t.Fatalf("state bytes %d", n)
	}
}
