package scalar

import (
	"context"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/types"
)

// BenchmarkViewUpdate maintains the view of the REFRESH comparison,
// SELECT k, count(*), sum(v) FROM r GROUP BY k over r(id int4, k int4,
// v int8) with 100k rows in 1,000 groups, through the engine's own
// aggregates, Reduce and Output: each tick updates change consecutive
// rows (v = v + 1), as UPDATE … WHERE id BETWEEN does. change=1 is the
// fixed per-tick cost. As in the engine, a tick's input rows are new
// (the engine decodes or computes them in the same tick, so they are in
// the caches, unlike rows built once and reused every sixteenth tick),
// and the view's snapshot is published and read after each tick, as the
// coordinator publishes every changed view and the REFRESH comparison
// reads the view after every change. wide adds sum(id): seven words of
// flat aggregates, more than a group keeps inline, so that the view
// keeps rows instead of words (see dataflow's words mode). loop is the
// floor: a hand-written Go loop over a map doing the same update of the
// same rows, keeping each group's count and sum and the changed groups'
// results, under the same conditions (warm or cold).
func BenchmarkViewUpdate(b *testing.B) {
	const rows, groups = 100_000, 1000
	// cold evicts the caches between ticks, the tick's input rows
	// included, as the rest of an engine's tick (parsing, the tables'
	// writes, the commit) does after the statement made the rows.
	var flush []byte
	// fresh copies a tick's input into new rows.
	fresh := func(src dataflow.Batch) dataflow.Batch {
		b := make(dataflow.Batch, len(src))
		for i, u := range src {
			b[i] = dataflow.Update{Row: u.Row.Copy(), Diff: u.Diff}
		}
		return b
	}
	for _, bc := range []struct {
		name   string
		change int
		cold   bool
		// wide adds sum(id), for seven words of flat aggregates.
		wide bool
		loop bool
	}{
		{name: "change=1", change: 1}, {name: "change=1000", change: 1000},
		{name: "cold/change=1", change: 1, cold: true}, {name: "cold/change=1000", change: 1000, cold: true},
		{name: "wide/change=1000", change: 1000, wide: true},
		{name: "loop/change=1000", change: 1000, loop: true}, {name: "loop/cold/change=1000", change: 1000, cold: true, loop: true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			step := mapLoop(groups)
			if !bc.loop {
				step = engineStep(b, bc.wide)
			}
			row := func(id, v int) types.Row {
				return types.Row{types.NewInt4(int32(id)), types.NewInt4(int32(id % groups)), types.NewInt8(int64(v))}
			}
			load := make(dataflow.Batch, rows)
			for i := range load {
				load[i] = dataflow.Update{Row: row(i, i), Diff: 1}
			}
			step(load)
			// Sixteen ranges, each updated up (v+1) and then back down on
			// its next turn, so that the ticks' batches are built once.
			const ranges = 16
			var up, down [ranges]dataflow.Batch
			for j := range ranges {
				lo := j * (rows / ranges)
				for id := lo; id < lo+bc.change; id++ {
					up[j] = append(up[j], dataflow.Update{Row: row(id, id), Diff: -1}, dataflow.Update{Row: row(id, id+1), Diff: +1})
					down[j] = append(down[j], dataflow.Update{Row: row(id, id+1), Diff: -1}, dataflow.Update{Row: row(id, id), Diff: +1})
				}
			}
			runtime.GC()
			// Stopping the timer costs a stop of the world and disturbs
			// the caches, so that the warm one-row ticks, whose two input
			// rows stay cached anyway, reuse them without stopping it.
			pause := bc.cold || bc.change > 1
			// cpu is the process's CPU time during the ticks alone,
			// measured around each tick when the timer pauses between
			// them (a getrusage call costs about a microsecond), else
			// around the whole loop.
			var cpu time.Duration
			loop0 := cpuTime()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				batch := up[i%ranges]
				if (i/ranges)%2 != 0 {
					batch = down[i%ranges]
				}
				var cpu0 time.Duration
				if pause {
					b.StopTimer()
					batch = fresh(batch)
					if bc.cold {
						if flush == nil {
							flush = make([]byte, 64<<20)
						}
						for j := range flush {
							flush[j]++
						}
					}
					b.StartTimer()
					cpu0 = cpuTime()
				}
				step(batch)
				if pause {
					cpu += cpuTime() - cpu0
				}
			}
			if !pause {
				cpu = cpuTime() - loop0
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*2*bc.change), "ns/change")
			if !bc.cold {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*2*bc.change), "cpu-ns/change")
			}
		})
	}
}

// engineStep returns a tick of BenchmarkViewUpdate's view through the
// engine's aggregates, Reduce and Output, which publishes the view's
// snapshot and reads it, as the coordinator does after every tick.
func engineStep(b *testing.B, wide bool) func(dataflow.Batch) {
	ctx := context.Background()
	g := dataflow.NewGraph()
	in := g.Input()
	eval := &EvalContext{}
	aggs := []dataflow.Aggregate{columnAgg(b, eval, "count", -1, types.Type{}), columnAgg(b, eval, "sum", 2, int8T)}
	if wide {
		aggs = append(aggs, columnAgg(b, eval, "sum", 0, int4T))
	}
	out := g.Output(g.Reduce(in.Node(), dataflow.ReduceSpec{KeyCols: []int{1}, Aggs: aggs}))
	return func(batch dataflow.Batch) {
		in.Push(batch)
		if err := g.Step(ctx); err != nil {
			b.Fatal(err)
		}
		if snap := out.Publish(); snap.Pin() == nil {
			snap.Unpin()
		}
	}
}

// mapLoop returns the hand-written floor of BenchmarkViewUpdate: a tick
// adds each row's weight and v to its group's count and sum, found
// through a map of k, and writes the changed groups' results out.
func mapLoop(groups int) func(dataflow.Batch) {
	type acc struct {
		n, sum int64
		tick   int
	}
	index := make(map[int64]int32, groups)
	var accs []acc
	var results [][3]int64
	var touched []int32
	tick := 0
	return func(batch dataflow.Batch) {
		tick++
		touched = touched[:0]
		for _, u := range batch {
			k := u.Row[1].Int()
			pos, ok := index[k]
			if !ok {
				pos = int32(len(accs))
				index[k] = pos
				accs = append(accs, acc{})
				results = append(results, [3]int64{})
			}
			a := &accs[pos]
			if a.tick != tick {
				a.tick = tick
				touched = append(touched, pos)
			}
			a.n += u.Diff
			a.sum += u.Diff * u.Row[2].Int()
		}
		for _, pos := range touched {
			results[pos] = [3]int64{int64(pos), accs[pos].n, accs[pos].sum}
		}
	}
}

// columnAgg builds aggregate name over input column idx of type typ, or
// over no argument (count(*)) when idx is negative.
func columnAgg(b *testing.B, eval *EvalContext, name string, idx int, typ types.Type) dataflow.Aggregate {
	b.Helper()
	spec := AggSpec{Eval: eval}
	var params []types.Type
	if idx >= 0 {
		ev, err := Compile(col(idx, typ))
		if err != nil {
			b.Fatal(err)
		}
		params = ts(typ)
		spec.Args, spec.ArgCols = []Evaluator{ev}, []int{idx}
	}
	f, _, err := ResolveAggregate(name, params, false)
	if err != nil {
		b.Fatal(err)
	}
	agg, err := f.Build(spec)
	if err != nil {
		b.Fatal(err)
	}
	return agg
}

// cpuTime returns the CPU time the process has used, garbage collector
// included: on a shared machine a steadier measure than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
