package engine

import (
	"github.com/tidwall/btree"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
)

// Snapshot is everything a read sees: the catalog and the contents of
// every table, materialized view and index as of one tick. It is
// immutable; the coordinator publishes a new one after each tick. Its maps
// are frozen copy-on-write B-trees shared with the coordinator's live
// ones, so publishing costs only the objects the tick changed.
type Snapshot struct {
	ts     uint64
	cat    *catalog.Catalog
	tables *btree.Map[uint64, *TableSnap]
	// views holds the contents of materialized views and indexes.
	views *btree.Map[uint64, *dataflow.Snapshot]
	// next is closed when a newer snapshot is published.
	next chan struct{}
	// hydrating and failed hold the materialized views and indexes not
	// ready at the tick, being hydrated or failed (see hydrate.go).
	hydrating map[uint64]*hydrationJob
	failed    map[uint64]error
}

// Table returns a table's contents.
func (s *Snapshot) Table(id uint64) (*TableSnap, bool) { return s.tables.Get(id) }

// View returns a materialized view's or index's contents.
func (s *Snapshot) View(id uint64) (*dataflow.Snapshot, bool) { return s.views.Get(id) }

// Catalog returns the catalog as of the snapshot's tick.
func (s *Snapshot) Catalog() *catalog.Catalog { return s.cat }

// TS returns the snapshot's tick timestamp, in Unix milliseconds.
func (s *Snapshot) TS() uint64 { return s.ts }

// Next returns a channel closed once a newer snapshot is published.
func (s *Snapshot) Next() <-chan struct{} { return s.next }

// EmptySnapshot returns a snapshot of nothing: an empty catalog, no
// tables, no views. A front end that serves before its engine has
// opened binds against it the statements that read no object (SELECT 1,
// SET and SHOW of a setting), which then need no engine.
func EmptySnapshot() *Snapshot {
	return &Snapshot{cat: catalog.New().Frozen(), tables: new(btree.Map[uint64, *TableSnap]),
		views: new(btree.Map[uint64, *dataflow.Snapshot]), next: make(chan struct{})}
}
