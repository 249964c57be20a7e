package dataflow

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math/bits"
)

// table is an open-addressing hash table from byte keys to byte values,
// kept outside Go's pointer graph: the slots are integers and the records
// live in byte segments. It is the storage of arrangements, built for
// states of millions of keys:
//
//   - a lookup costs two dependent memory accesses (the slot, then the
//     record holding key and value), where a Go map of string keys to
//     pointers costs four or five, each a cache and TLB miss once the
//     state outgrows the caches;
//   - the garbage collector never scans it (both kinds of slice are
//     pointer-free), so a large state does not tax every allocation of
//     the tick loop.
//
// A slot holds 16 bits of the key's hash (a tag, so that most probes of
// other keys are rejected without touching a record) and the record's
// offset: its segment number and its position in the segment. Records are
// [klen uint32][vlen uint32][key][value] and never straddle segments.
// Replacing a value with one of another length appends a new record and
// leaves the old one as garbage; a full segment that becomes more than
// half garbage has its live records moved to the segment being filled and
// is reused. Records are appended to segments of at most segSize bytes
// (one record larger than that gets a segment of its own), so the state
// grows without ever copying what it holds, and freed segments are
// reused, so it does not keep faulting in fresh memory either: a single
// arena grown by append copied the whole state at every doubling and
// touched fresh pages for all of it. Values may be modified in place
// through the slice value returns, which is how fixed-width counters are
// updated.
type table struct {
	seed  maphash.Seed
	slots []uint64
	segs  []segment
	// cur is the segment records are appended to, -1 when there is none.
	cur int
	// spare are emptied full-size segments, kept for reuse; vacant are
	// segment numbers whose segment was released.
	spare  [][]byte
	vacant []int
	// pending are segments to reclaim once the current mutation is done.
	pending []int
	live    int   // keys present
	used    int   // slots not empty: live keys and tombstones
	bytes   int64 // capacity of the segments and the spares
	// gen counts the segments reclaimed and the values rewritten in
	// place: otherwise a record's address holds the same bytes (or
	// garbage no one reads) until its segment is reclaimed and its
	// memory reused, so a cache of decoded records by address is valid
	// while gen stays (see joinOp.decodeArranged).
	gen uint64
}

// segment is a run of records and the bytes of them that are dead.
type segment struct {
	buf     []byte
	garbage int
}

const (
	slotEmpty     = 0
	slotTombstone = 1
	recHeader     = 8
	// tableMinSlots is the initial size; the table doubles from there.
	tableMinSlots = 16
	// segShift bounds a segment to 1 MiB: large enough that moving one
	// segment's live records is cheap per record, small enough that
	// growing the one being filled (it starts small and doubles, so
	// small tables stay small) copies little.
	segShift = 20
	segSize  = 1 << segShift
	// segMinCap is the first capacity of a table's first segment.
	segMinCap = 256
	// maxSpare bounds the emptied segments kept for reuse: reclaiming
	// frees about one segment per segment filled, so a few cover a
	// steady state, and a state that shrinks returns the rest.
	maxSpare = 4
)

// newTable returns an empty table hashing with seed. Tables that share a
// seed hash a key alike, so one hash serves lookups in all of them.
func newTable(seed maphash.Seed) *table {
	return &table{seed: seed, slots: make([]uint64, tableMinSlots), cur: -1}
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

// findOff returns the slot index pointing at the record at off, whose
// key has hash h, or -1. It compares offsets, not keys, so it reads no
// record.
func (t *table) findOff(h uint64, off int) int {
	mask := uint64(len(t.slots) - 1)
	want := slotFor(h, off)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s := t.slots[i]; s {
		case slotEmpty:
			return -1
		case want:
			return int(i)
		}
	}
}

// rec returns the segment bytes from the record at off on.
func (t *table) rec(off int) []byte { return t.segs[off>>segShift].buf[off&(segSize-1):] }

