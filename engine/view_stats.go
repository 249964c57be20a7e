package engine

import (
	"context"
	"time"

	"github.com/streamdb/streamdb/catalog"
)

// flowStats is what maintaining a flow has cost since it was built (or
// rehydrated): the ticks that changed its inputs and the time its steps
// took. The coordinator updates it; SHOW MATERIALIZED VIEWS reports it, so
// that a user can see which view the engine spends its time on.
type flowStats struct {
	Ticks int64
	Busy  time.Duration
	Last  time.Duration
}

// record adds one maintenance step.
func (s *flowStats) record(d time.Duration) {
	s.Ticks++
	s.Busy += d
	s.Last = d
}

// ViewStat is one materialized view's line of SHOW MATERIALIZED VIEWS.
// Hydration is "ready", "restoring" (from its persisted state),
// "rebuilding" (from its inputs) or "failed: " and the reason, and
// Progress the fraction of the hydration done. OutputBytes is the part
// of StateBytes that holds the view's contents, the rest being its
// operators' working state.
type ViewStat struct {
	flowStats
	StateBytes  int64
	OutputBytes int64
	Hydration   string
	Progress    float64
}

// ViewStats gathers the statistics of every materialized view on the
// coordinator, between ticks: the state size is summed over the
// operators' state, which only the coordinator may read.
func (e *Engine) ViewStats(ctx context.Context) (map[uint64]ViewStat, error) {
	stats := map[uint64]ViewStat{}
	err := e.call(ctx, func(e *Engine) error {
		for id, f := range e.flowIndex {
			if f.obj.Kind == catalog.KindMaterializedView {
				stats[id] = ViewStat{flowStats: f.stats, StateBytes: f.graph.StateBytes(), OutputBytes: f.out.StateBytes(), Hydration: "ready", Progress: 1}
			}
		}
		for id := range e.hydration.jobs {
			status, p := e.hydrationStat(id)
			stats[id] = ViewStat{Hydration: status, Progress: p}
		}
		for id := range e.hydration.failed {
			status, p := e.hydrationStat(id)
			stats[id] = ViewStat{Hydration: status, Progress: p}
		}
		return nil
	})
	return stats, err
}

// StoredBytes estimates the bytes the store holds on disk for a table's
// or source's rows.
func (e *Engine) StoredBytes(id uint64) (int64, error) {
	n, err := e.store.Size(id)
	return int64(n), err
}
