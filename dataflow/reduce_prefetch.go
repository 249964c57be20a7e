package dataflow

import (
	"slices"

	"github.com/streamdb/streamdb/types"
)

// prefetch hashes the delta's keys and reads the index slots and groups
// they lead to before apply reaches them, when the index is too large
// for the caches: reads for different rows are independent, so the
// processor overlaps their misses, where apply, one row at a time, waits
// for each in turn (over 8,000 ticks, a million groups cost 1.8–2.3× a
// thousand per delta row, 1.4–1.7× with prefetching). A smaller index
// is only warmed (rowIndex.warm). It returns the keys' hashes, or nil
// when it did not hash them. Go has no prefetch instruction; the loads'
// sum is stored so that the compiler keeps them.
func (op *reduceOp) prefetch(d Batch) []uint64 {
	if len(op.index.slots) < prefetchSlots {
		op.sink = op.index.warm(len(d))
		return nil
	}
	if len(d) < 16 {
		return nil
	}
	hs := slices.Grow(op.hashes[:0], len(d))[:len(d)]
	op.hashes = hs
	slots := op.index.slots
	mask := uint64(len(slots) - 1)
	var sink uint64
	for i := range d {
		var key types.Row
		if op.key != nil {
			key = op.key(d[i].Row)
		}
		h := op.index.hash(key)
		hs[i] = h
		sink += slots[h&mask]
	}
	for _, h := range hs {
		if s := slots[h&mask]; s > slotTombstone && s>>32 == h>>32 {
			grp := op.groups.at(slotPos(s))
			sink += uint64(grp.ikey) + uint64(len(grp.row))
		}
	}
	op.sink = sink
	return hs
}

// prefetchRows reads, after prefetch, the output rows of the touched
// groups, which finish compares with their new results and copies the
// keys of, and their index entries, which finish rewrites.
func (op *reduceOp) prefetchRows() {
	var sink uint64
	for _, t := range op.touched {
		if r := op.groups.at(t.pos).row; len(r) > 0 {
			sink += uint64(r[len(r)-1].Kind()) + uint64(r[0].Kind())
		}
		sink += uint64(len(op.index.keys[t.pos]))
	}
	op.sink += sink
}

// prefetchSlots is the index size from which apply prefetches: 2^17
// slots (1 MiB) and their groups no longer stay in the caches.
const prefetchSlots = 1 << 17
