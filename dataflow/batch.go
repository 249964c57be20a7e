package dataflow

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
	"sync"

	"github.com/streamdb/streamdb/types"
)

// Update is one element of a Z-set: a row and its weight. Diff is +1 for an
// insertion, -1 for a deletion; larger magnitudes stand for repeated rows.
type Update struct {
	Row  types.Row
	Diff int64
}

// Batch is a Z-set delta: a slice of updates. Between operators a batch may
// hold the same row several times, zero-sum pairs included; Consolidate
// turns it into the canonical form (sorted by the key encoding of the rows,
// each row once, no zero weights). Operators consolidate where it pays: at
// arrangements and at sinks, not after every linear step.
//
// A batch handed to the engine (Input.Push) or received from it (Delta) owns
// neither its rows nor their Datums: rows are shared and never modified.
type Batch []Update

// Consolidate sorts b by the memcomparable key encoding of its rows, merges
// updates whose rows are equal under types.CompareRows by adding their
// weights, and drops zero weights. It reuses b's storage and returns the
// consolidated prefix; b itself must not be used afterwards.
//
// Rows that compare equal but differ in representation (numeric 1.0 and
// 1.00) merge into the first one in sort order.
func (b Batch) Consolidate() Batch {
	c := consolidatorPool.Get().(*consolidator)
	b = c.consolidate(b)
	c.reset()
	consolidatorPool.Put(c)
	return b
}

var consolidatorPool = sync.Pool{New: func() any { return new(consolidator) }}

// consolidator holds the scratch space of consolidation so that operators
// that consolidate every tick do not allocate: the key encodings of all rows
// in one buffer, a sortable index into it, and the merged output.
type consolidator struct {
	keys []byte
	ents []sortEntry
	// spare is the radix sort's second buffer (see sortByKey).
	spare []sortEntry
	tmp   Batch
	// outKeys[i] is the index in ents of the i-th consolidated update, so
	// that callers can reuse its key encoding (key(i)).
	outKeys []int32
}

// sortEntry is one row's key: its head (the first sixteen key bytes),
// which the radix sort orders by and which settles most comparisons
// without touching the buffer, and the key's span in the buffer.
type sortEntry struct {
	head     keyHead
	off, end uint32
	idx      int32
}

func (c *consolidator) consolidate(b Batch) Batch {
	tmp := c.into(c.tmp[:0], b)
	n := copy(b, tmp)
	clear(b[n:])
	clear(tmp)
	c.tmp = tmp[:0]
	return b[:n]
}

// into appends the consolidation of src to dst and returns it, leaving
// src as it is: a sink that keeps its own consolidated copy of a delta
// (Output, Collect) writes each update once instead of copying the delta
// and consolidating the copy in place.
func (c *consolidator) into(dst, src Batch) Batch {
	c.keys = c.keys[:0]
	c.ents = c.ents[:0]
	c.outKeys = c.outKeys[:0]
	for i := range src {
		off := len(c.keys)
		c.keys = types.AppendKeyRow(c.keys, src[i].Row)
		c.ents = append(c.ents, sortEntry{off: uint32(off), end: uint32(len(c.keys)), idx: int32(i)})
	}
	for i := range c.ents {
		e := &c.ents[i]
		e.head = headOf(c.keys[e.off:e.end])
	}
	if cap(c.spare) < len(c.ents) {
		c.spare = make([]sortEntry, len(c.ents))
	}
	c.sort(c.ents, c.spare[:len(c.ents)], 0)
	start := len(dst)
	for i := 0; i < len(c.ents); {
		j := i + 1
		d := src[c.ents[i].idx].Diff
		for j < len(c.ents) && bytes.Equal(c.entKey(c.ents[i]), c.entKey(c.ents[j])) {
			d += src[c.ents[j].idx].Diff
			j++
		}
		if d != 0 {
			dst = append(dst, Update{Row: src[c.ents[i].idx].Row, Diff: d})
			c.outKeys = append(c.outKeys, int32(i))
		}
		i = j
	}
	if invariants {
		checkConsolidated(dst[start:])
	}
	return dst
}

