package engine

import (
	"unsafe"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/types"
)

// RowReader decodes the stored rows a query scans: only the columns the
// query reads (the planner's needed columns), the others left NULL, into
// rows carved from shared chunks, which live no longer than the query.
// A query that reads no column of the table (count(*)) gets one row of
// NULLs for every stored row and decodes nothing. A nil RowReader decodes
// whole rows, each into storage of its own, for readers that keep them.
// A reusing RowReader (newReusingRowReader) decodes whole rows into
// memory it reuses after each reset.
type RowReader struct {
	keep func(col int) bool
	// none is set when no column is read; nulls is then every row.
	none  bool
	nulls types.Row
	slab  dataflow.RowSlab
	width int
	// reuse is set on a reusing reader: rows are cut from datums, and
	// their strings from buf, which hold the stored rows decoded since
	// the last reset.
	reuse  bool
	buf    []byte
	datums types.Row
	// held counts the bytes of the stored rows decoded since the reset.
	held int
}

// newReusingRowReader returns a reader of whole rows for a reader that
// keeps no row, nor any of its values, past the next reset: a restore
// feeding a table's rows, a chunk at a time, to derived state, which
// encodes what it keeps (dataflow.Graph.Derive). Decoding a row into
// storage of its own made gigabytes of garbage in a restore, and the
// collector's headroom for it took the process's memory to 1.6 times
// its steady state.
func newReusingRowReader() *RowReader { return &RowReader{reuse: true} }

// reset lets the reusing reader overwrite the rows decoded so far.
func (r *RowReader) reset() {
	r.buf = r.buf[:0]
	r.datums = r.datums[:0]
	r.held = 0
}

// reusing reports whether r is a reusing reader (nil is not).
func (r *RowReader) reusing() bool { return r != nil && r.reuse }

// full reports whether a reusing reader holds a chunk's worth of bytes.
func (r *RowReader) full() bool { return r.reusing() && r.held >= hydrateChunkBytes }

// decodeReused decodes a row into the reader's reused memory. Memory it
// outgrows stays with the rows cut from it until they are dropped.
func (r *RowReader) decodeReused(enc []byte) (types.Row, error) {
	if cap(r.buf)-len(r.buf) < len(enc) {
		r.buf = make([]byte, 0, max(2*cap(r.buf), len(enc), 1<<20))
	}
	start := len(r.buf)
	r.buf = append(r.buf, enc...)
	r.held += len(enc)
	src := unsafe.String(unsafe.SliceData(r.buf[start:]), len(enc))
	free := r.datums[len(r.datums):]
	row, err := types.DecodeRowShared(src, free)
	if err != nil {
		return nil, err
	}
	if cap(free) > 0 && unsafe.SliceData(row) == unsafe.SliceData(free) {
		r.datums = r.datums[:len(r.datums)+len(row)]
	} else {
		r.datums = make(types.Row, 0, max(2*cap(r.datums), 4096))
	}
	return row[:len(row):len(row)], nil
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
	case r.reuse:
		return r.decodeReused(enc)
	case r.none:
		return r.nulls, nil
	}
	row, err := types.DecodeRowColumns(enc, r.slab.Row(r.width)[:0], r.keep)
	return r.slab.Detach(row), err
}
