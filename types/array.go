package types

import (
	"cmp"
	"strconv"

	"github.com/streamdb/streamdb/pgerr"
)

// ArrayValue is the payload of an array Datum. Elements may be NULL. An
// ArrayValue is immutable once placed in a Datum.
//
// Elems holds the elements in PostgreSQL's storage order, the last
// subscript varying fastest. Dims is nil for a one-dimensional array (and
// for the empty array, which has no dimensions); a multidimensional array
// has one length per dimension in Dims, at most MaxArrayDims of them,
// whose product is len(Elems). Every dimension's lower bound is 1,
// PostgreSQL's default: arrays with other bounds are refused where they
// would enter (see ErrArrayBounds).
type ArrayValue struct {
	Elem  Type
	Elems []Datum
	Dims  []int32
}

// MaxArrayDims is PostgreSQL's MAXDIM, the most dimensions an array has.
const MaxArrayDims = 6

// NDims returns the number of dimensions: 0 for the empty array.
func (a *ArrayValue) NDims() int {
	switch {
	case a.Dims != nil:
		return len(a.Dims)
	case len(a.Elems) == 0:
		return 0
	}
	return 1
}

// DimLen returns the length of dimension i, counted from 0 (< NDims).
func (a *ArrayValue) DimLen(i int) int {
	if a.Dims == nil {
		return len(a.Elems)
	}
	return int(a.Dims[i])
}

// Lengths returns the length of every dimension.
func (a *ArrayValue) Lengths() []int32 {
	if a.Dims != nil {
		return a.Dims
	}
	if len(a.Elems) == 0 {
		return nil
	}
	return []int32{int32(len(a.Elems))}
}

// WithElems returns an array of the same shape as a over elems (of
// element type elem), as element-wise functions such as casts build it.
func (a *ArrayValue) WithElems(elem Type, elems []Datum) *ArrayValue {
	return &ArrayValue{Elem: elem, Elems: elems, Dims: a.Dims}
}

// NewArrayDims returns an array of the given shape, normalised: a
// one-dimensional or empty array gets nil Dims. It checks PostgreSQL's
// limits on the number of dimensions and elements.
func NewArrayDims(elem Type, elems []Datum, dims []int32) (*ArrayValue, error) {
	if len(dims) > MaxArrayDims {
		return nil, ErrArrayDims(len(dims))
	}
	n := int64(1)
	for _, d := range dims {
		n *= int64(d)
		if n > maxArraySize {
			return nil, pgerr.New(pgerr.ProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", maxArraySize)
		}
	}
	if len(dims) <= 1 || n == 0 {
		dims = nil
	}
	return &ArrayValue{Elem: elem, Elems: elems, Dims: dims}, nil
}

// maxArraySize is PostgreSQL's MaxArraySize.
const maxArraySize = 1<<30/16 - 1

// ErrArrayDims is PostgreSQL's error for an array of n > MaxArrayDims
// dimensions.
func ErrArrayDims(n int) error {
	return pgerr.New(pgerr.ProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", n, MaxArrayDims)
}

// ErrArrayBounds refuses an array whose lower bounds are not all 1.
func ErrArrayBounds() error {
	return pgerr.New(pgerr.FeatureNotSupported, "arrays with lower bounds other than 1 are not supported")
}

// AppendDims appends array_dims' text for a: "[1:2][1:3]"; nothing for
// the empty array.
func (a *ArrayValue) AppendDims(dst []byte) []byte {
	for _, n := range a.Lengths() {
		dst = append(dst, "[1:"...)
		dst = strconv.AppendInt(dst, int64(n), 10)
		dst = append(dst, ']')
	}
	return dst
}

// compareShape orders arrays whose elements compare equal as PostgreSQL's
// array_cmp does: by element count, then number of dimensions, then the
// dimensions' lengths.
func compareShape(a, b *ArrayValue) int {
	if len(a.Elems) != len(b.Elems) {
		return cmp.Compare(len(a.Elems), len(b.Elems))
	}
	if a.NDims() != b.NDims() {
		return cmp.Compare(a.NDims(), b.NDims())
	}
	for i := range a.NDims() {
		if c := cmp.Compare(a.DimLen(i), b.DimLen(i)); c != 0 {
			return c
		}
	}
	return 0
}
