package dataflow

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// The operators that forget state behind a watermark (Reduce with a
// GroupExpiry, Join with a RowExpiry, Session with a watermark) must
// give exactly the output of the same operator that forgets nothing, on
// every history that respects the watermark: no change, insertion or
// deletion, to a row whose time is behind it. EmitOnClose must emit
// each group once, final. wmHistory draws such histories.

// wmRow is (k, ts, bucket, v): ts a timestamp in microseconds, bucket
// its ten-microsecond window.
func wmRow(k, ts, v int64) types.Row {
	return types.Row{types.NewInt8(k), types.NewTimestamp(ts), types.NewTimestamp(ts - ts%10), types.NewInt8(v)}
}

// wmHistory is a history of ticks over one or two inputs that respects a
// watermark lagging the greatest time seen by lag: rows arrive with
// times at or after the watermark, partly out of order, and present rows
// at or after it are deleted.
type wmHistory struct {
	ticks [][]wmChange
	// wms is the watermark after each tick.
	wms []int64
}

type wmChange struct {
	input int
	u     Update
}

func genWMHistory(rng *rand.Rand, inputs, ticks int, lag int64) wmHistory {
	var h wmHistory
	maxSeen, wm := int64(0), int64(-1<<40)
	present := make([][]types.Row, inputs)
	for range ticks {
		var tick []wmChange
		for n := rng.IntN(5); n > 0; n-- {
			in := rng.IntN(inputs)
			if rng.IntN(4) == 0 && len(present[in]) > 0 {
				i := rng.IntN(len(present[in]))
				r := present[in][i]
				if r[1].Int() >= wm {
					tick = append(tick, wmChange{in, Update{Row: r, Diff: -1}})
					present[in] = append(present[in][:i], present[in][i+1:]...)
				}
				continue
			}
			ts := max(wm, maxSeen-lag) + rng.Int64N(lag+8)
			r := wmRow(rng.Int64N(3), ts, rng.Int64N(5))
			tick = append(tick, wmChange{in, Update{Row: r, Diff: 1}})
			present[in] = append(present[in], r)
			maxSeen = max(maxSeen, ts)
			wm = max(wm, maxSeen-lag)
		}
		h.ticks = append(h.ticks, tick)
		h.wms = append(h.wms, wm)
	}
	return h
}

// wmGraph is a graph under test with its inputs, output and watermark.
type wmGraph struct {
	g   *Graph
	ins []*Input
	out *Output
	wm  int64
}

func newWMGraph(inputs int, build func(g *Graph, in []Node, wm Watermark) Node) *wmGraph {
	w := &wmGraph{g: NewGraph(), wm: -1 << 40}
	nodes := make([]Node, inputs)
	for i := range inputs {
		in := w.g.Input()
		w.ins = append(w.ins, in)
		nodes[i] = in.Node()
	}
	wm := func() (types.Datum, bool) { return types.NewTimestamp(w.wm), true }
	w.out = w.g.Output(build(w.g, nodes, wm))
	return w
}

func (w *wmGraph) step(tick []wmChange, wm int64) error {
	for _, c := range tick {
		w.ins[c.input].Push(Batch{c.u})
	}
	w.wm = wm
	return w.g.Step(context.Background())
}

// checkForgets runs histories through build with and without forgetting
// and compares the outputs after every tick.
func checkForgets(t *testing.T, inputs int, build func(g *Graph, in []Node, wm Watermark) Node) {
	t.Helper()
	for seed := range uint64(100) {
		rng := rand.New(rand.NewPCG(seed, 11))
		h := genWMHistory(rng, inputs, 30, 15)
		f := newWMGraph(inputs, build)
		k := newWMGraph(inputs, func(g *Graph, in []Node, _ Watermark) Node { return build(g, in, nil) })
		for i, tick := range h.ticks {
			if err := f.step(tick, h.wms[i]); err != nil {
				t.Fatal(err)
			}
			if err := k.step(tick, h.wms[i]); err != nil {
				t.Fatal(err)
			}
			got, want := fmtBatch(snapshotBatch(t, f.out.Snapshot())), fmtBatch(snapshotBatch(t, k.out.Snapshot()))
			if got != want {
				t.Fatalf("seed %d tick %d (watermark %d):\nforgetting %s\nkeeping    %s", seed, i, h.wms[i], got, want)
			}
		}
	}
}

