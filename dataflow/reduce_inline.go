package dataflow

import (
	"github.com/streamdb/streamdb/internal/int128"
	"github.com/streamdb/streamdb/types"
)

// applyInline is apply for the common GROUP BY view: a key of one column
// and aggregates that all have a WordsOp (count(*), count, sum and avg
// of integer columns), so no AggStates. It does applyRow's work with the
// key's group found by its inline value and the WordsOps written out:
// through applyRow's calls per row and aggregate, a 1,000-row tick of
// count(*) and a sum took a third longer (BenchmarkViewUpdate). A row
// whose key is not inline (NULL, text …) or too short for the columns
// goes through applyRow.
func (op *reduceOp) applyInline(d Batch, hashes []uint64) {
	last := int32(-1)
	for i := range d {
		u := &d[i]
		if u.Diff == 0 {
			continue
		}
		if len(u.Row) < op.inlineWidth {
			last = op.applyRow(last, u, hashes, i)
			continue
		}
		v, class, ok := inlineDatum(&u.Row[op.keyCol])
		if !ok {
			last = op.applyRow(last, u, hashes, i)
			continue
		}
		pos := op.inlineGroup(last, v, class, hashes, i, u.Row)
		last = pos
		grp := op.groups.at(pos)
		if grp.tick != op.g.tick {
			op.touch(pos, op.exists(pos))
		}
		grp.n += u.Diff
		w := op.words(pos)
		for j := range op.aggs {
			a := &op.aggs[j].inline
			off := op.aggs[j].off
			if a.Kind == CountRows {
				w[off] += u.Diff
				continue
			}
			arg := &u.Row[a.Col]
			switch {
			case arg.IsNull():
			case a.Kind == CountColumn:
				w[off] += u.Diff
			default:
				// addSum, written out: the call (not inlined) made the
				// tick 2% longer in process and 4% in the server.
				sum := int128.Int{Hi: w[off], Lo: uint64(w[off+1])}
				if !sum.AddMul(arg.Int(), u.Diff) {
					op.rowFailed(u.Diff, a.Overflow)
					continue
				}
				w[off], w[off+1], w[off+2] = sum.Hi, int64(sum.Lo), w[off+2]+u.Diff
			}
		}
	}
}

// inlineKeyOf returns the value and class of row's key when the group
// keeps it inline (see inlineKey) and it is one input column, the common
// GROUP BY of an integer, a date or a timestamp: its group is then found
// without building the key.
func (op *reduceOp) inlineKeyOf(row types.Row) (int64, types.Family, bool) {
	if op.keyCol < 0 || op.keyCol >= len(row) {
		return 0, 0, false
	}
	return inlineDatum(&row[op.keyCol])
}

// inlineGroup returns the position of the group of the key of row, of
// inline value v and class, creating it if need be; last is the group
// of the row before (-1 for none), which an update's −old +new share,
// and hashes[i], when there are hashes, the key's hash.
//
// The memo is asked before the index: a slot indexed by the value's low
// bits, which names the group last found for a value of those bits. Keys
// of a small range (ids of a few thousand categories, days) then never
// share a slot, and finding their group is one load and one comparison,
// where probing the index, about one and a half slots per key at its
// load, mispredicts the loop's exit: the 1,000-row update tick of
// BenchmarkViewUpdate took 8–11% less with the memo, and
// BenchmarkReduceVsMap's ratio rose from 0.69 to 0.94. A slot holds the
// value's low 32 bits, so that a key the memo does not know (many
// groups over a wide range) costs no read of another group's line; the
// group's own key decides.
func (op *reduceOp) inlineGroup(last int32, v int64, class types.Family, hashes []uint64, i int, row types.Row) int32 {
	if last >= 0 {
		if grp := op.groups.at(last); grp.ikey == v && grp.iclass == class {
			return last
		}
	}
	m := &op.memo[uint64(v)&uint64(len(op.memo)-1)]
	if m.low == uint32(v) && m.pos > 0 {
		if grp := op.groups.at(m.pos - 1); grp.ikey == v && grp.iclass == class {
			return m.pos - 1
		}
	}
	pos := op.probeInline(v, class, hashes, i, row)
	*m = memoEntry{pos: pos + 1, low: uint32(v)}
	return pos
}

// memoEntry is a slot of reduceOp.memo: the low 32 bits of a key's value
// and its group's position plus one (0 for an empty slot).
type memoEntry struct {
	pos int32
	low uint32
}

// memoSize is the most slots reduceOp.memo has: 32 KiB, which stays in
// the first-level cache beside a tick's other work.
const memoSize = 4096

// probeInline is inlineGroup's search of the index, for a key the memo
// did not know.
func (op *reduceOp) probeInline(v int64, class types.Family, hashes []uint64, i int, row types.Row) int32 {
	var h uint64
	if hashes != nil {
		h = hashes[i]
	} else {
		h = op.index.hashInline(v, class)
	}
	// The index's findFunc, written out: through its closure the
	// 1,000-row tick of BenchmarkViewUpdate took 4% longer.
	x := op.index
	mask := uint64(len(x.slots) - 1)
	tag := h >> 32
	for j := h & mask; ; j = (j + 1) & mask {
		s := x.slots[j]
		if s == slotEmpty {
			return op.lookup(op.key(row), h)
		}
		if s != slotTombstone && s>>32 == tag {
			if grp := op.groups.at(slotPos(s)); grp.ikey == v && grp.iclass == class {
				return slotPos(s)
			}
		}
	}
}

// addWords adds delta row u to the flat aggregates' words w of its
// group: by their WordsOps when they have one, else by their Add.
func (op *reduceOp) addWords(w []int64, u *Update) {
	for i := range op.aggs {
		a := &op.aggs[i]
		if a.flat == nil {
			continue
		}
		aw := w[a.off : a.off+a.n : a.off+a.n]
		if a.inline.Kind != 0 {
			done, err := a.inline.Add(aw, u.Row, u.Diff)
			if err != nil {
				op.rowFailed(u.Diff, err)
			}
			if done {
				continue
			}
		}
		if err := a.flat.Add(aw, u.Row, u.Diff); err != nil {
			op.rowFailed(u.Diff, err)
		}
	}
}

// inlineKey returns the value and class of a key that a group keeps
// inline: one column of an integer (class Int8: integers of all widths
// are equal when their values are, and hash alike), a date or a
// timestamp; ok is false for any other key.
func inlineKey(key types.Row) (v int64, class types.Family, ok bool) {
	if len(key) != 1 {
		return 0, 0, false
	}
	return inlineDatum(&key[0])
}

// inlineDatum returns the value and class of d as the one column of an
// inline key.
func inlineDatum(d *types.Datum) (v int64, class types.Family, ok bool) {
	switch k := d.Kind(); {
	case k.IsInteger():
		return d.Int(), types.Int8, true
	case k == types.Date || k == types.Timestamp || k == types.TimestampTZ:
		return d.Int(), k, true
	}
	return 0, 0, false
}
