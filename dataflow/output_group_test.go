package dataflow

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// TestGroupedOutput checks a grouped Output against a plain Output of the
// same Reduce (only the first Output of a Reduce keeps its groups): the
// same snapshots, seeks, lookups (by group key prefixes and by keys
// reaching into the aggregates), errors and consolidated deltas at every
// tick (a sum above 40 fails, so that groups go in and out of error, in
// all but the last seeds),
// with AggStates and with FlatAggregates in turn, and with
// FlatAggregates in words mode (a grouped Output that is its Reduce's
// only reader, checked against a second Reduce of the same rows; with
// words that fit a group and with more), and
// every snapshot unchanged by the ticks after it, read on another
// goroutine while they run (run with -race).
func TestGroupedOutput(t *testing.T) {
	reads := 0
	for seed := range uint64(21) {
		rng := rand.New(rand.NewPCG(seed, 3))
		g := NewGraph()
		in := g.Input()
		key := []int{0, 1}
		// From seed 15 on no aggregate fails, which words mode
		// finishes by its common path (finishWords).
		failAbove := int64(40)
		if seed >= 15 {
			failAbove = 0
		}
		aggs := []Aggregate{countAgg{}, sumAgg{col: 2, resultFailAbove: failAbove}}
		if seed%3 != 0 {
			aggs = []Aggregate{flatCountAgg{}, flatSumAgg{sumAgg{col: 2, resultFailAbove: failAbove}}}
		}
		// Two of the words mode seeds take five words, more than a
		// group holds, which the Output keeps wide.
		wide := seed%6 == 5
		if wide {
			aggs = append(aggs, flatSumAgg{sumAgg{col: 1}})
		}
		red := g.Reduce(in.Node(), ReduceSpec{KeyCols: key, Aggs: aggs})
		words := seed%3 == 2
		grouped := g.Output(red)
		var plain *Output
		if words {
			same := func(r types.Row) (types.Row, error) { return r, nil }
			plain = g.Output(g.Map(g.Reduce(in.Node(), ReduceSpec{KeyCols: key, Aggs: aggs}), same))
		} else {
			plain = g.Output(red)
		}
		if grouped.red == nil || plain.red != nil {
			t.Fatal("the first Output of a Reduce should keep its groups, the second not")
		}
		type kept struct {
			snap *Snapshot
			want string
		}
		snaps := make(chan kept, 40)
		done := make(chan string)
		go func() {
			bad := ""
			for s := range snaps {
				if got := fmtBatch(snapshotBatch(nopTB{}, s.snap)); got != s.want && bad == "" {
					bad = fmt.Sprintf("seed %d: a snapshot changed: %s, want %s", seed, got, s.want)
				}
			}
			done <- bad
		}()
		var live []types.Row
		for tick := range 40 {
			in.Push(randomChanges(rng, &live, rng.IntN(12), func() bool { return rng.IntN(3) == 0 }, func() types.Row {
				return types.Row{types.NewInt8(int64(rng.IntN(4))), types.NewInt8(int64(rng.IntN(3))), types.NewInt8(int64(rng.IntN(9)))}
			}))
			if err := g.Step(context.Background()); err != nil {
				t.Fatal(err)
			}
			if grouped.red.wordsMode != words || (grouped.red.stride > groupWords) != wide {
				t.Fatalf("seed %d: words mode %v with %d words, want %v, wide %v", seed, grouped.red.wordsMode, grouped.red.stride, words, wide)
			}
			checkConsolidated(grouped.Delta())
			if got, want := fmtBatch(grouped.Delta()), fmtBatch(plain.Delta()); got != want {
				t.Fatalf("seed %d tick %d: delta %s, want %s", seed, tick, got, want)
			}
			gs, ps := grouped.Snapshot(), plain.Snapshot()
			want := fmtBatch(snapshotBatch(t, ps))
			if got := fmtBatch(snapshotBatch(t, gs)); got != want {
				t.Fatalf("seed %d tick %d: snapshot %s, want %s", seed, tick, got, want)
			}
			if gs.Len() != ps.Len() || fmtErrors(gs.Errors()) != fmtErrors(ps.Errors()) {
				t.Fatalf("seed %d tick %d: len %d errors %s, want %d %s", seed, tick, gs.Len(), fmtErrors(gs.Errors()), ps.Len(), fmtErrors(ps.Errors()))
			}
			for range 4 {
				k := make(types.Row, rng.IntN(4))
				for i := range k {
					k[i] = types.NewInt8(int64(rng.IntN(5)))
				}
				for _, read := range []func(*Snapshot, types.Row, func(types.Row, int64) bool) error{(*Snapshot).Seek, (*Snapshot).Lookup} {
					var got, want Batch
					gerr := read(gs, k, func(r types.Row, n int64) bool { got = append(got, Update{Row: r, Diff: n}); return true })
					perr := read(ps, k, func(r types.Row, n int64) bool { want = append(want, Update{Row: r, Diff: n}); return true })
					if len(want) > 0 {
						reads++
					}
					if fmtBatch(got) != fmtBatch(want) || (gerr == nil) != (perr == nil) || gerr != nil && gerr.Error() != perr.Error() {
						t.Fatalf("seed %d tick %d: read %s: %s, want %s", seed, tick, fmtRow(k), fmtBatch(got), fmtBatch(want))
					}
				}
			}
			snaps <- kept{gs, want}
		}
		close(snaps)
		if bad := <-done; bad != "" {
			t.Fatal(bad)
		}
	}
	if reads < 100 {
		t.Fatalf("only %d reads found rows", reads)
	}
}

