package dataflow

import (
	"encoding/binary"
	"hash/maphash"
	"unsafe"

	"github.com/streamdb/streamdb/sql/types"
)

// arrangement is a collection indexed by key, the state of a join side: for
// each key (its memcomparable encoding) the rows with that key, in their
// value encoding, with multiplicities. It lives in a table (see table.go),
// so a key costs two dependent memory accesses to find and nothing to the
// garbage collector, whatever the size of the state.
//
// A key's rows are packed in its table value as entries
// [n int64][uvarint len][row]. Multiplicity changes are written in place;
// adding or removing a row rewrites the value. A key that gathers more
// than packedMax rows moves to a bucket (a Go slice of rows with a hash
// index) so that a skewed key (a million orders of one customer) still
// updates in O(1); its table value then holds bucketMarker and the
// bucket's number.
//
// Rows are identified by their exact encoding: the arrangement is a Z-set
// over row representations. Two representations of one value (numeric 1.0
// and 1.00) are two entries; every result built from them is still the
// right Z-set, and they meet again in any consolidation downstream.
type arrangement struct {
	tab     *table
	buckets []*bucket
	free    []uint32 // unused bucket numbers
	// bucketBytes is the size of the buckets, beyond the table.
	bucketBytes int64
	scratch     []byte
}

const (
	packedMarker = 0
	bucketMarker = 1
	packedMax    = 16
)

func newArrangement(seed maphash.Seed) *arrangement { return &arrangement{tab: newTable(seed)} }

// bucket holds the rows of one large key, with a hash index from row to
// position.
type bucket struct {
	rows  []arranged
	index map[string]int32
}

// arranged is one stored row and its multiplicity.
type arranged struct {
	row string
	n   int64
}

// Approximate in-memory sizes for StateBytes.
const (
	sizeString   = int64(unsafe.Sizeof(""))
	sizeSlice    = int64(unsafe.Sizeof([]byte(nil)))
	sizePointer  = int64(unsafe.Sizeof((*int)(nil)))
	sizeDatum    = int64(unsafe.Sizeof(types.Datum{}))
	sizeArranged = int64(unsafe.Sizeof(arranged{}))
	// sizeMapEntry is a Go map's overhead per entry beyond key and value:
	// control bytes and the slack of its load factor.
	sizeMapEntry = 16
	// sizeIndexEntry is one bucket index entry; its key shares the row's
	// bytes.
	sizeIndexEntry = sizeString + 4 + sizeMapEntry
)

// rows is an iterator over the rows of one key, obtained from get. It
// views the table: it is invalid after the arrangement changes.
type rows struct {
	packed []byte
	b      *bucket
	i      int
	row    []byte
	n      int64
}

// next advances to the next row, setting it.row and it.n.
func (it *rows) next() bool {
	if it.b != nil {
		if it.i >= len(it.b.rows) {
			return false
		}
		e := &it.b.rows[it.i]
		it.row, it.n = stored(e.row), e.n
		it.i++
		return true
	}
	if it.i >= len(it.packed) {
		return false
	}
	it.n = int64(binary.LittleEndian.Uint64(it.packed[it.i:]))
	l, k := binary.Uvarint(it.packed[it.i+8:])
	start := it.i + 8 + k
	it.row = it.packed[start : start+int(l)]
	it.i = start + int(l)
	return true
}

// get returns the rows of key; h is the key's hash (a.tab.hash).
func (a *arrangement) get(key []byte, h uint64) rows {
	i := a.tab.find(key, h)
	if i < 0 {
		return rows{}
	}
	v := a.tab.value(i)
	if v[0] == bucketMarker {
		return rows{b: a.buckets[binary.LittleEndian.Uint32(v[1:])]}
	}
	return rows{packed: v[1:]}
}

