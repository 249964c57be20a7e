package dataflow

import (
	"hash/maphash"
	"math/bits"

	"github.com/streamdb/streamdb/types"
)

// rowIndex maps key rows to dense positions (0, 1, 2 …, reused after
// removal), for operators whose per-key state is a Go object (Reduce's
// accumulators, TopK's trees): the state lives in a slice indexed by
// position. Keys are equal when types.Compare says so column by column,
// and hash consistently with it (see hash), so no key encoding is built
// per row. Open addressing over integer slots keeps a lookup to one slot
// probe plus one key comparison.
type rowIndex struct {
	seed   maphash.Seed
	seed64 uint64
	slots  []uint64 // slotEmpty, slotTombstone, or hash tag | pos+2
	keys   []types.Row
	hashes []uint64
	free   []int32
	live   int
	used   int
}

func newRowIndex() *rowIndex {
	seed := maphash.MakeSeed()
	return &rowIndex{seed: seed, seed64: maphash.Comparable(seed, 0), slots: make([]uint64, tableMinSlots)}
}

// hash returns the hash of a key. Keys whose columns are all integers,
// NULLs or other fixed-width values (the common GROUP BY and PARTITION BY
// keys) are hashed inline by mixing the values; any other key goes
// through types.HashRow. Equal keys take the same path, since Compare
// equates integers only with integers and the other fixed-width families
// only with themselves, so the two never disagree on equal keys.
func (x *rowIndex) hash(key types.Row) uint64 {
	h := x.seed64
	for i := range key {
		d := &key[i]
		switch k := d.Kind(); k {
		case types.Int2, types.Int4, types.Int8:
			// As hashInline's of a one-column key.
			h = mix(h, uint64(d.Int()), uint64(types.Int8))
		case types.Unknown, types.Bool, types.Oid, types.Date, types.Time, types.Timestamp, types.TimestampTZ:
			h = mix(h, uint64(d.Int()), uint64(k))
		default:
			var mh maphash.Hash
			mh.SetSeed(x.seed)
			types.HashRow(&mh, key)
			return mh.Sum64()
		}
	}
	return h
}

// hashInline returns the hash of a one-column key of inline value v and
// class (see inlineKey): hash's of that key.
func (x *rowIndex) hashInline(v int64, class types.Family) uint64 {
	return mix(x.seed64, uint64(v), uint64(class))
}

// mix folds a value and its class into h (a multiply-fold step, as in
// wyhash).
func mix(h, v, class uint64) uint64 {
	hi, lo := bits.Mul64(h^v, 0x9E3779B97F4A7C15^class<<56)
	return hi ^ lo
}

func slotPos(s uint64) int32 { return int32(uint32(s)) - 2 }

// find returns the position of key (hash h), or -1.
func (x *rowIndex) find(key types.Row, h uint64) int32 {
	return x.findFunc(h, func(p int32) bool { return equalRows(x.keys[p], key) })
}

// findFunc returns the position of the key of hash h for which is says
// true, or -1: for a caller that can tell a key at p from state it must
// reach anyway, without the miss of reading the key's row.
func (x *rowIndex) findFunc(h uint64, is func(p int32) bool) int32 {
	mask := uint64(len(x.slots) - 1)
	tag := h >> 32
	for i := h & mask; ; i = (i + 1) & mask {
		s := x.slots[i]
		switch {
		case s == slotEmpty:
			return -1
		case s != slotTombstone && s>>32 == tag:
			if p := slotPos(s); is(p) {
				return p
			}
		}
	}
}

// warm reads the slots in address order, one load per cache line, when
// n lookups would reach most of their lines anyway (at most one line per
// lookup): each lookup reads a slot at a random place, and when the
// caches went cold since the last tick (other work ran in between) each
// of those reads waits for memory in turn, where reads in address order
// let the processor fetch lines ahead. In a 1,000-row change under a
// GROUP BY of 1,000 groups, the waits on slots were a quarter of the
// tick. It returns the loads' sum, for the caller to keep: Go has no
// prefetch instruction.
func (x *rowIndex) warm(n int) uint64 {
	if len(x.slots) > 8*n {
		return 0
	}
	var sum uint64
	for i := 0; i < len(x.slots); i += 8 {
		sum += x.slots[i]
	}
	return sum
}

// insert adds key (hash h), which must not be present and which the index
// keeps (the caller must not modify it), and returns its position.
func (x *rowIndex) insert(key types.Row, h uint64) int32 {
	if key == nil {
		key = types.Row{} // nil marks a free position
	}
	if (x.used+1)*4 > len(x.slots)*3 {
		x.rehash(x.live + 1)
	}
	var p int32
	if n := len(x.free); n > 0 {
		p = x.free[n-1]
		x.free = x.free[:n-1]
		x.keys[p], x.hashes[p] = key, h
	} else {
		p = int32(len(x.keys))
		x.keys = append(x.keys, key)
		x.hashes = append(x.hashes, h)
	}
	x.place(h, p)
	x.live++
	return p
}

func (x *rowIndex) place(h uint64, p int32) {
	mask := uint64(len(x.slots) - 1)
	i := h & mask
	for x.slots[i] > slotTombstone {
		i = (i + 1) & mask
	}
	if x.slots[i] == slotEmpty {
		x.used++
	}
	x.slots[i] = h>>32<<32 | uint64(p+2)
}

// remove deletes the key at position p; p becomes free for reuse.
func (x *rowIndex) remove(p int32) {
	mask := uint64(len(x.slots) - 1)
	want := x.hashes[p]>>32<<32 | uint64(p+2)
	i := x.hashes[p] & mask
	for x.slots[i] != want {
		i = (i + 1) & mask
	}
	if x.slots[(i+1)&mask] == slotEmpty {
		x.slots[i] = slotEmpty
		x.used--
	} else {
		x.slots[i] = slotTombstone
	}
	x.keys[p] = nil
	x.free = append(x.free, p)
	x.live--
}

func (x *rowIndex) rehash(n int) {
	size := max(tableMinSlots, 1<<bits.Len(uint(n*2-1)))
	x.slots = make([]uint64, size)
	x.used = 0
	for p, k := range x.keys {
		if k != nil {
			x.place(x.hashes[p], int32(p))
		}
	}
}

// size returns the approximate bytes of the index itself (not the keys'
// Datums, which the caller accounts for).
func (x *rowIndex) size() int64 {
	return int64(cap(x.slots))*8 + int64(cap(x.keys))*(sizeSlice+8) + int64(cap(x.free))*4
}

// groupOf returns the group of key among groups, which sit at the
// positions the index gives their keys, creating it with create when the
// key is new. TopK, MonotonicTopK and Window keep their groups so.
func groupOf[G any](x *rowIndex, groups *[]G, key types.Row, create func(pos int32) G) G {
	h := x.hash(key)
	if p := x.find(key, h); p >= 0 {
		return (*groups)[p]
	}
	p := x.insert(key.Copy(), h)
	g := create(p)
	if int(p) == len(*groups) {
		*groups = append(*groups, g)
	} else {
		(*groups)[p] = g
	}
	return g
}

// equalRows reports whether two keys are equal column by column under
// types.Compare, comparing integers of one family directly.
func equalRows(a, b types.Row) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if k := x.Kind(); k == y.Kind() && (k.IsInteger() || k == types.Date || k == types.Timestamp || k == types.TimestampTZ) {
			if x.Int() != y.Int() {
				return false
			}
			continue
		}
		if types.Compare(*x, *y) != 0 {
			return false
		}
	}
	return true
}