// TestWordsInPlace drives a GROUP BY view in words mode through ticks
// that change the words of groups that stay, which the Output writes in
// place where it last put their items (inPlace), between ticks that make
// and drop thousands of groups, so that leaves split, shift their items,
// join and leave the tree under the items' recorded places, and with the
// published snapshot pinned across a third of the ticks, so that those
// ticks copy the leaves they change. After every tick the view and every
// snapshot pinned across it must equal a second Reduce of the same rows
// through a plain Output. The steady ticks change two halves of a set of
// rows in turn: a tick that copied leaves for a snapshot leaves the other
// half's items at their places in the copies, so that all but a few of
// the changes of a tick with no snapshot pinned across it or the tick
// before must be written in place.
func TestWordsInPlace(t *testing.T) {
	for _, wide := range []bool{false, true} {
		t.Run(fmt.Sprintf("wide=%v", wide), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, 5))
			g := NewGraph()
			in := g.Input()
			aggs := []Aggregate{flatCountAgg{}, flatSumAgg{sumAgg{col: 1}}}
			if wide {
				aggs = append(aggs, flatSumAgg{sumAgg{col: 1}})
			}
			out := g.Output(g.Reduce(in.Node(), ReduceSpec{KeyCols: []int{0}, Aggs: aggs}))
			same := func(r types.Row) (types.Row, error) { return r, nil }
			ref := g.Output(g.Map(g.Reduce(in.Node(), ReduceSpec{KeyCols: []int{0}, Aggs: aggs}), same))
			var pinned *Snapshot
			var pinnedWant string
			// copied tells that the last tick ran with a snapshot pinned:
			// the leaves it copied are of the generation after it, the
			// others still of the snapshot's, copied on their next change.
			copied := false
			var live []types.Row
			keys := 0
			written, changed := 0, 0
			for tick := range 150 {
				// Phases of 25 ticks: grow to thousands of groups, change
				// the rows of the groups there are, shrink to a few.
				var b Batch
				phase := tick / 25 % 3
				switch phase {
				case 0:
					b = randomChanges(rng, &live, 400, func() bool { return rng.IntN(8) == 0 }, func() types.Row {
						keys++
						return int8Row(int64(rng.IntN(3*keys+1)), int64(rng.IntN(50)))
					})
				case 1:
					half := min(300, len(live)) / 2
					for i := range half {
						i += tick % 2 * half
						r := live[i]
						live[i] = int8Row(r[0].Int(), r[1].Int()+1)
						b = append(b, Update{Row: r, Diff: -1}, Update{Row: live[i], Diff: 1})
					}
				default:
					b = randomChanges(rng, &live, 500, func() bool { return rng.IntN(10) != 0 }, func() types.Row {
						return int8Row(int64(rng.IntN(3*keys+1)), int64(rng.IntN(50)))
					})
				}
				in.Push(b.Consolidate())
				step(t, g)
				// The first two steady ticks place their halves' items.
				if phase == 1 && tick%25 > 1 && pinned == nil && !copied {
					changed += len(out.red.wchanges)
					written += len(out.red.wchanges) - len(out.rest)
				}
				want := fmtBatch(snapshotBatch(t, ref.Snapshot()))
				copied = pinned != nil
				if pinned != nil {
					if got := fmtBatch(snapshotBatch(t, pinned)); got != pinnedWant {
						t.Fatalf("tick %d: a pinned snapshot changed", tick)
					}
					pinned.Unpin()
					pinned = nil
				}
				s := out.Publish()
				if err := s.Pin(); err != nil {
					t.Fatal(err)
				}
				if got := fmtBatch(snapshotBatch(t, s)); got != want {
					t.Fatalf("tick %d: view\n%s\nwant\n%s", tick, got, want)
				}
				if rng.IntN(3) == 0 {
					pinned, pinnedWant = s, want
				} else {
					s.Unpin()
				}
			}
			if changed == 0 || written < changed*19/20 {
				t.Fatalf("%d of %d changes of steady ticks after unpinned ones written in place", written, changed)
			}
		})
	}
}
