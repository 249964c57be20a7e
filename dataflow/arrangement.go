package dataflow

import (
	"unsafe"

	"github.com/streamdb/streamdb/sql/types"
)

// arrangement is a collection indexed by key, the state of a join side: for
// each key (its memcomparable encoding) a bucket of the rows with that key,
// stored in their value encoding, with multiplicities. Lookups and updates
// cost O(1) in the size of the arrangement (a hash map on the key bytes),
// which is what keeps a join's cost per delta independent of its state.
//
// Rows are identified by their exact encoding: the arrangement is a Z-set
// over row representations. Two representations of one value (numeric 1.0
// and 1.00) are two entries; every result built from them is still the
// right Z-set, and they meet again in any consolidation downstream.
type arrangement struct {
	buckets map[string]*bucket
	bytes   int64
}

func newArrangement() *arrangement {
	return &arrangement{buckets: make(map[string]*bucket)}
}

// bucket holds the rows of one key. Small buckets are searched linearly;
// a bucket that grows past bucketIndexMin rows gets a hash index, so that a
// skewed key (a million orders of one customer) still updates in O(1).
type bucket struct {
	rows  []arranged
	index map[string]int32
}

// arranged is one stored row and its multiplicity.
type arranged struct {
	row string
	n   int64
}

const bucketIndexMin = 16

// Approximate in-memory sizes for StateBytes.
const (
	sizeString   = int64(unsafe.Sizeof(""))
	sizeSlice    = int64(unsafe.Sizeof([]byte(nil)))
	sizePointer  = int64(unsafe.Sizeof((*int)(nil)))
	sizeDatum    = int64(unsafe.Sizeof(types.Datum{}))
	sizeArranged = int64(unsafe.Sizeof(arranged{}))
	sizeBucket   = int64(unsafe.Sizeof(bucket{}))
	// sizeMapEntry is a Go map's overhead per entry beyond key and value:
	// control bytes and the slack of its load factor.
	sizeMapEntry = 16
	// sizeIndexEntry is one bucket index entry; the key string shares
	// the row's bytes.
	sizeIndexEntry = sizeString + 4 + sizeMapEntry
)

// get returns the bucket of key, nil when no row has that key.
func (a *arrangement) get(key []byte) *bucket { return a.buckets[string(key)] }

// update adds diff to the multiplicity of row under key, dropping the row
// when it reaches zero and the bucket when it empties.
func (a *arrangement) update(key, row []byte, diff int64) {
	if diff == 0 {
		return
	}
	b := a.buckets[string(key)]
	if b == nil {
		b = new(bucket)
		a.buckets[string(key)] = b
		a.bytes += int64(len(key)) + sizeString + sizePointer + sizeMapEntry + sizeBucket
	}
	a.bytes += b.add(row, diff)
	if len(b.rows) == 0 {
		delete(a.buckets, string(key))
		a.bytes -= int64(len(key)) + sizeString + sizePointer + sizeMapEntry + sizeBucket
	}
}

// add adds diff to row's multiplicity and returns the change in bytes.
func (b *bucket) add(row []byte, diff int64) int64 {
	i := b.find(row)
	if i < 0 {
		s := string(row)
		b.rows = append(b.rows, arranged{row: s, n: diff})
		grown := int64(len(s)) + sizeArranged
		if b.index != nil {
			b.index[s] = int32(len(b.rows) - 1)
			grown += sizeIndexEntry
		} else if len(b.rows) > bucketIndexMin {
			grown += b.buildIndex()
		}
		return grown
	}
	b.rows[i].n += diff
	if b.rows[i].n != 0 {
		return 0
	}
	return b.remove(i)
}

func (b *bucket) find(row []byte) int {
	if b.index != nil {
		if i, ok := b.index[string(row)]; ok {
			return int(i)
		}
		return -1
	}
	for i := range b.rows {
		if b.rows[i].row == string(row) {
			return i
		}
	}
	return -1
}

// remove deletes entry i by moving the last entry into its place and
// returns the (negative) change in bytes.
func (b *bucket) remove(i int) int64 {
	gone := b.rows[i].row
	shrunk := -(int64(len(gone)) + sizeArranged)
	last := len(b.rows) - 1
	b.rows[i] = b.rows[last]
	b.rows[last] = arranged{}
	b.rows = b.rows[:last]
	if b.index == nil {
		return shrunk
	}
	delete(b.index, gone)
	shrunk -= sizeIndexEntry
	if i < last {
		b.index[b.rows[i].row] = int32(i)
	}
	if len(b.rows) < bucketIndexMin/2 {
		shrunk -= int64(len(b.rows)) * sizeIndexEntry
		b.index = nil
	}
	return shrunk
}

func (b *bucket) buildIndex() int64 {
	b.index = make(map[string]int32, 2*len(b.rows))
	for i, r := range b.rows {
		b.index[r.row] = int32(i)
	}
	return int64(len(b.rows)) * sizeIndexEntry
}
