package loadgen

import (
	"unsafe"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/types"
)

// arena hands out strings carved from large byte chunks, so that building a
// generated string (an email, a phone number) costs a copy, not an
// allocation. Bytes are only ever appended to a chunk, never overwritten, so
// the strings stay immutable; a full chunk is abandoned to the strings that
// point into it and the garbage collector frees it with the last of them.
type arena struct {
	buf []byte
	// chunk is the capacity of the next chunk; callers that know their
	// total need set it to waste nothing.
	chunk int
}

// defaultArenaChunk suits generators that cannot predict their need.
const defaultArenaChunk = 16 << 10

// string returns a string holding a copy of b.
func (a *arena) string(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if cap(a.buf)-len(a.buf) < len(b) {
		size := a.chunk
		if size == 0 {
			size = defaultArenaChunk
		}
		a.buf = make([]byte, 0, max(size, len(b)))
	}
	start := len(a.buf)
	a.buf = append(a.buf, b...)
	return unsafe.String(&a.buf[start], len(b))
}

// slab hands out fixed-length slices of one large backing array: one
// allocation for a batch's rows or decimals instead of one per row. Slices
// are never reused; they belong to whoever receives them.
type slab[T any] struct {
	buf []T
	// chunk is the length of the next backing array (default 256).
	chunk int
}

// take returns a zeroed slice of length and capacity n.
func (s *slab[T]) take(n int) []T {
	if len(s.buf) < n {
		size := s.chunk
		if size == 0 {
			size = 256
		}
		s.buf = make([]T, max(size, n))
	}
	r := s.buf[:n:n]
	s.buf = s.buf[n:]
	return r
}

// rowSlab allocates rows.
type rowSlab = slab[types.Datum]

// decSlab allocates numeric payloads.
type decSlab struct{ slab[apd.Decimal] }

// numeric returns a numeric Datum of cents/100 whose payload comes from s.
func (s *decSlab) numeric(cents int64) types.Datum {
	d := &s.take(1)[0]
	d.SetFinite(cents, -2)
	return types.NewNumeric(d)
}
