package engine

import (
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/types"
)

// RowReader decodes the stored rows a query scans: only the columns the
// query reads (the planner's needed columns), the others left NULL, into
// rows carved from shared chunks, which live no longer than the query.
// A query that reads no column of the table (count(*)) gets one row of
// NULLs for every stored row and decodes nothing. A nil RowReader decodes
// whole rows, each into storage of its own, for readers that keep them.
type RowReader struct {
	keep func(col int) bool
	// none is set when no column is read; nulls is then every row.
	none  bool
	nulls types.Row
	slab  dataflow.RowSlab
	width int
}

// NewRowReader returns the reader of the columns of a width-column table
// that keep reports true for, or nil when keep is nil (every column).
func NewRowReader(width int, keep func(col int) bool) *RowReader {
	if keep == nil {
		return nil
	}
	r := &RowReader{keep: keep, width: width, none: true}
	for c := range width {
		if keep(c) {
			r.none = false
		}
	}
	if r.none {
		r.nulls = make(types.Row, width)
	}
	return r
}

// Decode decodes one stored row.
func (r *RowReader) Decode(enc []byte) (types.Row, error) {
	switch {
	case r == nil:
		return types.DecodeRow(enc, nil)
	case r.none:
		return r.nulls, nil
	}
	row, err := types.DecodeRowColumns(enc, r.slab.Row(r.width)[:0], r.keep)
	return r.slab.Detach(row), err
}
