package sql

import (
	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/types"
)

// checkUnique is the statement-level check: the transaction's changes to
// a table against the unique indexes in the snapshot it read.
func (s *session) checkUnique(snap *engine.Snapshot, obj *catalog.Object, tt *txnTable) error {
	u := engine.NewUniqueCheck(snap.Catalog(), obj)
	if u == nil {
		return nil
	}
	for _, k := range tt.order {
		p := tt.changes[k]
		var old types.Row
		if p.existed {
			r, err := types.DecodeRow([]byte(p.expect), nil)
			if err != nil {
				return err
			}
			old = r
		}
		u.Change(old, p.row)
	}
	return u.Check(snap)
}
