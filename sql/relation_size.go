package sql

import (
	"context"

	"github.com/streamdb/streamdb/catalog"
)

// RelationSize implements scalar.Session: a table's, source's or
// subsource's bytes on disk, a materialized view's bytes of state in
// memory (what SHOW MATERIALIZED VIEWS reports), nothing for the other
// relations (views, indexes, sequences keep no rows of their own).
func (v *catalogView) RelationSize(oid uint32) (int64, bool, error) {
	o, ok := v.snapshot().Catalog().ByID(uint64(oid))
	if !ok {
		return 0, false, nil
	}
	switch o.Kind {
	case catalog.KindTable, catalog.KindSource, catalog.KindSubsource:
		n, err := v.s.e.eng.StoredBytes(o.ID)
		return n, err == nil, err
	case catalog.KindMaterializedView:
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			select {
			case <-v.s.stmtDone:
				cancel()
			case <-ctx.Done():
			}
		}()
		stats, err := v.s.e.eng.ViewStats(ctx)
		if err != nil {
			return 0, false, err
		}
		return stats[o.ID].StateBytes, true, nil
	case catalog.KindView, catalog.KindIndex, catalog.KindSequence:
		return 0, true, nil
	}
	return 0, false, nil
}