// update adds diff to the multiplicity of row under key (hash h), dropping
// the row when it reaches zero and the key when it has no rows left.
func (a *arrangement) update(key []byte, h uint64, row []byte, diff int64) {
	if diff == 0 {
		return
	}
	i := a.tab.find(key, h)
	if i < 0 {
		a.scratch = appendEntry(append(a.scratch[:0], packedMarker), row, diff)
		a.tab.insert(key, h, a.scratch)
		return
	}
	v := a.tab.value(i)
	if v[0] == bucketMarker {
		num := binary.LittleEndian.Uint32(v[1:])
		b := a.buckets[num]
		a.bucketBytes += b.add(row, diff)
		if len(b.rows) == 0 {
			a.tab.delete(i)
			a.buckets[num] = nil
			a.free = append(a.free, num)
		}
		return
	}
	it := rows{packed: v[1:]}
	count, at := 0, -1
	for pos := it.i; it.next(); pos = it.i {
		if string(it.row) == string(row) {
			at = pos + 1
		}
		count++
	}
	switch {
	case at >= 0:
		n := int64(binary.LittleEndian.Uint64(v[at:])) + diff
		if n != 0 {
			binary.LittleEndian.PutUint64(v[at:], uint64(n))
			return
		}
		end := at + 8 + uvarintLen(v[at+8:]) + len(row)
		if at == 1 && end == len(v) {
			a.tab.delete(i)
			return
		}
		a.scratch = append(append(a.scratch[:0], v[:at]...), v[end:]...)
		a.tab.replace(i, a.scratch)
	case count < packedMax:
		a.scratch = appendEntry(append(a.scratch[:0], v...), row, diff)
		a.tab.replace(i, a.scratch)
	default:
		a.toBucket(i, v, row, diff)
	}
}

// toBucket moves the packed rows of slot i and the new row into a bucket.
func (a *arrangement) toBucket(i int, v, row []byte, diff int64) {
	b := &bucket{rows: make([]arranged, 0, 2*packedMax)}
	it := rows{packed: v[1:]}
	for it.next() {
		b.rows = append(b.rows, arranged{row: string(it.row), n: it.n})
	}
	b.rows = append(b.rows, arranged{row: string(row), n: diff})
	b.buildIndex()
	var num uint32
	if n := len(a.free); n > 0 {
		num = a.free[n-1]
		a.free = a.free[:n-1]
		a.buckets[num] = b
	} else {
		num = uint32(len(a.buckets))
		a.buckets = append(a.buckets, b)
	}
	a.bucketBytes += b.size()
	a.scratch = binary.LittleEndian.AppendUint32(append(a.scratch[:0], bucketMarker), num)
	a.tab.replace(i, a.scratch)
}

// size returns the approximate bytes of the arrangement.
func (a *arrangement) size() int64 {
	return a.tab.size() + a.bucketBytes + int64(cap(a.buckets))*sizePointer
}

func appendEntry(dst, row []byte, n int64) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, uint64(n))
	dst = binary.AppendUvarint(dst, uint64(len(row)))
	return append(dst, row...)
}

func uvarintLen(b []byte) int {
	_, k := binary.Uvarint(b)
	return k
}

// add adds diff to row's multiplicity and returns the change in bytes.
func (b *bucket) add(row []byte, diff int64) int64 {
	if i, ok := b.index[string(row)]; ok {
		b.rows[i].n += diff
		if b.rows[i].n != 0 {
			return 0
		}
		return b.remove(int(i))
	}
	s := string(row)
	b.rows = append(b.rows, arranged{row: s, n: diff})
	b.index[s] = int32(len(b.rows) - 1)
	return int64(len(s)) + sizeArranged + sizeIndexEntry
}

// remove deletes entry i by moving the last entry into its place and
// returns the (negative) change in bytes.
func (b *bucket) remove(i int) int64 {
	gone := b.rows[i].row
	last := len(b.rows) - 1
	b.rows[i] = b.rows[last]
	b.rows[last] = arranged{}
	b.rows = b.rows[:last]
	delete(b.index, gone)
	if i < last {
		b.index[b.rows[i].row] = int32(i)
	}
	return -(int64(len(gone)) + sizeArranged + sizeIndexEntry)
}

func (b *bucket) buildIndex() {
	b.index = make(map[string]int32, 2*len(b.rows))
	for i, r := range b.rows {
		b.index[r.row] = int32(i)
	}
}

func (b *bucket) size() int64 {
	n := int64(len(b.rows)) * (sizeArranged + sizeIndexEntry)
	for _, r := range b.rows {
		n += int64(len(r.row))
	}
	return n
}
