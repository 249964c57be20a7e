package dataflow

import (
	"fmt"

	"github.com/streamdb/streamdb/sql/types"
)

// ScanAll calls fn for every row with its multiplicity even when the
// snapshot is in error. It is for feeding the collection into another
// dataflow, which receives the errors separately (Errors) and carries
// them as data; a SQL read must use Scan, which fails instead.
func (s *Snapshot) ScanAll(fn func(row types.Row, n int64) bool) error {
	var derr error
	s.tree.Scan(func(it item) bool {
		row, err := decodeRowValue(stored(it.val), nil)
		if err != nil {
			derr = fmt.Errorf("dataflow: corrupt row in view: %w", err)
			return false
		}
		return fn(row, it.n)
	})
	return derr
}