func (t *table) recKey(off int) []byte {
	r := t.rec(off)
	klen := int(binary.LittleEndian.Uint32(r))
	return r[recHeader : recHeader+klen]
}

func (t *table) recVal(off int) []byte {
	r := t.rec(off)
	klen := int(binary.LittleEndian.Uint32(r))
	vlen := int(binary.LittleEndian.Uint32(r[4:]))
	start := recHeader + klen
	return r[start : start+vlen : start+vlen]
}

func recLen(r []byte) int {
	return recHeader + int(binary.LittleEndian.Uint32(r)&^recDead) + int(binary.LittleEndian.Uint32(r[4:]))
}

// recDead is set in the key length of a record that is garbage, so that
// reclaiming a segment skips it without the hash and probe that would
// tell: a segment is reclaimed when it is more than half garbage, and
// an arrangement's growing keys, rewritten at every row, leave mostly
// garbage behind.
const recDead = 1 << 31

// key returns the key at slot i, a view valid until the next mutation.
func (t *table) key(i int) []byte { return t.recKey(slotOff(t.slots[i])) }

// value returns the value at slot i, a view into its segment valid until
// the next insert, replace or delete. Writing through it updates the
// value in place.
func (t *table) value(i int) []byte { return t.recVal(slotOff(t.slots[i])) }

// touch reads the slot of hash h and the record it points to, without
// using them. Issued for a batch of keys before the real lookups, these
// independent reads let the CPU overlap the cache misses of many keys.
func (t *table) touch(h uint64) byte {
	s := t.slots[h&uint64(len(t.slots)-1)]
	if s <= slotTombstone {
		return 0
	}
	return t.rec(slotOff(s))[0]
}

// append writes a record and returns its offset. It never moves other
// records: a segment that filled up is only queued for reclaiming, which
// settle does once the caller's slots are consistent again.
func (t *table) append(key, val []byte) int {
	n := recHeader + len(key) + len(val)
	if n > segSize {
		t.bytes += int64(n)
		seg := t.newSegment(make([]byte, 0, n))
		t.put(seg, key, val)
		return seg << segShift
	}
	t.room(n)
	seg := &t.segs[t.cur]
	off := t.cur<<segShift | len(seg.buf)
	t.put(t.cur, key, val)
	return off
}

// room makes room for n bytes in the segment being filled: it grows that
// segment while it is small and mostly live, and otherwise starts a new
// one: a full-size one (a spare if there is one) once the table holds a
// segment's worth, else one sized for twice the live bytes of the segment
// it leaves, so that a small state with many updates stays small.
func (t *table) room(n int) {
	want := segMinCap
	if t.cur >= 0 {
		seg := &t.segs[t.cur]
		if len(seg.buf)+n <= cap(seg.buf) {
			return
		}
		if len(seg.buf)+n <= segSize && seg.garbage*2 <= len(seg.buf) {
			grown := make([]byte, len(seg.buf), min(segSize, max(2*cap(seg.buf), len(seg.buf)+n)))
			copy(grown, seg.buf)
			t.bytes += int64(cap(grown) - cap(seg.buf))
			seg.buf = grown
			return
		}
		t.pending = append(t.pending, t.cur)
		want = segSize
		if t.bytes < segSize {
			want = 2 * (len(seg.buf) - seg.garbage)
		}
	}
	want = min(segSize, max(want, 2*n, segMinCap))
	var buf []byte
	if k := len(t.spare); want == segSize && k > 0 {
		buf, t.spare = t.spare[k-1], t.spare[:k-1]
	} else {
		buf = make([]byte, 0, want)
		t.bytes += int64(want)
	}
	t.cur = t.newSegment(buf)
}

// newSegment installs buf as a segment and returns its number.
func (t *table) newSegment(buf []byte) int {
	if k := len(t.vacant); k > 0 {
		n := t.vacant[k-1]
		t.vacant = t.vacant[:k-1]
		t.segs[n] = segment{buf: buf}
		return n
	}
	t.segs = append(t.segs, segment{buf: buf})
	return len(t.segs) - 1
}

