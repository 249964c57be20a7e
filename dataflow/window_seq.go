package dataflow

import (
	"slices"
	"strings"

	"github.com/streamdb/streamdb/sql/types"
)

// seq is one window partition: its distinct rows in window order, with
// multiplicities, counted so that positions are cheap. Rows live in
// chunks of at most seqChunkMax entries; two Fenwick trees over the chunks
// count units (rows with multiplicity) and peer-group starts, so the
// position of an entry, its dense rank and the entry at a position are
// found in O(log C + seqChunkMax) for C chunks, and inserting or deleting
// an entry moves at most one chunk's entries.
type seq struct {
	chunks []*seqChunk
	units  fenwick
	starts fenwick
	total  int64
	// dirty lists chunks whose counts changed since the last fix;
	// reshaped is set when chunks were split or dropped.
	dirty    []*seqChunk
	reshaped bool
}

// wEntry is a distinct row of a partition. key is the row's window sort
// key followed by its key encoding: the total order and the row's
// identity; key[:sk] is the sort key, shared by peers.
type wEntry struct {
	key string
	sk  int
	row types.Row
	n   int64
}

func (e *wEntry) sortKey() string { return e.key[:e.sk] }

type seqChunk struct {
	ents   []wEntry
	units  int64
	starts int64
	dirty  bool
}

const seqChunkMax = 128

// pos addresses an entry: chunk c, index i. The end of the sequence is
// {len(chunks), 0}.
type pos struct{ c, i int }

func (s *seq) end() pos { return pos{len(s.chunks), 0} }

func (s *seq) at(p pos) *wEntry { return &s.chunks[p.c].ents[p.i] }

func (s *seq) next(p pos) pos {
	if p.i+1 < len(s.chunks[p.c].ents) {
		return pos{p.c, p.i + 1}
	}
	return pos{p.c + 1, 0}
}

// prev returns the entry before p and false at the start.
func (s *seq) prev(p pos) (pos, bool) {
	if p.i > 0 {
		return pos{p.c, p.i - 1}, true
	}
	if p.c == 0 {
		return p, false
	}
	return pos{p.c - 1, len(s.chunks[p.c-1].ents) - 1}, true
}

// search returns the first entry whose key is at or after key.
func (s *seq) search(key string) pos {
	c, _ := slices.BinarySearchFunc(s.chunks, key, func(ch *seqChunk, k string) int {
		return strings.Compare(ch.ents[len(ch.ents)-1].key, k)
	})
	if c == len(s.chunks) {
		return s.end()
	}
	i, _ := slices.BinarySearchFunc(s.chunks[c].ents, key, func(e wEntry, k string) int {
		return strings.Compare(e.key, k)
	})
	return pos{c, i}
}

// unitsBefore returns the number of units (rows counted with
// multiplicity) before p: p's position.
func (s *seq) unitsBefore(p pos) int64 {
	n := s.units.prefix(p.c)
	if p.c < len(s.chunks) {
		for _, e := range s.chunks[p.c].ents[:p.i] {
			n += e.n
		}
	}
	return n
}

// startsBefore returns the number of peer groups that start before p.
func (s *seq) startsBefore(p pos) int64 {
	n := s.starts.prefix(p.c)
	if p.c < len(s.chunks) {
		for i := range p.i {
			if s.isStart(pos{p.c, i}) {
				n++
			}
		}
	}
	return n
}

// isStart reports whether the entry at p starts a peer group.
func (s *seq) isStart(p pos) bool {
	q, ok := s.prev(p)
	return !ok || s.at(q).sortKey() != s.at(p).sortKey()
}

// seekUnit returns the entry holding unit u (0 ≤ u < total) and the
// index of u among the entry's copies.
func (s *seq) seekUnit(u int64) (pos, int64) {
	c, rest := s.units.find(u)
	for i := range s.chunks[c].ents {
		n := s.chunks[c].ents[i].n
		if rest < n {
			return pos{c, i}, rest
		}
		rest -= n
	}
	panic("dataflow: window sequence counts out of step")
}

// add adds diff to the multiplicity of the row with key (inserting a copy
// of row, or deleting it at zero). Counts are brought up to date by fix.
func (s *seq) add(key string, sk int, row types.Row, diff int64) {
	p := s.search(key)
	if p.c < len(s.chunks) && s.at(p).key == key {
		ch := s.chunks[p.c]
		ch.ents[p.i].n += diff
		if ch.ents[p.i].n == 0 {
			ch.ents = slices.Delete(ch.ents, p.i, p.i+1)
			if len(ch.ents) == 0 {
				s.chunks = slices.Delete(s.chunks, p.c, p.c+1)
				s.reshaped = true
			}
		}
		s.touch(ch)
		s.touchAfter(p.c)
		return
	}
	e := wEntry{key: key, sk: sk, row: row.Copy(), n: diff}
	if len(s.chunks) == 0 {
		s.chunks = append(s.chunks, &seqChunk{})
		s.reshaped = true
	}
	if p.c == len(s.chunks) {
		p = pos{len(s.chunks) - 1, len(s.chunks[len(s.chunks)-1].ents)}
	}
	ch := s.chunks[p.c]
	ch.ents = slices.Insert(ch.ents, p.i, e)
	s.touch(ch)
	s.touchAfter(p.c)
	if len(ch.ents) > seqChunkMax {
		half := len(ch.ents) / 2
		right := &seqChunk{ents: append(make([]wEntry, 0, seqChunkMax), ch.ents[half:]...)}
		clear(ch.ents[half:])
		ch.ents = ch.ents[:half]
		s.chunks = slices.Insert(s.chunks, p.c+1, right)
		s.touch(right)
		s.reshaped = true
	}
}

