package sql

import (
	"context"
	"time"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/types"
)

// flowStats is what maintaining a flow has cost since it was built (or
// rehydrated): the ticks that changed its inputs and the time its steps
// took. The coordinator updates it; SHOW MATERIALIZED VIEWS reports it, so
// that a user can see which view the engine spends its time on.
type flowStats struct {
	ticks int64
	busy  time.Duration
	last  time.Duration
}

// record adds one maintenance step.
func (s *flowStats) record(d time.Duration) {
	s.ticks++
	s.busy += d
	s.last = d
}

// viewStat is one materialized view's line of SHOW MATERIALIZED VIEWS.
type viewStat struct {
	flowStats
	stateBytes int64
}

// viewStats gathers the statistics of every materialized view on the
// coordinator, between ticks: the state size is summed over the
// operators' state, which only the coordinator may read.
func (e *Engine) viewStats(ctx context.Context) (map[uint64]viewStat, error) {
	stats := map[uint64]viewStat{}
	err := e.c.call(ctx, func(c *coordinator) error {
		for id, f := range c.flowIndex {
			if f.obj.Kind == catalog.KindMaterializedView {
				stats[id] = viewStat{flowStats: f.stats, stateBytes: f.graph.StateBytes()}
			}
		}
		return nil
	})
	return stats, err
}

// materializedViewListing is SHOW MATERIALIZED VIEWS: each view with the
// bytes of state its operators keep, the ticks that updated it, the total
// time spent maintaining it and the time its latest update took.
func materializedViewListing(e *Engine) ([]pgwire.Column, func(context.Context, *catalog.Catalog) (listing, error)) {
	cols := []pgwire.Column{
		{Name: "name", Type: types.TypeText},
		{Name: "state_bytes", Type: types.TypeInt8},
		{Name: "ticks", Type: types.TypeInt8},
		{Name: "maintenance_ms", Type: types.TypeFloat8},
		{Name: "last_tick_us", Type: types.TypeFloat8},
	}
	return cols, func(ctx context.Context, cat *catalog.Catalog) (listing, error) {
		stats, err := e.viewStats(ctx)
		if err != nil {
			return listing{}, err
		}
		l := listing{cols: cols}
		for _, o := range cat.Objects(catalog.KindMaterializedView) {
			row := types.Row{types.NewText(o.Name), types.Null, types.Null, types.Null, types.Null}
			if st, ok := stats[o.ID]; ok {
				row[1] = types.NewInt8(st.stateBytes)
				row[2] = types.NewInt8(st.ticks)
				row[3] = types.NewFloat8(float64(st.busy.Microseconds()) / 1e3)
				row[4] = types.NewFloat8(float64(st.last.Nanoseconds()) / 1e3)
			}
			l.rows = append(l.rows, row)
		}
		return l, nil
	}
}
