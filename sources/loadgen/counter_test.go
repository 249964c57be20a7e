package loadgen

import (
	"slices"
	"testing"
	"time"

	"github.com/streamdb/streamdb/sources"
)

func TestCounter(t *testing.T) {
	for _, tc := range []struct {
		name    string
		maxCard int64
		ticks   int
		// want is the collection after the last tick.
		want []int64
	}{
		{"unbounded", 0, 5, []int64{1, 2, 3, 4, 5}},
		{"max 1", 1, 4, []int64{4}},
		{"max 3", 3, 7, []int64{5, 6, 7}},
		{"max above ticks", 10, 4, []int64{1, 2, 3, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := newTestSource(t, "COUNTER", Options{MaxCardinality: tc.maxCard}, newVirtualClock(testEpoch))
			r := run(t, src, nil, afterBatches(tc.ticks), time.Minute)
			checkSchema(t, src.Outputs(), r.batches)
			coll := map[int64]int64{}
			for i, b := range r.batches {
				v := int64(i + 1)
				chs := b.Changes[0]
				if chs[0].Row[0].Int() != v || chs[0].Diff != 1 {
					t.Fatalf("tick %d inserts %v %+d, want %d +1", i, chs[0].Row, chs[0].Diff, v)
				}
				wantChanges := 1
				if tc.maxCard > 0 && v > tc.maxCard {
					wantChanges = 2
					if chs[1].Row[0].Int() != v-tc.maxCard || chs[1].Diff != -1 {
						t.Fatalf("tick %d retracts %v %+d, want %d -1", i, chs[1].Row, chs[1].Diff, v-tc.maxCard)
					}
				}
				if len(chs) != wantChanges {
					t.Fatalf("tick %d has %d changes, want %d", i, len(chs), wantChanges)
				}
				for _, ch := range chs {
					coll[ch.Row[0].Int()] += ch.Diff
				}
				if p := lastPosition(t, r.batches[:i+1]); p != v {
					t.Fatalf("position after tick %d is %d", i, p)
				}
			}
			var got []int64
			for v, n := range coll {
				if n < 0 || n > 1 {
					t.Fatalf("value %d has multiplicity %d", v, n)
				}
				if n == 1 {
					got = append(got, v)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("collection %v, want %v", got, tc.want)
			}
		})
	}
}

// TestCounterPacing checks that ticks are TICK INTERVAL apart, the first
// one immediate, and that Batch.Time is the tick's time.
func TestCounterPacing(t *testing.T) {
	clk := newVirtualClock(testEpoch)
	src := newTestSource(t, "COUNTER", Options{TickInterval: 250 * time.Millisecond}, clk)
	r := run(t, src, nil, afterBatches(5), time.Minute)
	for i, b := range r.batches {
		if want := testEpoch.Add(time.Duration(i) * 250 * time.Millisecond); !b.Time.Equal(want) {
			t.Errorf("tick %d at %v, want %v", i, b.Time, want)
		}
	}
	if len(r.states) == 0 || r.states[0] != sources.Running {
		t.Errorf("states %v, want running first", r.states)
	}
}

// TestCounterMaxEvents checks that MAX EVENTS stops the ticks and the
// source then idles until its context ends.
func TestCounterMaxEvents(t *testing.T) {
	src := newTestSource(t, "COUNTER", Options{MaxEvents: 3}, newVirtualClock(testEpoch))
	r := run(t, src, nil, nil, 100*time.Millisecond)
	if len(r.batches) != 3 {
		t.Fatalf("%d ticks, want 3", len(r.batches))
	}
	r = run(t, src, map[string][]byte{Partition: EncodePosition(3)}, nil, 50*time.Millisecond)
	if len(r.batches) != 0 {
		t.Fatalf("%d ticks after resuming at MAX EVENTS, want none", len(r.batches))
	}
}

// TestOptionsNow checks that New's sources take time from Options.Now.
func TestOptionsNow(t *testing.T) {
	shift := -time.Hour
	src, err := New("counter", Options{TickInterval: time.Millisecond, Now: func() time.Time { return time.Now().Add(shift) }})
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, src, nil, afterBatches(3), time.Minute)
	for _, b := range r.batches {
		if d := time.Since(b.Time); d < -shift-time.Minute || d > -shift+time.Minute {
			t.Fatalf("batch time %v is not an hour ago", b.Time)
		}
	}
}
