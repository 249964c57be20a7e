package sql

import (
	"github.com/tidwall/btree"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
)

// snapshot is everything a read sees: the catalog and the contents of
// every table, materialized view and index as of one tick. It is
// immutable; the coordinator publishes a new one after each tick. Its maps
// are frozen copy-on-write B-trees shared with the coordinator's live
// ones, so publishing costs only the objects the tick changed.
type snapshot struct {
	ts     uint64
	cat    *catalog.Catalog
	tables *btree.Map[uint64, *tableSnap]
	// views holds the contents of materialized views and indexes.
	views *btree.Map[uint64, *dataflow.Snapshot]
	// next is closed when a newer snapshot is published.
	next chan struct{}
}

// table returns a table's contents.
func (s *snapshot) table(id uint64) (*tableSnap, bool) { return s.tables.Get(id) }

// view returns a materialized view's or index's contents.
func (s *snapshot) view(id uint64) (*dataflow.Snapshot, bool) { return s.views.Get(id) }
