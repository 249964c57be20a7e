package dataflow

import (
	"bytes"

	"github.com/streamdb/streamdb/types"
)

// topKRest is the part of a TopK group after its head: rows, each with
// its multiplicity and (with a SortKey) its key, in no order. A lookup
// is a hash probe and a row comparison, so its cost does not follow the
// group's size the way an ordered search's does. Every row of the rest
// sorts after every row of the head; which rows are in the rest changes
// only by spills and refills (topKOp.balance).
type topKRest struct {
	index *rowIndex
	keys  []string // by index position: the item's key (SortKey only)
	n     []int64  // by index position: the multiplicity
}

// len returns the number of distinct rows in the rest (0 for nil).
func (r *topKRest) len() int {
	if r == nil {
		return 0
	}
	return r.index.live
}

// applyRest adds diff to the multiplicity of item's row in the rest,
// storing a copy of the row when it is new and dropping it at zero, and
// returns the row's multiplicity.
func (op *topKOp) applyRest(grp *topKGroup, item topKItem, diff int64) int64 {
	r := grp.rest
	if r == nil {
		r = &topKRest{index: newRowIndex()}
		grp.rest = r
	}
	h := r.index.hash(item.row)
	p := r.index.find(item.row, h)
	if p < 0 {
		row := item.row.Copy()
		op.bytes -= r.index.size()
		p = r.index.insert(row, h)
		op.bytes += r.index.size() + sizeTopKRest + int64(len(item.e.key)) + rowBytes(row)
		if int(p) == len(r.n) {
			r.n = append(r.n, diff)
			r.keys = append(r.keys, item.e.key)
		} else {
			r.n[p], r.keys[p] = diff, item.e.key
		}
		return diff
	}
	n := r.n[p] + diff
	if r.n[p] = n; n == 0 {
		op.removeRest(r, p)
	}
	return n
}

// removeRest drops the row at position p from the rest.
func (op *topKOp) removeRest(r *topKRest, p int32) {
	op.bytes -= sizeTopKRest + int64(len(r.keys[p])) + rowBytes(r.index.keys[p])
	r.index.remove(p)
	r.keys[p], r.n[p] = "", 0
}

// sizeTopKRest is a row's share of a rest beyond the index: its key's
// header and its multiplicity.
const sizeTopKRest = sizeString + 8

// balance restores the head's bounds after a tick's changes: it refills
// the head while it holds fewer than m units and the rest has rows, and
// spills its tail when it has grown past its limit. Neither moves a row
// of the first m units, so the window read from the head is the group's.
func (op *topKOp) balance(grp *topKGroup, m int64) {
	for grp.units < m && grp.rest.len() > 0 {
		op.refill(grp)
	}
	if grp.rows.Len() > grp.limit {
		op.spill(grp, m)
	}
}

// spill moves the head's last rows to the rest until the head is down to
// its target size, keeping at least m units in the head.
func (op *topKOp) spill(grp *topKGroup, m int64) {
	target := op.headTarget()
	for grp.rows.Len() > target {
		last, _ := grp.rows.Max()
		if grp.units-max(last.e.n, 0) < m {
			break
		}
		grp.rows.DeleteHint(last, &grp.hint)
		grp.units -= max(last.e.n, 0)
		op.bytes -= sizeTopKItem + int64(len(last.e.key)) + rowBytes(last.row)
		op.applyRest(grp, last, last.e.n)
	}
	grp.limit = 2 * target
}

// refill moves the first rows of the rest into the head: an eighth of
// the rest and at least the head's target size, chosen in one pass with
// a bounded max-heap. The head's limit grows to fit them, so that they
// are spilled again only when insertions grow the head further.
func (op *topKOp) refill(grp *topKGroup) {
	r := grp.rest
	k := max(op.headTarget(), r.len()/8)
	heap := op.heap[:0]
	// after reports whether the row at p sorts after the row at q.
	after := func(p, q int32) bool { return op.compareRest(r, p, q) > 0 }
	for p, row := range r.index.keys {
		if row == nil {
			continue
		}
		p := int32(p)
		if len(heap) < k {
			heap = append(heap, p)
			siftUp(heap, len(heap)-1, after)
			continue
		}
		if after(heap[0], p) {
			heap[0] = p
			siftDown(heap, 0, after)
		}
	}
	for _, p := range heap {
		it := topKItem{row: r.index.keys[p], e: &topKEntry{key: r.keys[p], n: r.n[p]}}
		if op.spec.SortKey != nil {
			it.head = headOf(stored(it.e.key))
		}
		op.bytes -= sizeTopKRest + int64(len(r.keys[p])) + rowBytes(it.row)
		op.bytes -= r.index.size()
		r.index.remove(p)
		op.bytes += r.index.size()
		r.keys[p], r.n[p] = "", 0
		op.insertHead(grp, it)
	}
	clear(heap)
	op.heap = heap[:0]
	grp.limit = max(grp.limit, 2*grp.rows.Len())
}

// compareRest orders the rows at positions p and q of the rest as the
// group's order does.
func (op *topKOp) compareRest(r *topKRest, p, q int32) int {
	if op.spec.SortKey != nil {
		return bytes.Compare(stored(r.keys[p]), stored(r.keys[q]))
	}
	a, b := r.index.keys[p], r.index.keys[q]
	if op.spec.Compare != nil {
		if c := op.spec.Compare(a, b); c != 0 {
			return c
		}
	}
	return types.CompareRows(a, b)
}

// siftUp and siftDown keep h a binary heap whose root sorts after every
// other element under after.
func siftUp(h []int32, i int, after func(p, q int32) bool) {
	for i > 0 {
		parent := (i - 1) / 2
		if !after(h[i], h[parent]) {
			return
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

func siftDown(h []int32, i int, after func(p, q int32) bool) {
	for {
		top, l := i, 2*i+1
		if l < len(h) && after(h[l], h[top]) {
			top = l
		}
		if l+1 < len(h) && after(h[l+1], h[top]) {
			top = l + 1
		}
		if top == i {
			return
		}
		h[i], h[top] = h[top], h[i]
		i = top
	}
}
