package dataflow

import (
	"unsafe"

	"github.com/streamdb/streamdb/types"
)

// apply feeds the delta to the groups' accumulators. One pass finds each
// row's group, once for an update's −old +new, adjacent in a
// consolidated delta, counts the row and adds it to the flat aggregates'
// words. AggStates take the insertions in that pass and the retractions
// after it, so that every intermediate multiset they see is non-negative
// (see AggState); the retractions wait in op.retract with their groups.
// hashes, when not nil, holds the hash of each delta row's key (see
// prefetch).
func (op *reduceOp) apply(d Batch, hashes []uint64) {
	if op.inline {
		op.applyInline(d, hashes)
	} else {
		last := int32(-1)
		for i := range d {
			if d[i].Diff != 0 {
				last = op.applyRow(last, &d[i], hashes, i)
			}
		}
	}
	for _, r := range op.retract {
		op.update(r.pos, r.u)
	}
	clear(op.retract)
	op.retract = op.retract[:0]
}

// applyRow is apply's work for delta row u (index i), whose group it
// returns; last is the group of the row before (-1 for none), which an
// update's −old +new share.
func (op *reduceOp) applyRow(last int32, u *Update, hashes []uint64, i int) int32 {
	var pos int32
	if v, class, ok := op.inlineKeyOf(u.Row); ok {
		pos = op.inlineGroup(last, v, class, hashes, i, u.Row)
	} else {
		pos = op.group(last, u.Row, hashes, i)
	}
	grp := op.groups.at(pos)
	if grp.tick != op.g.tick {
		op.touch(pos, op.exists(pos))
	}
	grp.n += u.Diff
	if op.stride > 0 {
		op.addWords(op.words(pos), u)
	}
	if op.nstates == 0 {
		return pos
	}
	if u.Diff < 0 {
		op.retract = append(op.retract, pendingRetraction{pos: pos, u: u})
	} else {
		op.update(pos, u)
	}
	return pos
}

// group returns the position of the group of row's key, creating it if
// need be; last and hashes are as for inlineGroup.
func (op *reduceOp) group(last int32, row types.Row, hashes []uint64, i int) int32 {
	var key types.Row
	if op.key != nil {
		key = op.key(row)
	}
	if last >= 0 && op.keyIs(last, key) {
		return last
	}
	var h uint64
	if hashes != nil {
		h = hashes[i]
	} else {
		h = op.index.hash(key)
	}
	return op.lookup(key, h)
}

// update adds one row to a group's AggStates.
func (op *reduceOp) update(pos int32, u *Update) {
	states := op.groups.at(pos).states(op.nstates)
	for _, a := range op.aggs {
		if a.flat != nil {
			continue
		}
		var err error
		if sz, ok := states[a.off].(StateSizer); ok {
			// The state's size change is counted here, so that
			// StateBytes walks no group (see statesBytes).
			before := sz.StateBytes()
			err = states[a.off].Update(u.Row, u.Diff)
			op.bytes += sz.StateBytes() - before
		} else {
			err = states[a.off].Update(u.Row, u.Diff)
		}
		if err != nil {
			op.rowFailed(u.Diff, err)
		}
	}
}

// rowFailed records a delta row's failure to update an aggregate: the
// error travels as data with the row's weight.
func (op *reduceOp) rowFailed(diff int64, err error) {
	op.out.errs = append(op.out.errs, ErrorUpdate{Err: dataError(err), Diff: diff})
}

// words returns the flat aggregates' words of the group at pos.
func (op *reduceOp) words(pos int32) []int64 {
	if op.stride <= groupWords {
		return op.groups.at(pos).words[:op.stride:op.stride]
	}
	at := int(pos&(chunkSize-1)) * op.stride
	return op.wide[pos>>chunkBits][at : at+op.stride : at+op.stride]
}

// keyIs reports whether the group at pos has key.
func (op *reduceOp) keyIs(pos int32, key types.Row) bool {
	if v, class, ok := inlineKey(key); ok {
		grp := op.groups.at(pos)
		return grp.iclass == class && grp.ikey == v
	}
	return equalRows(op.index.keys[pos], key)
}

// lookup returns the position of the group of key (hash h), creating it
// with fresh accumulators.
func (op *reduceOp) lookup(key types.Row, h uint64) int32 {
	if p := op.index.findFunc(h, func(p int32) bool { return op.keyIs(p, key) }); p >= 0 {
		return p
	}
	// The key may share the input row's storage: it is copied. In
	// words mode the group's row is its key alone.
	width := len(key) + len(op.spec.Aggs)
	if op.wordsMode {
		width = len(key)
	}
	row := make(types.Row, width)
	copy(row, key)
	pos := op.index.insert(row[:len(key):len(key)], h)
	if int(pos) == op.groups.len() {
		op.groups.grow()
		if i := int(pos >> chunkBits); op.stride > groupWords {
			if i == len(op.wide) {
				op.wide = append(op.wide, nil)
			}
			op.wide[i] = append(op.wide[i], make([]int64, op.stride)...)
		}
	}
	grp := op.groups.at(pos)
	*grp = group{row: row, size: rowBytes(row)}
	grp.ikey, grp.iclass, _ = inlineKey(key)
	if op.stride > groupWords {
		clear(op.words(pos))
	}
	if op.keyed {
		op.kbuf = types.AppendKeyRow(op.kbuf[:0], key)
		grp.kenc, grp.head = string(op.kbuf), headOf(op.kbuf)
		grp.size += int64(len(grp.kenc))
	}
	if n := op.nstates; n > len(grp.statesBuf) {
		grp.more = unsafe.SliceData(make([]AggState, n))
		grp.size += int64(n) * (2 * sizePointer)
	}
	states := grp.states(op.nstates)
	for i, a := range op.aggs {
		if a.flat == nil {
			states[a.off] = op.spec.Aggs[i].NewState()
		}
	}
	op.bytes += grp.size + statesBytes(states)
	return pos
}

// exists reports whether the group at pos has an output row.
func (op *reduceOp) exists(pos int32) bool {
	return op.groups.at(pos).n > 0 || (op.spec.Global && len(op.index.keys[pos]) == 0)
}

// touch records that the group at pos changes in this tick and whether it
// had an output before (its row or err, which stay as they are until
// finish).
func (op *reduceOp) touch(pos int32, existed bool) {
	grp := op.groups.at(pos)
	grp.tick = op.g.tick
	if op.wordsMode {
		c := wordsChange{pos: pos, drop: -1, had: existed}
		if op.stride > groupWords {
			c.old = int32(len(op.wideOlds))
			var w [2 * groupWords]int64
			copy(w[:], op.words(pos))
			op.wideOlds = append(op.wideOlds, w)
		} else {
			c.old = int32(len(op.olds))
			op.olds = append(op.olds, grp.words)
		}
		op.wchanges = append(op.wchanges, c)
		return
	}
	t := touchedGroup{pos: pos, existed: existed}
	if op.keyed {
		t.head, t.kenc = grp.head, grp.kenc
	}
	op.touched = append(op.touched, t)
}
