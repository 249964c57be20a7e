package dataflow

import (
	"bytes"
	"context"
	"slices"

	"github.com/streamdb/streamdb/sql/pgerr"
	"github.com/streamdb/streamdb/sql/types"
)

// MonotonicTopK is TopK over an append-only input, one that never
// retracts a row: the same output for the same spec, from a state of
// only the first m = Offset+Limit units of each group. TopK must keep
// every row, since deleting one of the first m brings in the runner-up;
// without deletions a row past the first m can never enter the window
// again, so it is dropped on arrival. An insertion either lands among
// the first m units, pushing the last units out (the window's last row
// leaves the output when Offset is 0), or is dropped after one
// comparison with the group's last kept row (Materialize's monotonic
// top-k). The planner chooses it when it can prove the input append-only
// (an inner join, filter or projection of append-only sources, or any
// input of a one-tick query).
//
// A retraction is a planning error, not a data error: Step fails with
// an internal error, which poisons the graph, rather than emit a wrong
// result. A spec without a limit (Limit < 0) needs every row after the
// offset, so for it MonotonicTopK is TopK.
//
// A tick touching a group costs one comparison per change that sorts
// after the group's kept rows once it is full, plus, when some change
// lands among them, a sort of those changes and a merge with the kept
// rows, O(c·log c + m).
//
//	spec:   ORDER BY x LIMIT 2
//	input:  +(3)   +(1) +(2)        +(0)        +(4)
//	state:  (3)    (1) (2)          (0) (1)     (0) (1)
//	output: +(3)   +(1) +(2) -(3)   +(0) -(2)
func (g *Graph) MonotonicTopK(src Node, spec TopKSpec) Node {
	if spec.Limit < 0 {
		return g.TopK(src, spec)
	}
	out := new(stream)
	op := &monoTopKOp{g: g, in: g.input(src), out: out, spec: spec, m: spec.Offset + spec.Limit, index: newRowIndex()}
	return g.add(op, out)
}

type monoTopKOp struct {
	g       *Graph
	in, out *stream
	spec    TopKSpec
	m       int64 // units kept per group
	index   *rowIndex
	groups  []*monoTopKGroup // by index position
	bytes   int64
	// Per-tick scratch: touched groups in order of first touch, the
	// changes that may enter a window with the index of their group,
	// the same sorted by group, the merged window, and copies of the
	// windows the offset shortens.
	touched []*monoTopKGroup
	changes []topKChange
	sorted  []topKChange
	merged  []run
	oldWin  []run
	newWin  []run
	kbuf    []byte
}

// monoTopKGroup is a group's first m units in order. A run's item entry
// holds the row's key; its multiplicity is the run's, never above what
// the window can use.
type monoTopKGroup struct {
	rows       []run
	units      int64
	bytes      int64
	tick       uint64
	idx        int
	changeSpan // the group's changes in monoTopKOp.sorted
}

const sizeMonoTopKGroup = 96 + sizePointer

// sizeMonoTopKRun is a kept row's run and entry, besides its key and row.
const sizeMonoTopKRun = 16 + sizeSlice + sizePointer + 8 + sizeString + 8

var _ operator = (*monoTopKOp)(nil)

func (op *monoTopKOp) Name() string { return "MonotonicTopK" }

func (op *monoTopKOp) Step(context.Context) error {
	op.out.passErrors(op.in)
	defer op.reset()
	for _, u := range op.in.delta {
		if u.Diff <= 0 {
			if u.Diff == 0 {
				continue
			}
			return errMonotonicRetraction
		}
		if op.m <= 0 {
			continue
		}
		grp := op.lookup(u.Row)
		item, ok := op.candidate(grp, u.Row, u.Diff)
		if !ok {
			continue
		}
		if grp.tick != op.g.tick {
			grp.tick = op.g.tick
			grp.idx = len(op.touched)
			grp.start, grp.end = 0, 0
			op.touched = append(op.touched, grp)
		}
		op.changes = append(op.changes, topKChange{group: grp.idx, item: item, diff: u.Diff})
	}
	op.sorted = bucketChanges(op.changes, func(c *topKChange) int { return c.group }, op.touched, op.sorted)
	for _, grp := range op.touched {
		op.stepGroup(grp, op.sorted[grp.start:grp.end])
	}
	return nil
}

// errMonotonicRetraction reports a retraction reaching a MonotonicTopK:
// the planner took an input for append-only that is not.
var errMonotonicRetraction = pgerr.New(pgerr.InternalError, "monotonic top-k received a retraction")

func (op *monoTopKOp) reset() {
	clear(op.touched)
	op.touched = op.touched[:0]
	clear(op.changes)
	op.changes = op.changes[:0]
	clear(op.sorted)
	op.sorted = op.sorted[:0]
}

