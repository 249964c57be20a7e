package dataflow

import (
	"slices"

	"github.com/streamdb/streamdb/types"
)

// seq is one window partition: its distinct rows in window order, with
// multiplicities, counted so that positions are cheap. Rows live in
// chunks of at most seqChunkMax entries, their columns inline in the
// chunk in entry order (every row of a collection has the same width), so
// that the neighbours a change re-evaluates are read from one contiguous
// run of memory rather than from a separate allocation per row, a cache
// miss each on a large partition. Two Fenwick trees over the chunks
// count units (rows with multiplicity) and peer-group starts, so the
// position of an entry, its dense rank and the entry at a position are
// found in O(log C + seqChunkMax) for C chunks, and inserting or deleting
// an entry moves at most one chunk's entries.
type seq struct {
	chunks []*seqChunk
	// lastPfx[c] is the head of chunk c's last key, so that finding a
	// chunk reads one contiguous array rather than every probed chunk's
	// entries.
	lastPfx []keyHead
	units   fenwick
	starts  fenwick
	total   int64
	// trackStarts keeps the peer-group counts, which only DENSE_RANK
	// and GROUPS frames need.
	trackStarts bool
	// width is the number of columns of every row, set by the first add.
	width int
	// dirty lists chunks whose counts changed since the last fix;
	// reshaped is set when chunks were split or dropped.
	dirty    []*seqChunk
	reshaped bool
	// bytes counts the chunks (chunkBytes) and the bytes their keys and
	// strings hold, kept as entries come and go, so that size costs
	// nothing per entry or chunk.
	bytes int64
}

// wEntry is a distinct row of a partition. key is the row's window sort
// key followed by its key encoding: the total order and the row's
// identity; key[:sk] is the sort key, shared by peers. The row's columns
// are in its chunk's vals (see seq.row).
type wEntry struct {
	pfx keyHead // head of key
	key string
	sk  int
	n   int64
}

func (e *wEntry) sortKey() string { return e.key[:e.sk] }

// is reports whether e's key is key. It compares the heads first, which
// the entry holds inline: the key's bytes are a separate allocation, a
// cache miss on a large partition.
func (e *wEntry) is(key string) bool {
	return e.pfx == headOf(stored(key)) && e.key == key
}

type seqChunk struct {
	ents []wEntry
	// heads[i] is ents[i].pfx, in an array of its own so that a binary
	// search over the chunk reads 16 bytes per probe, not an entry's 72:
	// its last probes share cache lines.
	heads []keyHead
	// vals holds the rows of ents, width columns each, in entry order.
	vals   []types.Datum
	c      int   // the chunk's index, valid after fix
	units  int64 // kept current by add
	starts int64
	// multi counts entries whose multiplicity is not 1; when none are,
	// positions within the chunk are indexes and need no scan.
	multi int
	// fenUnits and fenStarts are the counts the Fenwick trees hold.
	fenUnits, fenStarts int64
	dirty               bool
}

// seqChunkMax bounds a chunk. An insertion or deletion moves half a
// chunk's entries and inline rows on average, a few KB at 64 entries of
// narrow rows, which on a large partition are cold: 128 made those moves
// an eighth of a change's cost there.
const seqChunkMax = 64

// pos addresses an entry: chunk c, index i. The end of the sequence is
// {len(chunks), 0}.
type pos struct{ c, i int }

func (s *seq) end() pos { return pos{len(s.chunks), 0} }

func (s *seq) at(p pos) *wEntry { return &s.chunks[p.c].ents[p.i] }

// row returns the row of the entry at p. It is valid until the next add.
func (s *seq) row(p pos) types.Row {
	w := s.width
	return s.chunks[p.c].vals[p.i*w : (p.i+1)*w : (p.i+1)*w]
}

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
	kp := headOf(stored(key))
	c := searchPrefixed(len(s.chunks), kp, key,
		func(i int) keyHead { return s.lastPfx[i] },
		func(i int) string { ents := s.chunks[i].ents; return ents[len(ents)-1].key })
	if c == len(s.chunks) {
		return s.end()
	}
	ents, heads := s.chunks[c].ents, s.chunks[c].heads
	i := searchPrefixed(len(ents), kp, key,
		func(i int) keyHead { return heads[i] },
		func(i int) string { return ents[i].key })
	return pos{c, i}
}

