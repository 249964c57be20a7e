package dataflow

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// lastFor is the validity of mz_now() BETWEEN ts AND ts + d (exclusive),
// ts being column 1 in milliseconds.
func lastFor(d int64) Validity {
	return func(r types.Row, dst []TimeSpan) ([]TimeSpan, error) {
		if r[1].IsNull() {
			return dst, nil
		}
		ts := r[1].Int() * 1000
		return append(dst, TimeSpan{From: ts, To: ts + d*1000}), nil
	}
}

func TestTemporalFilterTrace(t *testing.T) {
	g := NewGraph()
	in := g.Input()
	out := g.Output(g.TemporalFilter(in.Node(), lastFor(10)))
	steps := []struct {
		now   int64 // milliseconds
		input string
		want  string
		wake  int64
	}{
		{now: 0, input: "+(a, 5) +(b, 0) +(c, -20)", want: "+(b, 0)", wake: 5},
		{now: 5, want: "+(a, 5) +(b, 0)", wake: 10},
		{now: 12, want: "+(a, 5)", wake: 15},
		{now: 13, input: "-(a, 5)", want: "", wake: 15},
		{now: 20, want: ""},
	}
	for _, s := range steps {
		g.SetTime(s.now * 1000)
		in.Push(parseBatch(s.input))
		if err := g.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := fmtBatch(snapshotBatch(t, out.Snapshot())); got != s.want {
			t.Fatalf("at %d: got %s, want %s", s.now, got, s.want)
		}
		wake, ok := g.NextWake()
		if s.wake == 0 && ok || s.wake != 0 && wake != s.wake*1000 {
			t.Fatalf("at %d: next wake %d %v, want %d", s.now, wake, ok, s.wake*1000)
		}
	}
	if n := g.StateBytes(); n != out.StateBytes() {
		t.Errorf("filter keeps %d bytes after every row expired", n-out.StateBytes())
	}
}

// TestTemporalFilterProperty drives random insertions and deletions of
// rows, with time moving on between ticks (and ticks without input), and
// checks after every tick that the output holds exactly the present rows
// whose span contains the time.
func TestTemporalFilterProperty(t *testing.T) {
	for seed := range uint64(200) {
		if err := checkTemporalFilter(seed); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

func checkTemporalFilter(seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 7))
	g := NewGraph()
	in := g.Input()
	out := g.Output(g.TemporalFilter(in.Node(), lastFor(5)))
	present := map[string]Update{}
	now := int64(0)
	for tick := 0; tick < 40; tick++ {
		now += rng.Int64N(4)
		var b Batch
		for n := rng.IntN(4); n > 0; n-- {
			if len(present) > 0 && rng.IntN(3) == 0 {
				for k, u := range present {
					b = append(b, Update{Row: u.Row, Diff: -u.Diff})
					delete(present, k)
					break
				}
				continue
			}
			r := types.Row{types.NewInt8(rng.Int64N(3)), types.NewInt8(now - 6 + rng.Int64N(12))}
			k := fmtRow(r)
			u := present[k]
			u.Row, u.Diff = r, u.Diff+1
			present[k] = u
			b = append(b, Update{Row: r, Diff: 1})
		}
		g.SetTime(now * 1000)
		in.Push(b)
		if err := g.Step(context.Background()); err != nil {
			return err
		}
		var want Batch
		for _, u := range present {
			if ts := u.Row[1].Int(); ts <= now && now < ts+5 {
				want = append(want, u)
			}
		}
		got := snapshotBatch(nopTB{}, out.Snapshot())
		if a, b := fmtBatch(got), fmtBatch(want.Consolidate()); a != b {
			return fmt.Errorf("tick %d at %d: got %s, want %s", tick, now, a, b)
		}
	}
	return nil
}