// sort orders ents, whose keys share their first depth bytes, by key:
// by the sixteen key bytes from depth with a radix sort (sortByHead),
// then each run of equal such bytes by the bytes after them in the same
// way, and runs too short to pay for it by comparison. A tick's rows
// of a few columns have long common prefixes (a hot key in front), on
// which comparisons spent most of the sort. spare is scratch space of
// the same length.
func (c *consolidator) sort(ents, spare []sortEntry, depth int) {
	if len(ents) < 32 {
		// The heads are the keys' at the depth of the run ents is
		// (at 0, all keys'), equal within it: the whole keys decide.
		slices.SortFunc(ents, c.compare)
		return
	}
	for i := range ents {
		e := &ents[i]
		e.head = headOf(c.keys[min(e.off+uint32(depth), e.end):e.end])
	}
	if sorted := sortByHead(ents, spare, func(e *sortEntry) keyHead { return e.head }); &sorted[0] != &ents[0] {
		copy(ents, sorted)
	}
	for i := 0; i < len(ents); {
		j, longer := i+1, int(ents[i].end-ents[i].off) > depth+16
		for j < len(ents) && ents[j].head == ents[i].head {
			longer = longer || int(ents[j].end-ents[j].off) > depth+16
			j++
		}
		switch {
		case j-i < 2:
		case longer:
			c.sort(ents[i:j], spare[i:j], depth+16)
		default:
			slices.SortFunc(ents[i:j], c.compare)
		}
		i = j
	}
}

// entKey returns the key of a sort entry.
func (c *consolidator) entKey(e sortEntry) []byte { return c.keys[e.off:e.end] }

func (c *consolidator) compare(a, b sortEntry) int {
	if o := a.head.compare(b.head); o != 0 {
		return o
	}
	return bytes.Compare(c.keys[a.off:a.end], c.keys[b.off:b.end])
}

// key returns the key encoding of the i-th update of the last
// consolidation's result. It is valid until the next consolidate.
func (c *consolidator) key(i int) []byte {
	e := c.ents[c.outKeys[i]]
	return c.keys[e.off:e.end]
}

// reset drops references to rows so that a pooled consolidator does not
// keep them alive, and releases buffers that grew unusually large.
func (c *consolidator) reset() {
	const maxRetained = 1 << 20
	if cap(c.keys) > maxRetained {
		c.keys = nil
	}
	if cap(c.ents) > maxRetained/16 {
		c.ents = nil
		c.outKeys = nil
	}
	if cap(c.spare) > maxRetained/16 {
		c.spare = nil
	}
	if cap(c.tmp) > maxRetained/32 {
		c.tmp = nil
	}
}

// keyPrefix returns the first eight bytes of k as a big-endian integer,
// zero-padded, so that integer order agrees with bytes.Compare on the
// prefixes.
func keyPrefix(k []byte) uint64 {
	if len(k) >= 8 {
		return binary.BigEndian.Uint64(k)
	}
	var b [8]byte
	copy(b[:], k)
	return binary.BigEndian.Uint64(b[:])
}

// keyHead is the first sixteen bytes of a key as two big-endian integers,
// zero-padded, kept inline in ordered state so that most comparisons
// never reach the key's bytes. Eight bytes are not enough on a large
// state: an ORDER BY key spends two of them on placement and type tag,
// and a million rows are dense enough that neighbours often share the
// next six, which made every comparison of a search a cache miss on a
// large state and none on a small one.
type keyHead [2]uint64

// headOf returns the head of key k.
func headOf(k []byte) keyHead {
	return keyHead{keyPrefix(k), keyPrefix(k[min(8, len(k)):])}
}

// compare orders heads as bytes.Compare orders their keys, 0 meaning the
// keys must be compared in full.
func (a keyHead) compare(b keyHead) int {
	if a[0] != b[0] {
		return cmp.Compare(a[0], b[0])
	}
	return cmp.Compare(a[1], b[1])
}
