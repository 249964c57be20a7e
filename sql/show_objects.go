package sql

import (
	"context"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/types"
)

// objectListing is SHOW OBJECTS: every object's name and kind, and how
// far back SUBSCRIBE … AS OF can start on it (history_since, a
// timestamp in milliseconds like mz_timestamp): for a table or a
// source's relation the oldest time its retained history reaches, for
// a view the latest of its inputs'. Objects without rows have none.
func objectListing(e *Frontend) ([]pgwire.Column, func(context.Context, *catalog.Catalog) (listing, error)) {
	cols := []pgwire.Column{
		{Name: "name", Type: types.TypeText},
		{Name: "type", Type: types.TypeText},
		{Name: "history_since", Type: types.TypeNumeric},
	}
	return cols, func(ctx context.Context, cat *catalog.Catalog) (listing, error) {
		stored, err := e.eng.HistorySince(ctx)
		if err != nil {
			return listing{}, err
		}
		l := listing{cols: cols}
		for _, o := range cat.Objects(0) {
			since := types.Null
			if ts, ok := historySince(cat, o, stored); ok {
				since = types.NewNumeric(apd.New(int64(ts), 0))
			}
			l.rows = append(l.rows, types.Row{types.NewText(o.Name), types.NewText(o.Kind.String()), since})
		}
		return l, nil
	}
}

// historySince is the earliest AS OF of an object: its own for a stored
// collection, the latest of its inputs' for a view.
func historySince(cat *catalog.Catalog, o *catalog.Object, stored map[uint64]uint64) (uint64, bool) {
	if ts, ok := stored[o.ID]; ok {
		return ts, true
	}
	if o.Kind != catalog.KindView && o.Kind != catalog.KindMaterializedView {
		return 0, false
	}
	var since uint64
	for _, id := range o.DependsOn {
		d, ok := cat.ByID(id)
		if !ok {
			return 0, false
		}
		ts, ok := historySince(cat, d, stored)
		if !ok {
			return 0, false
		}
		since = max(since, ts)
	}
	return since, true
}
