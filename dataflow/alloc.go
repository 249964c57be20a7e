package dataflow

import (
	"encoding/binary"
	"errors"

	"github.com/streamdb/streamdb/types"
)

// rowSlab allocates the rows an operator emits from shared chunks of
// Datums: one allocation per slabDatums columns instead of one per row,
// which keeps the tick loop's allocation rate (and so the garbage
// collector's share of it) low. A chunk lives as long as any row carved
// from it; operators that keep rows across ticks (TopK) copy them, so
// that one retained row does not pin a whole chunk.
//
// Chunks start small and double up to slabDatums: a one-tick query of a
// row or two (SELECT 1, a million times in one simple query) allocated a
// whole chunk per operator, 16 kB a statement.
type rowSlab struct {
	buf []types.Datum
	// next is the size of the next chunk.
	next int
}

const (
	slabFirst  = 16
	slabDatums = 512
)

// row returns a zeroed row of n columns, never nil: a join's Output
// returns nil for a pair it drops, and a row of no columns (SELECT FROM
// a join, a domain of no columns) is a row all the same.
func (s *rowSlab) row(n int) types.Row {
	if n == 0 {
		return types.Row{}
	}
	if len(s.buf) < n {
		s.next = min(max(2*s.next, slabFirst), slabDatums)
		s.buf = make([]types.Datum, max(s.next, n))
	}
	r := s.buf[:n:n]
	s.buf = s.buf[n:]
	return r
}

var errColumnCount = errors.New("corrupt row: column count")

// decode decodes a stored row (appendRowValue) into slab storage.
func (s *rowSlab) decode(src []byte) (types.Row, error) {
	n, k := binary.Uvarint(src)
	if k <= 0 || n > uint64(len(src)) {
		return nil, errColumnCount
	}
	return decodeRowValue(src, s.row(int(n))[:0])
}

// RowSlab is rowSlab for the functions operators call per row (a join's
// Output, a map's function): rows carved from shared chunks instead of
// one allocation each. Such a function belongs to one operator of one
// graph, so its slab is never shared between goroutines.
type RowSlab struct{ s rowSlab }

// Row returns a zeroed row of n columns.
func (s *RowSlab) Row(n int) types.Row { return s.s.row(n) }

// Detach returns r, a row of this slab, in storage of its own when its
// values are large, and clears its place in the slab: a chunk lives as
// long as any row carved from it, and the chunk being carved would keep
// the values of rows long gone alive, five gigabytes of them for 512
// one-column rows of ten megabytes.
func (s *RowSlab) Detach(r types.Row) types.Row {
	n := 0
	for i := range r {
		n += len(r[i].Str())
	}
	if n < detachBytes {
		return r
	}
	own := make(types.Row, len(r))
	copy(own, r)
	clear(r)
	return own
}

// detachBytes is the size of a row's strings from which Detach moves it.
const detachBytes = 64 << 10
