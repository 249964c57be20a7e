package loadgen

import (
	"context"
	"testing"

	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// BenchmarkNexmarkEvents measures the raw event function, one event per
// iteration, as a hand-written baseline consumes it.
func BenchmarkNexmarkEvents(b *testing.B) {
	b.ReportAllocs()
	g := NewNexmarkGenerator(1, 0)
	var sum int64
	g.Events(0, int64(b.N), func(_ int, row types.Row) { sum += row[0].Int() })
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkNexmarkBatch measures building source batches, one event per
// iteration: "fresh" in new memory each (rows the engine keeps), "reused"
// in the memory of the batch before (handed back by Batch.Release).
func BenchmarkNexmarkBatch(b *testing.B) {
	for _, reuse := range []bool{false, true} {
		name := "fresh"
		if reuse {
			name = "reused"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			g := NewNexmarkGenerator(1, 0)
			m := new(nexBatchMem)
			for pos := int64(0); pos < int64(b.N); pos += MaxBatchChanges {
				if !reuse {
					m = new(nexBatchMem)
				}
				g.batch(pos, min(MaxBatchChanges, int64(b.N)-pos), m)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// discard is a Sink that stops the run after a number of events.
type discard struct {
	left   int64
	cancel context.CancelFunc
}

func (d *discard) Emit(_ context.Context, b *sources.Batch) error {
	for _, chs := range b.Changes {
		d.left -= int64(len(chs))
	}
	if d.left <= 0 {
		d.cancel()
	}
	return nil
}

func (d *discard) Status(sources.State, string) {}

// BenchmarkNexmarkSource measures a saturated NEXMARK source end to end,
// one event per iteration.
func BenchmarkNexmarkSource(b *testing.B) {
	b.ReportAllocs()
	src, err := New("NEXMARK", Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_ = src.Run(ctx, nil, &discard{left: int64(b.N), cancel: cancel})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkTPCH measures the TPCH snapshot, one entity (a row, or an order
// with its lines) per iteration.
func BenchmarkTPCH(b *testing.B) {
	b.ReportAllocs()
	plan := newTPCHPlan(1)
	g := newTPCHGen(0, &plan)
	rows := 0
	for pos := int64(0); pos < int64(b.N); {
		changes, next := g.batch(pos, int64(b.N))
		for _, chs := range changes {
			rows += len(chs)
		}
		pos = next
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}