func (op *monoTopKOp) lookup(row types.Row) *monoTopKGroup {
	var key types.Row
	if op.spec.Group != nil {
		key = op.spec.Group(row)
	}
	h := op.index.hash(key)
	if p := op.index.find(key, h); p >= 0 {
		return op.groups[p]
	}
	grp := &monoTopKGroup{}
	op.bytes -= op.index.size()
	p := op.index.insert(key.Copy(), h)
	op.bytes += op.index.size() + sizeMonoTopKGroup + rowBytes(key)
	if int(p) == len(op.groups) {
		op.groups = append(op.groups, grp)
	} else {
		op.groups[p] = grp
	}
	return grp
}

// candidate returns the item of an insertion, or false when the group's
// window is full and the row sorts at or after its last row: such a row
// cannot enter the window (at the last row itself it only adds units
// past the window). With a SortKey the row's sort key alone usually
// decides, before the row is encoded.
func (op *monoTopKOp) candidate(grp *monoTopKGroup, row types.Row, n int64) (topKItem, bool) {
	full := grp.units >= op.m
	var last topKItem
	if full {
		last = grp.rows[len(grp.rows)-1].item
	}
	if op.spec.SortKey == nil {
		it := topKItem{row: row, e: &topKEntry{n: n}}
		if full && op.spec.compare(it, last) >= 0 {
			return topKItem{}, false
		}
		return it, true
	}
	op.kbuf = op.spec.SortKey(op.kbuf[:0], row)
	if full && bytes.Compare(op.kbuf, stored(last.e.key)) > 0 {
		return topKItem{}, false
	}
	op.kbuf = types.AppendKeyRow(op.kbuf, row)
	if full && bytes.Compare(op.kbuf, stored(last.e.key)) >= 0 {
		return topKItem{}, false
	}
	return topKItem{head: headOf(op.kbuf), row: row, e: &topKEntry{key: string(op.kbuf), n: n}}, true
}

// stepGroup merges a group's candidate changes into its window, keeps
// the first m units and emits the window's change.
func (op *monoTopKOp) stepGroup(grp *monoTopKGroup, changes []topKChange) {
	spec := &op.spec
	slices.SortFunc(changes, func(a, b topKChange) int { return spec.compare(a.item, b.item) })
	merged := op.merged[:0]
	var units int64
	old := grp.rows
	i, j := 0, 0
	for units < op.m && (i < len(old) || j < len(changes)) {
		c := 1
		switch {
		case j == len(changes):
			c = -1
		case i < len(old):
			c = spec.compare(old[i].item, changes[j].item)
		}
		var r run
		if c <= 0 {
			r = old[i]
			i++
		} else {
			// A new row: its change's item, with a copy of the row,
			// which may be carved from an upstream slab.
			r = run{item: changes[j].item}
			r.item.row = r.item.row.Copy()
		}
		for c >= 0 && j < len(changes) && spec.compare(changes[j].item, r.item) == 0 {
			r.n += changes[j].diff
			j++
		}
		r.n = min(r.n, op.m-units)
		r.item.e.n = r.n
		units += r.n
		merged = append(merged, r)
	}
	oldWin, newWin := old, merged
	if op.spec.Offset > 0 {
		// skipUnits shortens a window's first run in place: copies.
		op.oldWin = append(op.oldWin[:0], old...)
		op.newWin = append(op.newWin[:0], merged...)
		oldWin = skipUnits(op.oldWin, op.spec.Offset)
		newWin = skipUnits(op.newWin, op.spec.Offset)
	}
	emitRunDiff(op.out, newWin, oldWin, spec)
	clear(op.oldWin)
	clear(op.newWin)
	clear(grp.rows)
	grp.rows = append(grp.rows[:0], merged...)
	grp.units = units
	clear(merged)
	op.merged = merged[:0]
	op.bytes -= grp.bytes
	grp.bytes = int64(cap(grp.rows)) * sizeMonoTopKRun
	for _, r := range grp.rows {
		grp.bytes += int64(len(r.item.e.key)) + rowBytes(r.item.row)
	}
	op.bytes += grp.bytes
	if invariants {
		op.checkGroup(grp)
	}
}

// checkGroup panics unless the group's window is strictly ordered, of
// positive runs, and no longer than m units. It runs only under the
// invariants build tag.
func (op *monoTopKOp) checkGroup(grp *monoTopKGroup) {
	var units int64
	for i, r := range grp.rows {
		if r.n <= 0 || (i > 0 && op.spec.compare(grp.rows[i-1].item, r.item) >= 0) {
			panic("dataflow: invariant: monotonic top-k window out of order")
		}
		units += r.n
	}
	if units != grp.units || units > op.m {
		panic("dataflow: invariant: monotonic top-k window miscounted")
	}
}

func (op *monoTopKOp) StateBytes() int64 {
	return op.bytes + int64(cap(op.groups))*sizePointer
}