// searchPrefixed returns the smallest i < n whose key is at or after key
// (n if none), comparing heads first and keys only on equal heads.
func searchPrefixed(n int, kp keyHead, key string, pfx func(int) keyHead, full func(int) string) int {
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		c := pfx(m).compare(kp)
		if c < 0 || c == 0 && full(m) < key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// unitsBefore returns the number of units (rows counted with
// multiplicity) before p: p's position.
func (s *seq) unitsBefore(p pos) int64 {
	n := s.units.prefix(p.c)
	if p.c < len(s.chunks) {
		if ch := s.chunks[p.c]; ch.multi == 0 {
			n += int64(p.i)
		} else {
			for _, e := range ch.ents[:p.i] {
				n += e.n
			}
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

// groupStart returns the first entry of peer group g (counted from 0),
// the end of the sequence when there are no more than g groups. It needs
// trackStarts.
func (s *seq) groupStart(g int64) pos {
	if g >= s.starts.prefix(len(s.chunks)) {
		return s.end()
	}
	c, rest := s.starts.find(g)
	for i := range s.chunks[c].ents {
		if s.isStart(pos{c, i}) {
			if rest == 0 {
				return pos{c, i}
			}
			rest--
		}
	}
	panic("dataflow: window sequence group counts out of step")
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
	if s.chunks[c].multi == 0 {
		return pos{c, int(rest)}, 0
	}
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
// of row, or deleting it at zero). Positions are brought up to date by
// fix.
func (s *seq) add(key string, sk int, row types.Row, diff int64) {
	p := s.search(key)
	if p.c < len(s.chunks) && s.at(p).is(key) {
		ch := s.chunks[p.c]
		ch.units += diff
		was := ch.ents[p.i].n
		ch.ents[p.i].n += diff
		ch.multi += boolInt(ch.ents[p.i].n != 1) - boolInt(was != 1)
		if ch.ents[p.i].n == 0 {
			ch.multi-- // the entry goes
			s.bytes -= entryBytes(key, ch.vals[p.i*s.width:(p.i+1)*s.width])
			ch.ents = slices.Delete(ch.ents, p.i, p.i+1)
			ch.heads = slices.Delete(ch.heads, p.i, p.i+1)
			ch.vals = slices.Delete(ch.vals, p.i*s.width, (p.i+1)*s.width)
			if len(ch.ents) == 0 {
				s.bytes -= chunkBytes(ch)
				s.chunks = slices.Delete(s.chunks, p.c, p.c+1)
				s.lastPfx = slices.Delete(s.lastPfx, p.c, p.c+1)
				s.reshaped = true
			} else {
				s.lastPfx[p.c] = ch.ents[len(ch.ents)-1].pfx
			}
		}
		s.touch(ch)
		s.touchAfter(p.c)
		return
	}
	e := wEntry{pfx: headOf(stored(key)), key: key, sk: sk, n: diff}
	if len(s.chunks) == 0 {
		s.width = len(row)
		s.chunks = append(s.chunks, s.newChunk(1))
		s.bytes += chunkBytes(s.chunks[0])
		s.lastPfx = append(s.lastPfx, keyHead{})
		s.reshaped = true
	}
	if p.c == len(s.chunks) {
		p = pos{len(s.chunks) - 1, len(s.chunks[len(s.chunks)-1].ents)}
	}
	ch := s.chunks[p.c]
	s.bytes += entryBytes(key, row) - chunkBytes(ch)
	ch.ents = slices.Insert(ch.ents, p.i, e)
	ch.heads = slices.Insert(ch.heads, p.i, e.pfx)
	if len(row) != s.width {
		panic("dataflow: Window: rows of different widths")
	}
	ch.vals = slices.Insert(ch.vals, p.i*s.width, row...)
	s.bytes += chunkBytes(ch)
	ch.units += diff
	ch.multi += boolInt(diff != 1)
	s.lastPfx[p.c] = ch.ents[len(ch.ents)-1].pfx
	s.touch(ch)
	s.touchAfter(p.c)
	if len(ch.ents) > seqChunkMax {
		half := len(ch.ents) / 2
		right := s.newChunk(seqChunkMax + 1)
		right.ents = append(right.ents, ch.ents[half:]...)
		right.heads = append(right.heads, ch.heads[half:]...)
		right.vals = append(right.vals, ch.vals[half*s.width:]...)
		clear(ch.ents[half:])
		ch.ents = ch.ents[:half]
		ch.heads = ch.heads[:half]
		clear(ch.vals[half*s.width:])
		ch.vals = ch.vals[:half*s.width]
		for _, e := range right.ents {
			right.units += e.n
			right.multi += boolInt(e.n != 1)
		}
		ch.units -= right.units
		ch.multi -= right.multi
		s.bytes += chunkBytes(right)
		s.chunks = slices.Insert(s.chunks, p.c+1, right)
		s.lastPfx = slices.Insert(s.lastPfx, p.c+1, right.ents[len(right.ents)-1].pfx)
		s.lastPfx[p.c] = ch.ents[half-1].pfx
		s.touch(right)
		s.reshaped = true
	}
}

// entryBytes returns the bytes an entry of key and row holds beyond its
// chunk's slots: the key and the row's strings.
func entryBytes(key string, row types.Row) int64 {
	n := int64(len(key))
	for _, d := range row {
		n += int64(len(d.Str()))
	}
	return n
}

// chunkBytes returns the bytes of a chunk's slots, by capacity.
func chunkBytes(ch *seqChunk) int64 {
	return int64(cap(ch.ents))*int64(16+sizeString+8+8) + int64(cap(ch.heads))*16 + int64(cap(ch.vals))*sizeDatum + 64
}

// newChunk returns an empty chunk with room for n entries. A partition's
// first chunk starts with room for one and grows as rows arrive: most
// partitions of a PARTITION BY on a fine key hold a row or two, and a
// chunk sized for seqChunkMax rows each (some 15 kB of narrow rows) took
// gigabytes over hundreds of thousands of them. The right half of a split
// gets room for a full chunk, since its partition is a large one.
func (s *seq) newChunk(n int) *seqChunk {
	return &seqChunk{
		ents:  make([]wEntry, 0, n),
		heads: make([]keyHead, 0, n),
		vals:  make([]types.Datum, 0, n*s.width),
	}
}

func (s *seq) touch(ch *seqChunk) {
	if !ch.dirty {
		ch.dirty = true
		s.dirty = append(s.dirty, ch)
	}
}

// touchAfter marks the chunk after c when peer groups are tracked:
// whether its first entry starts a peer group depends on the last entry
// of c.
func (s *seq) touchAfter(c int) {
	if s.trackStarts && c+1 < len(s.chunks) {
		s.touch(s.chunks[c+1])
	}
}

// fix brings the Fenwick trees up to date with the chunks changed since
// the last fix: point updates, or, when chunks were split or dropped, a
// renumbering and a rebuild from the chunks' counts. The cost follows the
// changed chunks and the number of chunks, not the number of rows.
func (s *seq) fix() {
	if s.reshaped {
		for c, ch := range s.chunks {
			ch.c = c
		}
	}
	for _, ch := range s.dirty {
		ch.dirty = false
		if len(ch.ents) == 0 {
			continue // dropped
		}
		if s.trackStarts {
			ch.starts = 0
			for i := range ch.ents {
				if s.isStart(pos{ch.c, i}) {
					ch.starts++
				}
			}
		}
		if !s.reshaped {
			s.units.add(ch.c, ch.units-ch.fenUnits)
			s.starts.add(ch.c, ch.starts-ch.fenStarts)
			s.total += ch.units - ch.fenUnits
		}
		ch.fenUnits, ch.fenStarts = ch.units, ch.starts
	}
	clear(s.dirty)
	s.dirty = s.dirty[:0]
	if s.reshaped {
		s.units.rebuild(len(s.chunks), func(c int) int64 { return s.chunks[c].units })
		s.starts.rebuild(len(s.chunks), func(c int) int64 { return s.chunks[c].starts })
		for _, ch := range s.chunks {
			ch.fenUnits, ch.fenStarts = ch.units, ch.starts
		}
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

// size returns the approximate bytes of the sequence: its chunks, their
// entries' keys and strings, and its indexes.
func (s *seq) size() int64 {
	return s.bytes + int64(cap(s.chunks))*sizePointer + int64(2*cap(s.lastPfx)+cap(s.units.t)+cap(s.starts.t))*8
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

// take returns the row under c and how many of its units, at most
// limit, lie ahead of c, and moves c past them.
func (s *seq) take(c *ucur, limit int64) (types.Row, int64) {
	e, row := s.at(c.p), s.row(c.p)
	n := min(e.n-c.k, limit)
	c.k += n
	c.u += n
	if c.k == e.n {
		c.p, c.k = s.next(c.p), 0
	}
	return row, n
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
