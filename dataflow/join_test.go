package dataflow

import (
	"context"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/types"
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
	}, {
		// Left rows that differ only in a column the output does not
		// read are stored alike; each still counts, and a retraction
		// of either takes one away.
		name:   "kept columns",
		inputs: 2,
		build: func(g *Graph, in []Node) Node {
			return g.Join(in[0], in[1], JoinSpec{
				LeftKey: keyCol(0), RightKey: keyCol(0), LeftKeep: []int{0}, RightKeep: []int{0, 1},
				Output: func(l, r types.Row) types.Row { return types.Row{l[0], r[1]} },
			})
		},
		ticks: [][]string{{"+(1, a) +(1, b)", ""}, {"", "+(1, x)"}, {"-(1, a)", ""}, {"+(1, c)", "-(1, x) +(1, y)"}},
		want:  []string{"", "+2(1, x)", "-(1, x)", "-(1, x) +2(1, y)"},
	}, {
		// A row of no columns (SELECT FROM a join) from a slab is a row,
		// not the nil that drops a pair.
		name:   "rows of no columns",
		inputs: 2,
		build: func(g *Graph, in []Node) Node {
			var slab RowSlab
			return g.Join(in[0], in[1], JoinSpec{Output: func(types.Row, types.Row) types.Row { return slab.Row(0) }})
		},
		ticks: [][]string{{"+(1) +(2)", "+(a)"}, {"-(1)", ""}},
		want:  []string{"+2()", "-()"},
	}} {
		runTrace(t, tc)
	}
}

// TestJoinKeptColumnsState: a join that keeps only the columns its
// output reads stores less than one that keeps whole rows, for the same
// output.
func TestJoinKeptColumnsState(t *testing.T) {
	wide := strings.Repeat("x", 200)
	var left, right Batch
	for i := range 100 {
		left = append(left, Update{Row: types.Row{types.NewInt8(int64(i)), types.NewText(wide)}, Diff: 1})
		right = append(right, Update{Row: types.Row{types.NewInt8(int64(i)), types.NewText(wide)}, Diff: 1})
	}
	state := func(spec JoinSpec) (int64, string) {
		g := NewGraph()
		li, ri := g.Input(), g.Input()
		j := g.Join(li.Node(), ri.Node(), spec)
		out := g.Output(j)
		// Two ticks, so that the second meets the arrangements.
		li.Push(left[:50])
		ri.Push(right[:50])
		step(t, g)
		li.Push(left[50:])
		ri.Push(right[50:])
		step(t, g)
		return j.StateBytes(), fmtBatch(snapshotBatch(t, out.Snapshot()))
	}
	keys := func(l, r types.Row) types.Row { return types.Row{l[0], r[0]} }
	whole, wantRows := state(JoinSpec{LeftKey: keyCol(0), RightKey: keyCol(0), Output: keys})
	kept, gotRows := state(JoinSpec{LeftKey: keyCol(0), RightKey: keyCol(0), Output: keys, LeftKeep: []int{0}, RightKeep: []int{}})
	if gotRows != wantRows {
		t.Fatalf("kept columns changed the output:\n%s\nwant\n%s", gotRows, wantRows)
	}
	if kept*2 > whole {
		t.Errorf("state with kept columns %d bytes, whole rows %d: the wide columns are still stored", kept, whole)
	}
}

// TestJoinStateBytesDecoded checks that a join's StateBytes counts the
// rows it keeps decoded (decodeCache) beside its arrangements, and stops
// counting them when the cache is cleared: for ticks of random rows on
// both sides, the count equals the cached rows' sizes.
func TestJoinStateBytesDecoded(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	g := NewGraph()
	li, ri := g.Input(), g.Input()
	node := g.Join(li.Node(), ri.Node(), JoinSpec{LeftKey: keyCol(0), RightKey: keyCol(0), Output: concat})
	g.Collect(node)
	op := g.ops[node.id].(*joinOp)
	cached := false
	for tick := range 100 {
		for _, in := range []*Input{li, ri} {
			var b Batch
			for range rng.IntN(30) {
				b = append(b, Update{Row: types.Row{types.NewInt8(int64(rng.IntN(20))), types.NewText(strings.Repeat("x", rng.IntN(9)))}, Diff: 1})
			}
			in.Push(b)
		}
		step(t, g)
		want := op.la.size() + op.ra.size()
		for _, c := range op.decoded {
			for _, r := range c.rows {
				want += sizeDecodedEntry + rowBytes(r)
			}
			cached = cached || len(c.rows) > 0
		}
		if got := node.StateBytes(); got != want {
			t.Fatalf("tick %d: StateBytes %d, want %d", tick, got, want)
		}
	}
	if !cached {
		t.Fatal("no row was decoded from an arrangement")
	}
}

