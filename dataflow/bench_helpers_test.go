package dataflow

import (
	"context"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/streamdb/streamdb/types"
)

// benchStates are the state sizes of the engine's defining benchmarks:
// the cost per delta row must not grow with state (STYLE 13).
var benchStates = []struct {
	name string
	n    int
}{{"state=1e3", 1e3}, {"state=1e6", 1e6}}

// benchDelta is the number of rows per tick in the state-size benchmarks.
const benchDelta = 256

// fill pushes rows into in, in ticks of at most 64k rows, and steps g.
func fill(b *testing.B, g *Graph, in *Input, n int, row func(i int) types.Row) {
	b.Helper()
	const chunk = 1 << 16
	batch := make(Batch, 0, chunk)
	for i := 0; i < n; i++ {
		batch = append(batch, Update{Row: row(i), Diff: 1})
		if len(batch) == chunk || i == n-1 {
			in.Push(batch)
			if err := g.Step(context.Background()); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
}

// appendTicks runs b.N ticks that each insert benchDelta fresh rows,
// row(from), row(from+1), …, as an append-only source's ticks do (the
// state grows), and reports rows/s.
func appendTicks(b *testing.B, g *Graph, in *Input, from int, row func(i int) types.Row) {
	b.Helper()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		batch := make(Batch, benchDelta)
		for j := range batch {
			batch[j] = Update{Row: row(from + i*benchDelta + j), Diff: 1}
		}
		in.Push(batch)
		if err := g.Step(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N*benchDelta)/b.Elapsed().Seconds(), "rows/s")
}

// churn runs b.N ticks that each insert one pre-built batch of fresh rows
// and retract the batch inserted by the tick before, so that the state
// keeps its size, and reports rows/s and ns per delta row.
func churn(b *testing.B, g *Graph, in *Input, batches []Batch) {
	b.Helper()
	churnThen(b, g, in, batches, nil)
}

// churnThen is churn calling after, when not nil, after each tick.
func churnThen(b *testing.B, g *Graph, in *Input, batches []Batch, after func()) {
	b.Helper()
	neg := make([]Batch, len(batches))
	for i, bt := range batches {
		for _, u := range bt {
			neg[i] = append(neg[i], Update{Row: u.Row, Diff: -u.Diff})
		}
	}
	ctx := context.Background()
	rows := 0
	b.ReportAllocs()
	// Collect the garbage of building the state first: a collection
	// cycle the fill started, which marks the whole state, would
	// otherwise run on the deltas' CPU time and charge them for the
	// state's size.
	runtime.GC()
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in.Push(batches[i%len(batches)])
		rows += len(batches[i%len(batches)])
		if i > 0 {
			in.Push(neg[(i-1)%len(batches)])
			rows += len(neg[(i-1)%len(batches)])
		}
		if err := g.Step(ctx); err != nil {
			b.Fatal(err)
		}
		if after != nil {
			after()
		}
	}
	b.StopTimer()
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(max(rows, 1)), "ns/row")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(max(rows, 1)), "cpu-ns/row")
}

// cpuTime returns the CPU time the process has used, garbage collector
// included. On a shared machine it is a steadier measure than wall time,
// which counts the time spent waiting for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// heapInUse returns the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func int8Row(vals ...int64) types.Row {
	r := make(types.Row, len(vals))
	for i, v := range vals {
		r[i] = types.NewInt8(v)
	}
	return r
}
