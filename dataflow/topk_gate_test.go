package dataflow

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// TestTopKGate drives a join into a MonotonicTopK twice, once with the
// top-k's gate in the join's Output and once without, over random ticks
// (keys that gain rows on both sides, ties, weights above one), and
// checks after every tick that the two top-ks agree and that the gate
// refused rows.
func TestTopKGate(t *testing.T) {
	byX := func(a, b types.Row) int { return -types.Compare(a[3], b[3]) }
	specs := []struct{ offset, limit int64 }{{0, 1}, {0, 3}, {2, 2}, {0, 0}}
	for _, mode := range []string{"compare", "sortkey"} {
		for _, sp := range specs {
			t.Run(fmt.Sprintf("%s/offset=%d,limit=%d", mode, sp.offset, sp.limit), func(t *testing.T) {
				spec := TopKSpec{Group: col(0), Offset: sp.offset, Limit: sp.limit}
				if mode == "sortkey" {
					spec.SortKey = ColumnSortKey([]SortColumn{{Col: 3, Desc: true}})
				} else {
					spec.Compare = byX
				}
				checkGate(t, spec)
			})
		}
	}
}

func checkGate(t *testing.T, spec TopKSpec) {
	rng := rand.New(rand.NewPCG(5, uint64(spec.Offset*10+spec.Limit)))
	g := NewGraph()
	left, right := g.Input(), g.Input()
	key := col(0)
	keyFn := func(r types.Row) (types.Row, bool) { return key(r), true }
	output := func(l, r types.Row) types.Row { return append(append(types.Row{}, l...), r[1:]...) }
	plain := JoinSpec{LeftKey: keyFn, RightKey: keyFn, Output: output}
	gate := new(TopKGate)
	refused := 0
	gated := plain
	gated.Output = func(l, r types.Row) types.Row {
		if !gate.Admits(output(l, r)) {
			refused++
			return nil
		}
		return output(l, r)
	}
	want := g.Output(g.MonotonicTopK(g.Join(left.Node(), right.Node(), plain), spec))
	gatedSpec := spec
	gatedSpec.Gate = gate
	got := g.Output(g.MonotonicTopK(g.Join(left.Node(), right.Node(), gated), gatedSpec))
	for tick := range 80 {
		var lb, rb Batch
		for range rng.IntN(3) {
			lb = append(lb, Update{Row: int8Row(rng.Int64N(20), rng.Int64N(3)), Diff: 1})
		}
		for range rng.IntN(40) {
			rb = append(rb, Update{Row: int8Row(rng.Int64N(20), rng.Int64N(100), rng.Int64N(3)), Diff: 1 + rng.Int64N(2)})
		}
		left.Push(lb)
		right.Push(rb)
		if err := g.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
		w, gt := fmtBatch(snapshotBatch(t, want.Snapshot())), fmtBatch(snapshotBatch(t, got.Snapshot()))
		if w != gt {
			t.Fatalf("tick %d:\ngated   %s\nungated %s", tick, gt, w)
		}
	}
	if refused == 0 {
		t.Fatal("the gate refused no row")
	}
}
