package sql

import (
	"github.com/streamdb/streamdb/dataflow"
)

// snapshot is everything a read sees: the catalog and the contents of
// every table, materialized view and index as of one tick. It is
// immutable; the coordinator publishes a new one after each tick.
type snapshot struct {
	ts     uint64
	cat    *Catalog
	tables map[uint64]*tableSnap
	// views holds the contents of materialized views and indexes.
	views map[uint64]*dataflow.Snapshot
}
