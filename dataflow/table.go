package dataflow

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math/bits"
)

// table is an open-addressing hash table from byte keys to byte values,
// kept outside Go's pointer graph: the slots are integers and the records
// live in one byte arena. It is the storage of arrangements, built for
// states of millions of keys:
//
//   - a lookup costs two dependent memory accesses (the slot, then the
//     record holding key and value), where a Go map of string keys to
//     pointers costs four or five, each a cache and TLB miss once the
//     state outgrows the caches;
//   - the garbage collector never scans it (both slices are pointer-free),
//     so a large state does not tax every allocation of the tick loop.
//
// A slot holds 16 bits of the key's hash (a tag, so that most probes of
// other keys are rejected without touching the arena) and the record's
// arena offset. Records are [klen uint32][vlen uint32][key][value].
// Replacing a value with one of another length appends a new record and
// leaves the old one as garbage; the arena is compacted when garbage
// exceeds half of it. Values may be modified in place through the slice
// value returns, which is how fixed-width counters are updated.
type table struct {
	seed    maphash.Seed
	slots   []uint64
	arena   []byte
	live    int // keys present
	used    int // slots not empty: live keys and tombstones
	garbage int // arena bytes of dead records
}

const (
	slotEmpty     = 0
	slotTombstone = 1
	recHeader     = 8
	// tableMinSlots is the initial size; the table doubles from there.
	tableMinSlots = 16
)

// newTable returns an empty table hashing with seed. Tables that share a
// seed hash a key alike, so one hash serves lookups in all of them.
func newTable(seed maphash.Seed) *table {
	return &table{seed: seed, slots: make([]uint64, tableMinSlots)}
}

func (t *table) hash(key []byte) uint64 { return maphash.Bytes(t.seed, key) }

// slotFor returns the slot value for a record at off with hash h.
func slotFor(h uint64, off int) uint64 { return h>>48<<48 | uint64(off+2) }

func slotOff(s uint64) int { return int(s&(1<<48-1)) - 2 }

// find returns the slot index holding key (hash h), or -1.
func (t *table) find(key []byte, h uint64) int {
	mask := uint64(len(t.slots) - 1)
	tag := h >> 48
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		switch {
		case s == slotEmpty:
			return -1
		case s != slotTombstone && s>>48 == tag && bytes.Equal(t.recKey(slotOff(s)), key):
			return int(i)
		}
	}
}

func (t *table) recKey(off int) []byte {
	klen := int(binary.LittleEndian.Uint32(t.arena[off:]))
	return t.arena[off+recHeader : off+recHeader+klen]
}

func (t *table) recVal(off int) []byte {
	klen := int(binary.LittleEndian.Uint32(t.arena[off:]))
	vlen := int(binary.LittleEndian.Uint32(t.arena[off+4:]))
	start := off + recHeader + klen
	return t.arena[start : start+vlen : start+vlen]
}

func recLen(arena []byte, off int) int {
	return recHeader + int(binary.LittleEndian.Uint32(arena[off:])) + int(binary.LittleEndian.Uint32(arena[off+4:]))
}

// key returns the key at slot i, a view valid until the next mutation.
func (t *table) key(i int) []byte { return t.recKey(slotOff(t.slots[i])) }

// value returns the value at slot i, a view into the arena valid until
// the next insert, replace or delete. Writing through it updates the value
// in place.
func (t *table) value(i int) []byte { return t.recVal(slotOff(t.slots[i])) }

// touch reads the slot of hash h and the record it points to, without
// using them. Issued for a batch of keys before the real lookups, these
// independent reads let the CPU overlap the cache misses of many keys.
func (t *table) touch(h uint64) byte {
	s := t.slots[h&uint64(len(t.slots)-1)]
	if s <= slotTombstone {
		return 0
	}
	return t.arena[slotOff(s)]
}

