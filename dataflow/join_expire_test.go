package dataflow

import (
	"math/rand/v2"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// TestRestoredJoinExpires restarts an interval join from its persisted
// state halfway through a stream in time order: after the restart it
// must still forget the rows the watermark passes, those it held before
// the restart included, so that its state, in memory and persisted,
// ends as small as that of a join that never restarted, with the same
// output.
func TestRestoredJoinExpires(t *testing.T) {
	const lag, keys = 20, 5000
	build := func(g *Graph, in []Node, wm Watermark) Node {
		spec := JoinSpec{LeftKey: keyCol(0), RightKey: keyCol(0), Output: concat,
			LeftExpire: &RowExpiry{Col: 1, Threshold: func() (types.Datum, bool) {
				w, ok := wm()
				return types.NewTimestamp(w.Int() - 5), ok
			}},
			RightExpire: &RowExpiry{Col: 1, Threshold: wm}}
		j := g.Join(in[0], g.Map(in[0], func(r types.Row) (types.Row, error) { return r, nil }), spec)
		return g.Filter(j, func(r types.Row) (bool, error) {
			a, b := r[1].Int(), r[5].Int()
			return a <= b && b <= a+5, nil
		})
	}
	persisted := func(kv *memState) *wmGraph {
		w := newWMGraph(1, build)
		w.g.Persist(kv)
		return w
	}
	refKV, kv := newMemState(), newMemState()
	ref, w := persisted(refKV), persisted(kv)
	rng := rand.New(rand.NewPCG(5, 6))
	var atRestart int
	for i := range 300 {
		var tick []wmChange
		for j := range 100 {
			ts := int64(i*100+j) + rng.Int64N(lag)
			tick = append(tick, wmChange{0, Update{Row: wmRow(rng.Int64N(keys), ts, rng.Int64N(5)), Diff: 1}})
		}
		if i == 150 {
			atRestart = joinRows(w.g)
			w = newWMGraph(1, build)
			w.g.Persist(kv)
			if err := w.g.Restore(t.Context(), kv); err != nil {
				t.Fatal(err)
			}
		}
		wm := int64(i*100+99) - lag
		if err := ref.step(tick, wm); err != nil {
			t.Fatal(err)
		}
		if err := w.step(tick, wm); err != nil {
			t.Fatal(err)
		}
		if i%50 == 0 || i == 299 {
			if got, want := fmtBatch(snapshotBatch(t, w.out.Snapshot())), fmtBatch(snapshotBatch(t, ref.out.Snapshot())); got != want {
				t.Fatalf("tick %d: restarted join\n%s\nwant\n%s", i, got, want)
			}
		}
	}
	got, want := joinRows(w.g), joinRows(ref.g)
	t.Logf("join rows: %d at the restart; at the end %d restarted, %d never restarted; persisted entries %d and %d",
		atRestart, got, want, len(kv.kv), len(refKV.kv))
	if got != want {
		t.Errorf("restarted join holds %d rows, one that never restarted %d: rows from before the restart did not expire", got, want)
	}
	if n, m := len(kv.kv), len(refKV.kv); n != m {
		t.Errorf("restarted join persists %d entries, one that never restarted %d", n, m)
	}
}

// joinRows counts the rows arranged by the joins of g.
func joinRows(g *Graph) int {
	n := 0
	for _, op := range g.ops {
		j, ok := op.(*joinOp)
		if !ok {
			continue
		}
		for _, a := range []*arrangement{j.la, j.ra} {
			a.tab.each(func(i int) bool {
				key := a.tab.key(i)
				for it := a.get(key, a.tab.hash(key)); it.next(); {
					n++
				}
				return true
			})
		}
	}
	return n
}
