package loadgen

import (
	"fmt"
	"testing"
	"time"

	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// TestResume runs each generator for a number of batches without
// interruption, then again stopping several times and resuming each time
// from the last emitted progress with a new source, and checks that both
// runs produce exactly the same changes: nothing repeated, nothing skipped.
func TestResume(t *testing.T) {
	for _, tc := range []struct {
		kind    string
		opts    Options
		batches int
		stops   []int // batches per interrupted run, before the last one
	}{
		{"COUNTER", Options{}, 12, []int{1, 4, 2}},
		{"COUNTER", Options{MaxCardinality: 3}, 12, []int{2, 3}},
		{"AUCTION", Options{Seed: 3}, 15, []int{1, 1, 5}},
		{"AUCTION", Options{Seed: 3, TickInterval: 3 * time.Second}, 15, []int{4}},
		{"NEXMARK", Options{Seed: 8}, 6, []int{1, 2}},
		{"NEXMARK", Options{Seed: 8, EventsPerSecond: 5000}, 30, []int{7, 11}},
		{"TPCH", Options{ScaleFactor: 0.005, Seed: 2}, 5, []int{1, 2}},
		{"TPCH", Options{ScaleFactor: 0.002, Seed: 2, TickInterval: time.Second}, 40, []int{1, 3, 10, 1}},
		// 30 orders: ticks replace the same orders again and again, so the
		// resumed runs must rebuild the current versions.
		{"TPCH", Options{ScaleFactor: 0.00002, TickInterval: time.Second}, 80, []int{2, 20, 7, 1}},
	} {
		t.Run(fmt.Sprintf("%s %+v", tc.kind, tc.opts), func(t *testing.T) {
			interval := tc.opts.tickInterval(time.Second)
			// clockAt gives a run resumed at position p the clock an
			// uninterrupted run has when it reaches p, for the generators
			// whose rows carry tick times.
			clockAt := func(p int64) clock {
				if tc.kind == "COUNTER" || tc.kind == "AUCTION" {
					return newVirtualClock(testEpoch.Add(time.Duration(p) * interval))
				}
				return newVirtualClock(testEpoch)
			}
			whole := run(t, newTestSource(t, tc.kind, tc.opts, clockAt(0)), nil, afterBatches(tc.batches), time.Minute)
			outputs := len(whole.batches[0].Changes)

			var pieces []*sources.Batch
			var resume map[string][]byte
			var pos int64
			rest := tc.batches
			for i := 0; i <= len(tc.stops); i++ {
				n := rest
				if i < len(tc.stops) {
					n = tc.stops[i]
				}
				src := newTestSource(t, tc.kind, tc.opts, clockAt(pos))
				r := run(t, src, resume, afterBatches(n), time.Minute)
				pieces = append(pieces, r.batches...)
				rest -= n
				resume = r.batches[len(r.batches)-1].Progress
				if p := lastPosition(t, r.batches); p <= pos {
					t.Fatalf("position went from %d to %d", pos, p)
				} else {
					pos = p
				}
			}
			// Paced NEXMARK batches follow the clock, which restarts with
			// every run; the interrupted runs must still produce a prefix
			// of the same stream, or the same stream extended.
			paced := tc.opts.EventsPerSecond > 0
			if got, want := lastPosition(t, pieces), lastPosition(t, whole.batches); got != want && !paced {
				t.Fatalf("interrupted runs end at %d, uninterrupted at %d", got, want)
			}
			got, want := outputRows(pieces, outputs), outputRows(whole.batches, outputs)
			for o := range want {
				if len(got[o]) != len(want[o]) && !paced {
					t.Fatalf("output %d: %d changes, want %d", o, len(got[o]), len(want[o]))
				}
				for i := range min(len(got[o]), len(want[o])) {
					g, w := got[o][i], want[o][i]
					if g.Diff != w.Diff || types.CompareRows(g.Row, w.Row) != 0 {
						t.Fatalf("output %d change %d: %v %+d, want %v %+d", o, i, g.Row, g.Diff, w.Row, w.Diff)
					}
				}
			}
		})
	}
}