// bucketWM is the watermark of the bucket column: the bucket of the
// time watermark.
func bucketWM(wm Watermark) Watermark {
	return func() (types.Datum, bool) {
		w, ok := wm()
		v := w.Int()
		return types.NewTimestamp(v - ((v%10)+10)%10), ok
	}
}

func TestReduceExpiry(t *testing.T) {
	checkForgets(t, 1, func(g *Graph, in []Node, wm Watermark) Node {
		spec := ReduceSpec{KeyCols: []int{2, 0}, Aggs: []Aggregate{countAgg{}, sumAgg{col: 3}, minAgg{col: 3}}}
		if wm != nil {
			spec.Expire = &GroupExpiry{Key: 0, Watermark: bucketWM(wm)}
		}
		return g.Reduce(in[0], spec)
	})
}

func TestSessionForgetsClosedSessions(t *testing.T) {
	checkForgets(t, 1, func(g *Graph, in []Node, wm Watermark) Node {
		return g.Session(in[0], SessionSpec{Key: col(0), TS: 1, Gap: 4, Watermark: wm})
	})
}

// TestIntervalJoinExpiry joins a and b on k where b.ts lies within
// [a.ts, a.ts + 5]: an a row dies once b's watermark passes a.ts + 5,
// a b row once a's passes b.ts (both sides share one watermark here).
func TestIntervalJoinExpiry(t *testing.T) {
	checkForgets(t, 2, func(g *Graph, in []Node, wm Watermark) Node {
		spec := JoinSpec{LeftKey: keyCol(0), RightKey: keyCol(0), Output: concat}
		if wm != nil {
			spec.LeftExpire = &RowExpiry{Col: 1, Threshold: func() (types.Datum, bool) {
				w, ok := wm()
				return types.NewTimestamp(w.Int() - 5), ok
			}}
			spec.RightExpire = &RowExpiry{Col: 1, Threshold: wm}
		}
		j := g.Join(in[0], in[1], spec)
		return g.Filter(j, func(r types.Row) (bool, error) {
			a, b := r[1].Int(), r[5].Int()
			return a <= b && b <= a+5, nil
		})
	})
}

// TestEmitOnCloseOnce aggregates per bucket and emits on close: the
// delta never retracts, each group is emitted once, and the emitted
// groups are exactly the closed groups of the same aggregate emitted
// continuously.
func TestEmitOnCloseOnce(t *testing.T) {
	for seed := range uint64(100) {
		rng := rand.New(rand.NewPCG(seed, 13))
		h := genWMHistory(rng, 1, 60, 15)
		var eowc *Collector
		e := newWMGraph(1, func(g *Graph, in []Node, wm Watermark) Node {
			r := g.Reduce(in[0], ReduceSpec{KeyCols: []int{2, 0}, Aggs: []Aggregate{countAgg{}, sumAgg{col: 3}},
				Expire: &GroupExpiry{Key: 0, Watermark: bucketWM(wm)}})
			n := g.EmitOnClose(r, 0, bucketWM(wm))
			eowc = g.Collect(n)
			return n
		})
		k := newWMGraph(1, func(g *Graph, in []Node, _ Watermark) Node {
			return g.Reduce(in[0], ReduceSpec{KeyCols: []int{2, 0}, Aggs: []Aggregate{countAgg{}, sumAgg{col: 3}}})
		})
		emitted := map[string]bool{}
		for i, tick := range h.ticks {
			if err := e.step(tick, h.wms[i]); err != nil {
				t.Fatal(err)
			}
			if err := k.step(tick, h.wms[i]); err != nil {
				t.Fatal(err)
			}
			for _, u := range eowc.Delta() {
				key := fmtRow(u.Row[:2])
				if u.Diff != 1 || emitted[key] {
					t.Fatalf("seed %d tick %d: emitted %s %d again or retracted", seed, i, fmtRow(u.Row), u.Diff)
				}
				emitted[key] = true
			}
			closed := bucketWM(func() (types.Datum, bool) { return types.NewTimestamp(h.wms[i]), true })
			w, _ := closed()
			var want Batch
			for _, u := range snapshotBatch(t, k.out.Snapshot()) {
				if types.Compare(u.Row[0], w) < 0 {
					want = append(want, u)
				}
			}
			if got, want := fmtBatch(snapshotBatch(t, e.out.Snapshot())), fmtBatch(want); got != want {
				t.Fatalf("seed %d tick %d: emitted %s\nclosed groups %s", seed, i, got, want)
			}
		}
	}
}

