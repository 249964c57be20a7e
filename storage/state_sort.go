package storage

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
	"sync"

	"github.com/cockroachdb/pebble/v2"
)

// A tick's state writes are staged in the batch and added to Pebble's
// batch sorted by key when it commits. Views write their state where
// their keys fall, and the keys of an operator's state start with the
// hash bucket of the entry's key (see package dataflow), so they come in
// no order; inserted so into the memtable, a skiplist of tens of MB,
// every write searched it from the top and missed the cache at every
// level, which took a quarter of the CPU of a view that persists every
// event (Nexmark q0: 0.68 s of 2.95 s; 0.31 s with the keys in order).
// Sorted, each insertion starts from the splice of the one before. A key
// written several times in one tick (a row inserted and deleted again)
// is written once, as its last write left it: the batch is atomic, so
// nobody can tell.
//
// Range deletions are not staged: one flushes what is staged before it,
// so that it deletes what was written before it and nothing after.

// stagedWrite is one staged write: its key and value at [off, mid) and
// [mid, end) of the staging buffer (no value: a deletion); flow and
// prefix, the key's flow and its first 8 bytes past the flow's prefix,
// decide most comparisons without reading the buffer.
type stagedWrite struct {
	flow, prefix  uint64
	off, mid, end int
	del           bool
}

// stage holds a batch's staged state writes, and order their order for
// flush: small entries, which sort faster than the writes themselves.
type stage struct {
	buf    []byte
	writes []stagedWrite
	order  []sortEntry
}

// stages keeps stages for the next batches: a tick's stage grows to
// megabytes, and fresh memory would cost its page faults again in every
// tick.
var stages = sync.Pool{New: func() any { return new(stage) }}

// maxRetainedStage bounds the buffer a stage keeps for reuse.
const maxRetainedStage = 16 << 20

// release empties the stage and returns it to the pool.
func (s *stage) release() {
	if cap(s.buf) > maxRetainedStage {
		return
	}
	s.buf, s.writes, s.order = s.buf[:0], s.writes[:0], s.order[:0]
	stages.Put(s)
}

// sortEntry is a staged write in the sort: its prefix and index.
type sortEntry struct {
	prefix uint64
	i      int
}

func (s *stage) add(key, value []byte, del bool) {
	off := len(s.buf)
	s.buf = append(s.buf, key...)
	mid := len(s.buf)
	s.buf = append(s.buf, value...)
	var f, p [8]byte
	copy(f[:], key[1:])
	if len(key) > 9 {
		copy(p[:], key[9:])
	}
	s.writes = append(s.writes, stagedWrite{flow: binary.BigEndian.Uint64(f[:]), prefix: binary.BigEndian.Uint64(p[:]),
		off: off, mid: mid, end: len(s.buf), del: del})
}

// bytes estimates what the staged writes add to the batch.
func (s *stage) bytes() int { return len(s.buf) + 16*len(s.writes) }

// compare orders sort entries by prefix, then by flow, key and the
// order of the writes: within a flow, key order.
func (s *stage) compare(x, y sortEntry) int {
	if x.prefix != y.prefix {
		return cmp.Compare(x.prefix, y.prefix)
	}
	a, b := &s.writes[x.i], &s.writes[y.i]
	if a.flow != b.flow {
		return cmp.Compare(a.flow, b.flow)
	}
	if c := bytes.Compare(s.buf[a.off:a.mid], s.buf[b.off:b.mid]); c != 0 {
		return c
	}
	return cmp.Compare(x.i, y.i)
}

// flush adds the staged writes to pb in key order, the last write of
// each key only, and empties the stage.
func (s *stage) flush(pb *pebble.Batch) {
	if len(s.writes) == 0 {
		return
	}
	s.order = s.order[:0]
	for i := range s.writes {
		s.order = append(s.order, sortEntry{prefix: s.writes[i].prefix, i: i})
	}
	slices.SortFunc(s.order, s.compare)
	for j, e := range s.order {
		w := &s.writes[e.i]
		key := s.buf[w.off:w.mid]
		if j+1 < len(s.order) {
			if n := &s.writes[s.order[j+1].i]; n.flow == w.flow && n.prefix == w.prefix && bytes.Equal(key, s.buf[n.off:n.mid]) {
				continue
			}
		}
		if w.del {
			_ = pb.Delete(key, nil)
		} else {
			_ = pb.Set(key, s.buf[w.mid:w.end], nil)
		}
	}
	s.writes = s.writes[:0]
	s.buf = s.buf[:0]
}

// stage returns the batch's stage, taking one from the pool first.
func (b *Batch) stage() *stage {
	if b.staged == nil {
		b.staged = stages.Get().(*stage)
	}
	return b.staged
}

// flushStaged adds the staged writes to the Pebble batch.
func (b *Batch) flushStaged() {
	if b.staged != nil {
		b.staged.flush(b.b)
	}
}
