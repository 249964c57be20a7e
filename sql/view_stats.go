package sql

import (
	"context"
	"fmt"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/types"
)

// materializedViewListing is SHOW MATERIALIZED VIEWS: each view with the
// bytes of state its operators keep, the ticks that updated it, the total
// time spent maintaining it, the time its latest update took, and its
// status: running, or in error with its first error (streamdb_view_errors
// lists them all), and its hydration after a restart (ready, restoring,
// rebuilding or failed) with the fraction of it done.
func materializedViewListing(e *Frontend) ([]pgwire.Column, func(context.Context, *catalog.Catalog) (listing, error)) {
	cols := []pgwire.Column{
		{Name: "name", Type: types.TypeText},
		{Name: "state_bytes", Type: types.TypeInt8},
		{Name: "ticks", Type: types.TypeInt8},
		{Name: "maintenance_ms", Type: types.TypeFloat8},
		{Name: "last_tick_us", Type: types.TypeFloat8},
		{Name: "status", Type: types.TypeText},
		{Name: "hydration", Type: types.TypeText},
		{Name: "hydration_progress", Type: types.TypeFloat8},
	}
	return cols, func(ctx context.Context, cat *catalog.Catalog) (listing, error) {
		stats, err := e.eng.ViewStats(ctx)
		if err != nil {
			return listing{}, err
		}
		l := listing{cols: cols}
		snap := e.snapshot()
		for _, o := range cat.Objects(catalog.KindMaterializedView) {
			row := types.Row{types.NewText(o.Name), types.Null, types.Null, types.Null, types.Null, types.NewText("running"), types.Null, types.Null}
			if vs, ok := snap.View(o.ID); ok {
				if errs := vs.Errors(); len(errs) > 0 {
					row[5] = types.NewText(viewStatusInError(errs))
				}
			}
			if st, ok := stats[o.ID]; ok {
				if st.Hydration == "ready" {
					row[1] = types.NewInt8(st.StateBytes)
					row[2] = types.NewInt8(st.Ticks)
					row[3] = types.NewFloat8(float64(st.Busy.Microseconds()) / 1e3)
					row[4] = types.NewFloat8(float64(st.Last.Nanoseconds()) / 1e3)
				}
				row[6] = types.NewText(st.Hydration)
				row[7] = types.NewFloat8(st.Progress)
			}
			l.rows = append(l.rows, row)
		}
		return l, nil
	}
}

// viewStatusInError is the status of a view in errors errs: the first
// error and how many rows fail.
func viewStatusInError(errs []dataflow.ErrorUpdate) string {
	var rows int64
	for _, u := range errs {
		rows += u.Diff
	}
	unit := "rows"
	if rows == 1 {
		unit = "row"
	}
	more := ""
	if len(errs) > 1 {
		more = fmt.Sprintf(", and %d other errors", len(errs)-1)
	}
	return fmt.Sprintf("error: %s (%d %s%s)", errs[0].Err.Message, rows, unit, more)
}
