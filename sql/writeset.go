package sql

import (
	"sort"

	"github.com/streamdb/streamdb/types"
)

// rowChange is one change a transaction makes to a table row.
type rowChange struct {
	// key is the row's storage key; empty for a new row of a table
	// without primary key, which gets a fresh row id at commit.
	key string
	// existed says the key held the value expect when the transaction
	// read it; commit fails with a serialization error if it no longer
	// does. For a new key, existed is false and commit fails with a
	// unique violation if the key appeared meanwhile.
	existed bool
	expect  string
	// row is the new row, nil to delete.
	row types.Row
}

// writeSet is everything a transaction changes, per table.
type writeSet struct {
	tables map[uint64][]rowChange
}

func (w *writeSet) empty() bool {
	for _, cs := range w.tables {
		if len(cs) > 0 {
			return false
		}
	}
	return true
}

// tableIDs returns the changed tables in id order, so that commits apply
// deterministically.
func (w *writeSet) tableIDs() []uint64 {
	ids := make([]uint64, 0, len(w.tables))
	for id := range w.tables {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}