// put appends a record to segment seg, which has room for it.
func (t *table) put(seg int, key, val []byte) {
	b := t.segs[seg].buf
	b = binary.LittleEndian.AppendUint32(b, uint32(len(key)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(val)))
	b = append(b, key...)
	t.segs[seg].buf = append(b, val...)
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
	t.settle()
	return int(i)
}

// replace sets the value at slot i; the record is rewritten in place
// when the length is unchanged.
func (t *table) replace(i int, val []byte) {
	s := t.slots[i]
	off := slotOff(s)
	if cur := t.recVal(off); len(cur) == len(val) {
		copy(cur, val)
		t.gen++
		return
	}
	t.slots[i] = s>>48<<48 | uint64(t.append(t.recKey(off), val)+2)
	t.dead(off)
	t.settle()
}

// delete removes the key at slot i.
func (t *table) delete(i int) {
	off := slotOff(t.slots[i])
	next := (i + 1) & (len(t.slots) - 1)
	if t.slots[next] == slotEmpty {
		// Nothing probes past an empty slot: this one can be empty too.
		t.slots[i] = slotEmpty
		t.used--
	} else {
		t.slots[i] = slotTombstone
	}
	t.live--
	t.dead(off)
	t.settle()
}

// dead counts the record at off as garbage of its segment.
func (t *table) dead(off int) {
	n := off >> segShift
	r := t.rec(off)
	t.segs[n].garbage += recLen(r)
	binary.LittleEndian.PutUint32(r, binary.LittleEndian.Uint32(r)|recDead)
	if n != t.cur && t.segs[n].garbage*2 > len(t.segs[n].buf) {
		t.pending = append(t.pending, n)
	}
}

// settle reclaims the queued segments that are more than half garbage
// and not being filled. Reclaiming appends, which may queue more.
func (t *table) settle() {
	for len(t.pending) > 0 {
		n := t.pending[len(t.pending)-1]
		t.pending = t.pending[:len(t.pending)-1]
		if seg := t.segs[n]; n != t.cur && seg.garbage*2 > len(seg.buf) {
			t.reclaim(n)
		}
	}
}

// reclaim moves the live records of segment n to the segment being
// filled and releases n. A record is live when its key's slot points at
// it; one marked dead is not looked up, and for the others the slot is
// found by offset.
func (t *table) reclaim(n int) {
	t.gen++
	buf := t.segs[n].buf
	for o := 0; o < len(buf); {
		r := buf[o:]
		size := recLen(r)
		if klen := binary.LittleEndian.Uint32(r); klen&recDead == 0 {
			key := r[recHeader : recHeader+int(klen)]
			h := t.hash(key)
			if i := t.findOff(h, n<<segShift|o); i >= 0 {
				t.slots[i] = slotFor(h, t.append(key, r[recHeader+len(key):size]))
			}
		}
		o += size
	}
	if cap(buf) == segSize && len(t.spare) < maxSpare {
		t.spare = append(t.spare, buf[:0])
	} else {
		t.bytes -= int64(cap(buf))
	}
	t.segs[n] = segment{}
	t.vacant = append(t.vacant, n)
}

// rebuild resizes the slots for n keys and drops tombstones.
func (t *table) rebuild(n int) {
	size := tableMinSlots
	if n > 0 {
		size = max(tableMinSlots, 1<<bits.Len(uint(n*2-1)))
	}
	old := t.slots
	t.slots = make([]uint64, size)
	mask := uint64(size - 1)
	for _, s := range old {
		if s <= slotTombstone {
			continue
		}
		i := t.hash(t.recKey(slotOff(s))) & mask
		for t.slots[i] != slotEmpty {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
	t.used = t.live
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

// size returns the bytes held: slots and segments.
func (t *table) size() int64 { return int64(cap(t.slots))*8 + t.bytes }
