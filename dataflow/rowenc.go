package dataflow

import (
	"unsafe"

	"github.com/streamdb/streamdb/types"
)

// Operator state keeps rows in the value encoding of types (exact, a
// few bytes per column) rather than as []Datum (32 bytes per column plus a
// slice header), and identifies them by the memcomparable key encoding
// where equality must follow types.Compare.

// appendRowValue appends the stored form of a row.
func appendRowValue(dst []byte, r types.Row) []byte { return types.AppendRow(dst, r) }

// decodeRowValue decodes a row written by appendRowValue into dst's
// storage (dst's length is ignored).
func decodeRowValue(src []byte, dst types.Row) (types.Row, error) {
	return types.DecodeRow(src, dst)
}

// stored returns the bytes of a stored encoding without copying. State
// keeps encodings as strings (immutable, usable as map keys); the decoders
// only read their input, so viewing the string's bytes is safe.
func stored(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
