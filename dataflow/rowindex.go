package dataflow

import (
	"hash/maphash"
	"math/bits"

	"github.com/streamdb/streamdb/sql/types"
)

// rowIndex maps key rows to dense positions (0, 1, 2 …, reused after
// removal), for operators whose per-key state is a Go object (Reduce's
// accumulators, TopK's trees): the state lives in a slice indexed by
// position. Keys are equal when types.Compare says so column by column,
// and hash with types.HashRow, which agrees with it, so no key encoding
// is built per row. Open addressing over integer slots keeps a lookup to
// one slot probe plus one key comparison.
type rowIndex struct {
	seed   maphash.Seed
	slots  []uint64 // slotEmpty, slotTombstone, or hash tag | pos+2
	keys   []types.Row
	hashes []uint64
	free   []int32
	live   int
	used   int
}

func newRowIndex() *rowIndex {
	return &rowIndex{seed: maphash.MakeSeed(), slots: make([]uint64, tableMinSlots)}
}

func (x *rowIndex) hash(key types.Row) uint64 {
	var h maphash.Hash
	h.SetSeed(x.seed)
	types.HashRow(&h, key)
	return h.Sum64()
}

func slotPos(s uint64) int32 { return int32(uint32(s)) - 2 }

// find returns the position of key (hash h), or -1.
func (x *rowIndex) find(key types.Row, h uint64) int32 {
	mask := uint64(len(x.slots) - 1)
	tag := h >> 32
	for i := h & mask; ; i = (i + 1) & mask {
		s := x.slots[i]
		switch {
		case s == slotEmpty:
			return -1
		case s != slotTombstone && s>>32 == tag:
			if p := slotPos(s); equalRows(x.keys[p], key) {
				return p
			}
		}
	}
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

// equalRows reports whether two keys are equal column by column under
// types.Compare.
func equalRows(a, b types.Row) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if types.Compare(a[i], b[i]) != 0 {
			return false
		}
	}
	return true
}