// append writes a record and returns its offset.
func (t *table) append(key, val []byte) int {
	off := len(t.arena)
	t.arena = binary.LittleEndian.AppendUint32(t.arena, uint32(len(key)))
	t.arena = binary.LittleEndian.AppendUint32(t.arena, uint32(len(val)))
	t.arena = append(t.arena, key...)
	t.arena = append(t.arena, val...)
	return off
}

// insert adds key, which must not be present, and returns its slot.
func (t *table) insert(key []byte, h uint64, val []byte) int {
	if (t.used+1)*4 > len(t.slots)*3 {
		t.rebuild(t.live + 1)
	}
	mask := uint64(len(t.slots) - 1)
	i := h & mask
	for t.slots[i] > slotTombstone {
		i = (i + 1) & mask
	}
	if t.slots[i] == slotEmpty {
		t.used++
	}
	t.slots[i] = slotFor(h, t.append(key, val))
	t.live++
	return int(i)
}

// replace sets the value at slot i; the record is rewritten in place
// when the length is unchanged.
func (t *table) replace(i int, val []byte) {
	s := t.slots[i]
	off := slotOff(s)
	if cur := t.recVal(off); len(cur) == len(val) {
		copy(cur, val)
		return
	}
	key := t.recKey(off)
	t.garbage += recLen(t.arena, off)
	// key aliases the arena, which append may move: copy it through
	// the record header first.
	noff := len(t.arena)
	t.arena = binary.LittleEndian.AppendUint32(t.arena, uint32(len(key)))
	t.arena = binary.LittleEndian.AppendUint32(t.arena, uint32(len(val)))
	t.arena = append(t.arena, t.arena[off+recHeader:off+recHeader+len(key)]...)
	t.arena = append(t.arena, val...)
	t.slots[i] = s>>48<<48 | uint64(noff+2)
	t.maybeCompact()
}

// delete removes the key at slot i.
func (t *table) delete(i int) {
	t.garbage += recLen(t.arena, slotOff(t.slots[i]))
	next := (i + 1) & (len(t.slots) - 1)
	if t.slots[next] == slotEmpty {
		// Nothing probes past an empty slot: this one can be empty too.
		t.slots[i] = slotEmpty
		t.used--
	} else {
		t.slots[i] = slotTombstone
	}
	t.live--
	t.maybeCompact()
}

// maybeCompact rewrites the arena when more than half of it is garbage.
func (t *table) maybeCompact() {
	if t.garbage > 4096 && t.garbage*2 > len(t.arena) {
		t.rebuild(t.live)
	}
}

// rebuild resizes the slots for n keys, drops tombstones and compacts the
// arena.
func (t *table) rebuild(n int) {
	size := tableMinSlots
	if n > 0 {
		size = max(tableMinSlots, 1<<bits.Len(uint(n*2-1)))
	}
	old, oldArena := t.slots, t.arena
	t.slots = make([]uint64, size)
	t.arena = make([]byte, 0, len(oldArena)-t.garbage+len(oldArena)/8)
	mask := uint64(size - 1)
	for _, s := range old {
		if s <= slotTombstone {
			continue
		}
		off := slotOff(s)
		noff := len(t.arena)
		t.arena = append(t.arena, oldArena[off:off+recLen(oldArena, off)]...)
		i := t.hash(t.recKey(noff)) & mask
		for t.slots[i] != slotEmpty {
			i = (i + 1) & mask
		}
		t.slots[i] = s>>48<<48 | uint64(noff+2)
	}
	t.used = t.live
	t.garbage = 0
}

// each calls fn for every slot holding a key, in no particular order.
// fn must not insert or delete.
func (t *table) each(fn func(i int) bool) {
	for i, s := range t.slots {
		if s > slotTombstone && !fn(i) {
			return
		}
	}
}

// size returns the bytes held: slots and arena.
func (t *table) size() int64 { return int64(cap(t.slots))*8 + int64(cap(t.arena)) }
