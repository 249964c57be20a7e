package sql

import (
	"context"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/types"
)

// materializedViewListing is SHOW MATERIALIZED VIEWS: each view with the
// bytes of state its operators keep, the ticks that updated it, the total
// time spent maintaining it, the time its latest update took, and its
// hydration after a restart (ready, restoring, rebuilding or failed) with
// the fraction of it done.
func materializedViewListing(e *Frontend) ([]pgwire.Column, func(context.Context, *catalog.Catalog) (listing, error)) {
	cols := []pgwire.Column{
		{Name: "name", Type: types.TypeText},
		{Name: "state_bytes", Type: types.TypeInt8},
		{Name: "ticks", Type: types.TypeInt8},
		{Name: "maintenance_ms", Type: types.TypeFloat8},
		{Name: "last_tick_us", Type: types.TypeFloat8},
		{Name: "hydration", Type: types.TypeText},
		{Name: "hydration_progress", Type: types.TypeFloat8},
	}
	return cols, func(ctx context.Context, cat *catalog.Catalog) (listing, error) {
		stats, err := e.eng.ViewStats(ctx)
		if err != nil {
			return listing{}, err
		}
		l := listing{cols: cols}
		for _, o := range cat.Objects(catalog.KindMaterializedView) {
			row := types.Row{types.NewText(o.Name), types.Null, types.Null, types.Null, types.Null, types.Null, types.Null}
			if st, ok := stats[o.ID]; ok {
				if st.Hydration == "ready" {
					row[1] = types.NewInt8(st.StateBytes)
					row[2] = types.NewInt8(st.Ticks)
					row[3] = types.NewFloat8(float64(st.Busy.Microseconds()) / 1e3)
					row[4] = types.NewFloat8(float64(st.Last.Nanoseconds()) / 1e3)
				}
				row[5] = types.NewText(st.Hydration)
				row[6] = types.NewFloat8(st.Progress)
			}
			l.rows = append(l.rows, row)
		}
		return l, nil
	}
}