func TestWMHistoryRespectsWatermark(t *testing.T) {
	h := genWMHistory(rand.New(rand.NewPCG(1, 2)), 2, 50, 15)
	prev := int64(-1 << 40)
	for i, tick := range h.ticks {
		for _, c := range tick {
			if ts := c.u.Row[1].Int(); ts < prev {
				t.Fatalf("tick %d changes %s behind watermark %d", i, fmt.Sprint(ts), prev)
			}
		}
		prev = h.wms[i]
	}
}

// TestStateFlatBehindWatermark streams rows in time order, a little out
// of order, and checks that the operators that forget keep about as much
// state after 40,000 rows as after 10,000 (the open windows' worth, with
// the slack of a join's arena, which reclaims a segment once it is half
// garbage), while the same operators forgetting nothing keep three to
// four times as much.
func TestStateFlatBehindWatermark(t *testing.T) {
	const lag = 20
	reduce := func(g *Graph, in []Node, wm Watermark) Node {
		spec := ReduceSpec{KeyCols: []int{2, 0}, Aggs: []Aggregate{countAgg{}, sumAgg{col: 3}}}
		if wm != nil {
			spec.Expire = &GroupExpiry{Key: 0, Watermark: bucketWM(wm)}
		}
		return g.Reduce(in[0], spec)
	}
	cases := []struct {
		name  string
		keys  int64
		build func(g *Graph, in []Node, wm Watermark) Node
	}{
		{"reduce", 30, reduce},
		{"emit-on-close", 30, func(g *Graph, in []Node, wm Watermark) Node {
			r := reduce(g, in, wm)
			if wm == nil {
				return r
			}
			return g.EmitOnClose(r, 0, bucketWM(wm))
		}},
		{"session", 30, func(g *Graph, in []Node, wm Watermark) Node {
			return g.Session(in[0], SessionSpec{Key: col(0), TS: 1, Gap: 5, Watermark: wm})
		}},
		{"interval-join", 5000, func(g *Graph, in []Node, wm Watermark) Node {
			spec := JoinSpec{LeftKey: keyCol(0), RightKey: keyCol(0), Output: concat}
			if wm != nil {
				spec.LeftExpire = &RowExpiry{Col: 1, Threshold: func() (types.Datum, bool) {
					w, ok := wm()
					return types.NewTimestamp(w.Int() - 5), ok
				}}
				spec.RightExpire = &RowExpiry{Col: 1, Threshold: wm}
			}
			j := g.Join(in[0], g.Map(in[0], func(r types.Row) (types.Row, error) { return r, nil }), spec)
			return g.Filter(j, func(r types.Row) (bool, error) {
				a, b := r[1].Int(), r[5].Int()
				return a <= b && b <= a+5, nil
			})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var sizes [2][2]int64
			for v, wm := range []bool{true, false} {
				build := c.build
				if !wm {
					build = func(g *Graph, in []Node, _ Watermark) Node { return c.build(g, in, nil) }
				}
				w := newWMGraph(1, build)
				rng := rand.New(rand.NewPCG(3, 4))
				for i := range 400 {
					var tick []wmChange
					for j := range 100 {
						ts := int64(i*100+j) + rng.Int64N(lag)
						tick = append(tick, wmChange{0, Update{Row: wmRow(rng.Int64N(c.keys), ts, rng.Int64N(5)), Diff: 1}})
					}
					if err := w.step(tick, int64(i*100+99)-lag); err != nil {
						t.Fatal(err)
					}
					switch i {
					case 99:
						sizes[v][0] = w.g.StateBytes() - w.out.StateBytes()
					case 399:
						sizes[v][1] = w.g.StateBytes() - w.out.StateBytes()
					}
				}
			}
			t.Logf("state after 10k and 40k rows: forgetting %d, %d; keeping %d, %d", sizes[0][0], sizes[0][1], sizes[1][0], sizes[1][1])
			if f := sizes[0]; f[1] > f[0]*2 {
				t.Errorf("forgetting: state grew from %d to %d bytes", f[0], f[1])
			}
			if k := sizes[1]; k[1] < k[0]*2 {
				t.Errorf("keeping: state grew only from %d to %d bytes", k[0], k[1])
			}
		})
	}
}
