package engine

import (
	"sort"

	"github.com/streamdb/streamdb/types"
)

// RowChange is one change a transaction makes to a table row.
type RowChange struct {
	// Key is the row's storage key; empty for a new row of a table
	// without primary key, which gets a fresh row id at commit.
	Key string
	// Existed says the key held the value expect when the transaction
	// read it; commit fails with a serialization error if it no longer
	// does. For a new key, existed is false and commit fails with a
	// unique violation if the key appeared meanwhile.
	Existed bool
	Expect  string
	// Row is the new row, nil to delete.
	Row types.Row
}

// WriteSet is everything a transaction changes, per table.
type WriteSet struct {
	Tables map[uint64][]RowChange
}

func (w *WriteSet) Empty() bool {
	for _, cs := range w.Tables {
		if len(cs) > 0 {
			return false
		}
	}
	return true
}

// tableIDs returns the changed tables in id order, so that commits apply
// deterministically.
func (w *WriteSet) tableIDs() []uint64 {
	ids := make([]uint64, 0, len(w.Tables))
	for id := range w.Tables {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}