// TestJoinSkewedKey drives one key past the bucket index threshold and
// back, so both bucket representations are exercised.
func TestJoinSkewedKey(t *testing.T) {
	var left, right, want Batch
	right = Batch{{Row: types.Row{types.NewInt8(7), types.NewText("r")}, Diff: 1}}
	for i := range 3 * packedMax {
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

// BenchmarkJoin: cost per delta row of a join whose sides hold 1e3 or 1e6
// rows each; the two must be within 2× of each other.
func BenchmarkJoin(b *testing.B) {
	for _, st := range benchStates {
		b.Run(st.name, func(b *testing.B) {
			g := NewGraph()
			l, r := g.Input(), g.Input()
			g.Collect(g.Join(l.Node(), r.Node(), JoinSpec{LeftKey: keyCol(0), RightKey: keyCol(0), Output: concat}))
			rng := rand.New(rand.NewPCG(1, uint64(st.n)))
			fill(b, g, r, st.n, func(i int) types.Row { return int8Row(int64(i), int64(i)*7) })
			fill(b, g, l, st.n, func(i int) types.Row { return int8Row(rng.Int64N(int64(st.n)), int64(i)) })
			batches := make([]Batch, 16)
			for i := range batches {
				for j := 0; j < benchDelta; j++ {
					row := int8Row(rng.Int64N(int64(st.n)), int64(st.n+i*benchDelta+j))
					batches[i] = append(batches[i], Update{Row: row, Diff: 1})
				}
			}
			churn(b, g, l, batches)
			b.ReportMetric(float64(g.StateBytes())/float64(2*st.n), "state-bytes/row")
		})
	}
}

// BenchmarkJoinHotKeys: cost per inserted row of a join side whose rows
// pile up under a few keys, as a source's bids under hot auctions: 1e3
// keys on the right, the left only inserted into (rows that never match
// included), after 1e3 or 1e6 rows.
func BenchmarkJoinHotKeys(b *testing.B) {
	for _, st := range benchStates {
		b.Run(st.name, func(b *testing.B) {
			const keys = 1000
			g := NewGraph()
			l, r := g.Input(), g.Input()
			g.Collect(g.Join(l.Node(), r.Node(), JoinSpec{LeftKey: keyCol(0), RightKey: keyCol(0), Output: concat}))
			rng := rand.New(rand.NewPCG(1, uint64(st.n)))
			row := func(i int) types.Row {
				return types.Row{types.NewInt8(rng.Int64N(2 * keys)), types.NewInt8(int64(i)), types.NewText("https://www.nexmark.com/bid/item")}
			}
			fill(b, g, r, keys, func(i int) types.Row { return int8Row(int64(i), int64(i)*7) })
			fill(b, g, l, st.n, row)
			appendTicks(b, g, l, st.n, row)
			b.ReportMetric(float64(g.StateBytes())/float64(st.n+b.N*benchDelta), "state-bytes/row")
		})
	}
}

// BenchmarkJoinOneTick: a join computed in one tick from empty state, as
// an ad hoc query (final) or a view's hydration (arranged for later
// ticks) runs it: 1e5 probe rows against 1e4 build rows, ten matches
// each.
func BenchmarkJoinOneTick(b *testing.B) {
	const n, keys = 100_000, 10_000
	var left, right Batch
	for i := range n {
		left = append(left, Update{Row: int8Row(int64(i%keys), int64(i)), Diff: 1})
	}
	for i := range keys {
		right = append(right, Update{Row: int8Row(int64(i), int64(i)*7), Diff: 1})
	}
	for _, final := range []bool{true, false} {
		b.Run(fmt.Sprintf("final=%t", final), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				g := NewGraph()
				l, r := g.Input(), g.Input()
				g.Collect(g.Join(l.Node(), r.Node(), JoinSpec{LeftKey: keyCol(0), RightKey: keyCol(0), Output: concat}))
				l.Push(left)
				r.Push(right)
				var err error
				if final {
					err = g.StepFinal(context.Background())
				} else {
					err = g.Step(context.Background())
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*(n+keys))/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// TestJoinStateMemory compares the heap held by a join arrangement of
// encoded rows with the same rows kept as []Datum.
func TestJoinStateMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("memory measurement")
	}
	const n = 200_000
	rows := make([]types.Row, n)
	for i := range rows {
		rows[i] = types.Row{types.NewInt8(int64(i)), types.NewInt8(int64(i) * 3), types.NewText("customer")}
	}
	base := heapInUse()
	kept := make([]types.Row, n)
	for i, r := range rows {
		kept[i] = r.Copy()
	}
	datums := heapInUse() - base
	runtime.KeepAlive(kept)
	kept = nil
	base = heapInUse()
	a := newArrangement(maphash.MakeSeed())
	var kb, vb []byte
	for _, r := range rows {
		kb = types.AppendKeyRow(kb[:0], r[:1])
		vb = appendRowValue(vb[:0], r)
		a.update(kb, a.tab.hash(kb), vb, 1)
	}
	arranged := heapInUse() - base
	runtime.KeepAlive(a)
	runtime.KeepAlive(rows)
	t.Logf("%d rows (int8, int8, text): []Datum %d B/row; arrangement (key index + encoded rows) %d B/row, StateBytes estimate %d B/row",
		n, datums/n, arranged/n, a.size()/n)
}