func (s *seq) touch(ch *seqChunk) {
	if !ch.dirty {
		ch.dirty = true
		s.dirty = append(s.dirty, ch)
	}
}

// touchAfter marks the chunk after c: whether its first entry starts a
// peer group depends on the last entry of c.
func (s *seq) touchAfter(c int) {
	if c+1 < len(s.chunks) {
		s.touch(s.chunks[c+1])
	}
}

// fix recounts the chunks changed since the last fix and updates the
// Fenwick trees (rebuilding them when chunks were split or dropped).
func (s *seq) fix() {
	if s.reshaped {
		for _, ch := range s.chunks {
			s.touch(ch)
		}
	}
	index := map[*seqChunk]int(nil)
	if !s.reshaped {
		index = make(map[*seqChunk]int, len(s.dirty))
		for c, ch := range s.chunks {
			if ch.dirty {
				index[ch] = c
			}
		}
	}
	for c, ch := range s.chunks {
		if !ch.dirty {
			continue
		}
		var units, starts int64
		for i := range ch.ents {
			units += ch.ents[i].n
			if s.isStart(pos{c, i}) {
				starts++
			}
		}
		if !s.reshaped {
			s.units.add(index[ch], units-ch.units)
			s.starts.add(index[ch], starts-ch.starts)
		}
		s.total += units - ch.units
		ch.units, ch.starts = units, starts
	}
	for _, ch := range s.dirty {
		ch.dirty = false
	}
	clear(s.dirty)
	s.dirty = s.dirty[:0]
	if s.reshaped {
		s.units.rebuild(len(s.chunks), func(c int) int64 { return s.chunks[c].units })
		s.starts.rebuild(len(s.chunks), func(c int) int64 { return s.chunks[c].starts })
		s.total = s.units.prefix(len(s.chunks))
		s.reshaped = false
	}
}

// fenwick is a binary indexed tree of chunk counts.
type fenwick struct {
	t []int64 // 1-based
}

func (f *fenwick) rebuild(n int, val func(int) int64) {
	f.t = slices.Grow(f.t[:0], n+1)[:n+1]
	clear(f.t)
	for i := 1; i <= n; i++ {
		f.t[i] += val(i - 1)
		if j := i + i&-i; j <= n {
			f.t[j] += f.t[i]
		}
	}
}

// add adds d to element i.
func (f *fenwick) add(i int, d int64) {
	for i++; i < len(f.t); i += i & -i {
		f.t[i] += d
	}
}

// prefix returns the sum of elements [0, i).
func (f *fenwick) prefix(i int) int64 {
	var n int64
	for ; i > 0; i -= i & -i {
		n += f.t[i]
	}
	return n
}

// find returns the element holding unit u (the smallest i whose prefix
// sum through i exceeds u) and u's offset within it.
func (f *fenwick) find(u int64) (int, int64) {
	i, step := 0, 1
	for step*2 < len(f.t) {
		step *= 2
	}
	for ; step > 0; step /= 2 {
		if j := i + step; j < len(f.t) && f.t[j] <= u {
			i = j
			u -= f.t[j]
		}
	}
	return i, u
}

// size returns the approximate bytes of the sequence beyond its rows.
func (s *seq) size() int64 {
	n := int64(cap(s.chunks))*sizePointer + int64(cap(s.units.t)+cap(s.starts.t))*8
	for _, ch := range s.chunks {
		n += int64(cap(ch.ents))*int64(sizeString+8+sizeSlice+8) + 48
	}
	return n
}

// ucur is a cursor over the units of a sequence: entry p, copy k, unit u.
// At the end of the sequence p is s.end().
type ucur struct {
	p pos
	k int64
	u int64
}

// cursor returns a cursor at unit u (the end when u ≥ total).
func (s *seq) cursor(u int64) ucur {
	if u >= s.total {
		return ucur{p: s.end(), u: s.total}
	}
	p, k := s.seekUnit(u)
	return ucur{p: p, k: k, u: u}
}

// take returns the entry under c and how many of its units, at most
// limit, lie ahead of c, and moves c past them.
func (s *seq) take(c *ucur, limit int64) (*wEntry, int64) {
	e := s.at(c.p)
	n := min(e.n-c.k, limit)
	c.k += n
	c.u += n
	if c.k == e.n {
		c.p, c.k = s.next(c.p), 0
	}
	return e, n
}

// moveTo moves c forward to unit u, stepping over entries, or seeks when
// u is far ahead or behind.
func (s *seq) moveTo(c *ucur, u int64) {
	if u < c.u || u-c.u > 4*seqChunkMax || u >= s.total {
		*c = s.cursor(u)
		return
	}
	for c.u < u {
		s.take(c, u-c.u)
	}
}
