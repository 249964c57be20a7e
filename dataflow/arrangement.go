package dataflow

import (
	"encoding/binary"
	"hash/maphash"
	"slices"
	"unsafe"

	"github.com/streamdb/streamdb/types"
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
// than packedMax rows moves to a bucket (entries of the same form in a
// byte slice of its own) so that a skewed key (a million orders of one
// customer, the bids of a hot auction) still updates in O(1); its table
// value then holds bucketMarker and the bucket's number.
//
// Rows are identified by their exact encoding: the arrangement is a Z-set
// over row representations. Two representations of one value (numeric 1.0
// and 1.00) are two entries; every result built from them is still the
// right Z-set, and they meet again in any consolidation downstream. A
// bucket may likewise hold one row in several entries (see bucket).
type arrangement struct {
	tab     *table
	buckets []*bucket
	free    []uint32 // unused bucket numbers
	// bucketBytes is the size of the buckets, beyond the table.
	bucketBytes int64
	scratch     []byte
	// ps and sub, when set, are where the arrangement persists its
	// changes (see arrangement_persist.go); appended lists the buckets
	// with entries appended in the current tick, persisted at its end.
	ps           *stateKeys
	sub          byte
	appended     []appendedKey
	appendedKeys []byte
}

const (
	packedMarker = 0
	bucketMarker = 1
	packedMax    = 16
)

func newArrangement(seed maphash.Seed) *arrangement { return &arrangement{tab: newTable(seed)} }

// bucket holds the rows of one large key as packed entries appended to
// data. Its index from row to entry is built on the first retraction: an
// append-only input (a source's bids) never retracts, and an insertion
// then appends its entry without a lookup, and nothing per row is
// allocated or left for the garbage collector to scan. Until then a row
// inserted twice has two entries, which a join matches as the two rows
// they stand for; building the index merges them. Entries whose
// multiplicity drops to zero stay as holes, skipped by iteration, until
// they are half of data and compact removes them.
type bucket struct {
	data  []byte
	index map[string]int // row to the offset of its entry; nil until a retraction
	live  int            // entries with a multiplicity
	holes int            // bytes of the entries without
	keys  int64          // bytes of the index's keys
	// appends counts the entries appended while there is no index, which
	// name them in the persisted state (see arrangement.persistAppend).
	appends uint32
	// pending marks the entries appended in the current tick and not yet
	// persisted: from offset pendAt of data on, the first of them the
	// pendOrd-th appended (see arrangement.flushAppends).
	pending bool
	pendAt  int
	pendOrd uint32
}

// Approximate in-memory sizes for StateBytes.
const (
	sizeString  = int64(unsafe.Sizeof(""))
	sizeSlice   = int64(unsafe.Sizeof([]byte(nil)))
	sizePointer = int64(unsafe.Sizeof((*int)(nil)))
	sizeDatum   = int64(unsafe.Sizeof(types.Datum{}))
	sizeBucket  = int64(unsafe.Sizeof(bucket{}))
	// sizeMapEntry is a Go map's overhead per entry beyond key and value:
	// control bytes and the slack of its load factor.
	sizeMapEntry = 16
	// sizeIndexEntry is one bucket index entry besides its key's bytes.
	sizeIndexEntry = sizeString + 8 + sizeMapEntry
)

// rows is an iterator over the rows of one key, obtained from get. It
// views the table or the bucket: it is invalid after the arrangement
// changes.
type rows struct {
	packed []byte
	i      int
	row    []byte
	n      int64
}

// next advances to the next row, setting it.row and it.n. It skips the
// entries of a bucket without a multiplicity.
func (it *rows) next() bool {
	for it.i < len(it.packed) {
		it.n = int64(binary.LittleEndian.Uint64(it.packed[it.i:]))
		l, k := binary.Uvarint(it.packed[it.i+8:])
		start := it.i + 8 + k
		it.row = it.packed[start : start+int(l)]
		it.i = start + int(l)
		if it.n != 0 {
			return true
		}
	}
	return false
}

// get returns the rows of key; h is the key's hash (a.tab.hash).
func (a *arrangement) get(key []byte, h uint64) rows {
	i := a.tab.find(key, h)
	if i < 0 {
		return rows{}
	}
	v := a.tab.value(i)
	if v[0] == bucketMarker {
		return rows{packed: a.buckets[binary.LittleEndian.Uint32(v[1:])].data}
	}
	return rows{packed: v[1:]}
}

// update adds diff to the multiplicity of row under key (hash h), dropping
// the row when it reaches zero and the key when it has no rows left.
func (a *arrangement) update(key []byte, h uint64, row []byte, diff int64) {
	if diff == 0 {
		return
	}
	persist := a.ps != nil && a.ps.on()
	i := a.tab.find(key, h)
	if i < 0 {
		a.scratch = appendEntry(append(a.scratch[:0], packedMarker), row, diff)
		a.tab.insert(key, h, a.scratch)
		if persist {
			a.persistRow(key, row, diff)
		}
		return
	}
	v := a.tab.value(i)
	if v[0] == bucketMarker {
		num := binary.LittleEndian.Uint32(v[1:])
		b := a.buckets[num]
		before := b.size()
		a.addToBucket(key, b, row, diff, persist)
		a.bucketBytes += b.size() - before
		if b.live == 0 {
			a.bucketBytes -= b.size()
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
		if persist {
			a.persistRow(key, row, n)
		}
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
		if persist {
			a.persistRow(key, row, diff)
		}
	default:
		a.toBucket(i, key, v, count, row, diff, persist)
	}
}

// toBucket moves the count packed rows of slot i (of key) and the new
// row into a bucket.
func (a *arrangement) toBucket(i int, key, v []byte, count int, row []byte, diff int64, persist bool) {
	b := &bucket{data: make([]byte, 0, 2*len(v)), live: count}
	b.data = append(b.data, v[1:]...)
	a.addToBucket(key, b, row, diff, persist)
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

// addToBucket adds diff to row's multiplicity in key's bucket b,
// persisting the change when persist is set.
func (a *arrangement) addToBucket(key []byte, b *bucket, row []byte, diff int64, persist bool) {
	if !persist {
		b.add(row, diff)
		return
	}
	if b.index == nil && diff < 0 {
		b.buildIndex()
		a.persistIndexed(key, b)
	}
	ord, at := b.appends, len(b.data)
	n := b.add(row, diff)
	if b.index == nil {
		a.persistAppend(key, b, ord, at)
		return
	}
	a.persistRow(key, row, n)
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

// add adds diff to row's multiplicity and returns the multiplicity. An
// insertion before the first retraction appends an entry (and returns
// diff, the entry's); anything else goes through the index.
func (b *bucket) add(row []byte, diff int64) int64 {
	if b.index == nil {
		if diff > 0 {
			b.append(row, diff)
			b.appends++
			return diff
		}
		b.buildIndex()
	}
	off, ok := b.index[string(row)]
	if !ok {
		s := string(row)
		b.index[s] = len(b.data)
		b.keys += int64(len(s))
		b.append(row, diff)
		return diff
	}
	n := int64(binary.LittleEndian.Uint64(b.data[off:])) + diff
	binary.LittleEndian.PutUint64(b.data[off:], uint64(n))
	if n != 0 {
		return n
	}
	delete(b.index, string(row))
	b.keys -= int64(len(row))
	b.live--
	b.holes += 8 + uvarintLen(b.data[off+8:]) + len(row)
	if b.holes*2 > len(b.data) {
		b.compact()
	}
	return 0
}

// append appends an entry, doubling data when it is full: a hot key's
// bucket grows to megabytes, and append's smaller steps for large slices
// would copy it several times over.
func (b *bucket) append(row []byte, n int64) {
	if need := 8 + binary.MaxVarintLen64 + len(row); cap(b.data)-len(b.data) < need {
		b.data = slices.Grow(b.data, max(len(b.data), need))
	}
	b.data = appendEntry(b.data, row, n)
	b.live++
}

// buildIndex indexes the entries by row, merging the entries of a row
// into its first: the others become holes.
func (b *bucket) buildIndex() {
	b.index = make(map[string]int, b.live)
	for off := 0; off < len(b.data); {
		n := int64(binary.LittleEndian.Uint64(b.data[off:]))
		l, k := binary.Uvarint(b.data[off+8:])
		size := 8 + k + int(l)
		row := b.data[off+8+k : off+size]
		switch first, dup := b.index[string(row)]; {
		case n == 0:
		case dup:
			m := int64(binary.LittleEndian.Uint64(b.data[first:])) + n
			binary.LittleEndian.PutUint64(b.data[first:], uint64(m))
			binary.LittleEndian.PutUint64(b.data[off:], 0)
			b.live--
			b.holes += size
		default:
			b.index[string(row)] = off
			b.keys += int64(len(row))
		}
		off += size
	}
}

// compact rewrites data without its holes and re-points the index.
func (b *bucket) compact() {
	data := make([]byte, 0, 2*(len(b.data)-b.holes))
	it := rows{packed: b.data}
	for it.next() {
		b.index[string(it.row)] = len(data)
		data = appendEntry(data, it.row, it.n)
	}
	b.data, b.holes = data, 0
}

// size returns the approximate bytes of the bucket.
func (b *bucket) size() int64 {
	return sizeBucket + int64(cap(b.data)) + b.keys + int64(len(b.index))*sizeIndexEntry
}
