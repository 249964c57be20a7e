package dataflow

import (
	"bytes"
	"context"
	"slices"
	"unsafe"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
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
// A change that sorts after a full window's last row costs one
// comparison of sort keys, and nothing is stored or encoded for it.
// With a small window (m ≤ monoTopKEagerMax, the top-N-per-group case)
// a change that enters it is inserted at once, so that the next change
// of the same tick meets the window it left: of a group's c rows
// arriving in one tick in random order (a one-tick query's, or an
// auction's bids within a large source batch) about m·(1+ln(c/m)) are
// copied and keyed, not c. A larger
// window takes the tick's entering changes sorted and merges them in,
// O(c·log c + m). Either way the window before the tick is compared with
// the window after it and their difference emitted.
//
// With a SortKey the state keeps each row's sort key and the row in its
// value encoding (see keptRow), not TopK's key encoding and decoded row:
// rows whose sort keys are equal are ordered by their key encodings
// computed on demand, which gives TopK's order.
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
	if spec.Gate != nil {
		spec.Gate.op = op
	}
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
	// Per-tick scratch: touched groups in order of first touch, their
	// windows before the tick, the changes that may enter a large window
	// with the index of their group, the same sorted by group, a merged
	// window, a copy of a window the offset shortens, and key buffers.
	touched []*monoTopKGroup
	before  []run
	changes []topKChange
	sorted  []topKChange
	merged  []run
	newWin  []run
	kbuf    []byte
	abuf    []byte
	bbuf    []byte
	probe   topKEntry // the entry of a change not yet kept
	slab    rowSlab   // numbered rows (see emitNumbered)
	// windowRuns counts the runs of the touched groups' windows as of
	// their last merge, and changeBytes estimates what changes holds:
	// changes are merged once they are as many as those runs, so that a
	// final step over a billion rows into a window of millions merges
	// in time proportional to its rows, not to its chunks times its
	// window.
	windowRuns  int
	changeBytes int64
}

// monoTopKEagerMax is the largest window that changes enter one by one
// (see MonotonicTopK): inserting into a sorted slice moves up to m runs.
const monoTopKEagerMax = 64

// monoTopKGroup is a group's first m units in order. A run's n is the
// row's multiplicity in the window, never above what the window can
// use; its item's entry holds the sort key (the entry's n is unused).
type monoTopKGroup struct {
	rows       []run
	units      int64
	bytes      int64
	tick       uint64
	idx        int
	before     changeSpan // the window before the tick in monoTopKOp.before
	changeSpan            // the group's changes in monoTopKOp.sorted
	gateTick   uint64     // the tick of the group's keys in its TopKGate
	gateAt     int32      // the group's place among them
}

const sizeMonoTopKGroup = 112 + sizePointer

// sizeMonoTopKRun is a kept row's run and entry, besides its key and row.
const sizeMonoTopKRun = 16 + sizeSlice + sizePointer + 8 + sizeString + 8

var _ operator = (*monoTopKOp)(nil)

func (op *monoTopKOp) Name() string { return "MonotonicTopK" }

func (op *monoTopKOp) Step(ctx context.Context) error {
	if err := op.absorb(ctx, 0); err != nil {
		op.reset()
		return err
	}
	return op.finish(ctx)
}

// absorb takes the insertions of a delta, or of a final step's chunk,
// into their groups' windows; a row that cannot enter its window is
// dropped at once, so a final step over a billion rows keeps only the
// windows.
func (op *monoTopKOp) absorb(context.Context, int) error {
	op.out.passErrors(op.in)
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
		item, ok := op.candidate(grp, u.Row)
		if !ok {
			continue
		}
		if grp.tick != op.g.tick {
			grp.tick = op.g.tick
			grp.idx = len(op.touched)
			grp.start, grp.end = 0, 0
			grp.before = changeSpan{len(op.before), len(op.before) + len(grp.rows)}
			op.before = append(op.before, grp.rows...)
			op.touched = append(op.touched, grp)
			op.windowRuns += len(grp.rows)
		}
		if op.m <= monoTopKEagerMax {
			op.insert(grp, item, u.Diff)
		} else {
			op.changes = append(op.changes, topKChange{group: grp.idx, item: item, diff: u.Diff})
			// The change keeps its entry and, until the merge, its row.
			op.changeBytes += sizeMonoTopKRun + int64(len(item.e.key)) + rowBytes(u.Row)
		}
	}
	if len(op.changes) >= max(mergeMin, op.windowRuns) {
		op.mergeChanges()
	}
	return nil
}

// mergeMin is the fewest changes absorb merges into large windows.
const mergeMin = 4096

// mergeChanges merges the pending changes into their groups' windows.
func (op *monoTopKOp) mergeChanges() {
	op.sorted = bucketChanges(op.changes, func(c *topKChange) int { return c.group }, op.touched, op.sorted)
	for _, grp := range op.touched {
		if grp.end > grp.start {
			op.windowRuns -= len(grp.rows)
			op.merge(grp, op.sorted[grp.start:grp.end])
			op.windowRuns += len(grp.rows)
			op.account(grp)
		}
	}
	// The next changes are laid out anew.
	for _, c := range op.changes {
		grp := op.touched[c.group]
		grp.start, grp.end = 0, 0
	}
	clear(op.changes)
	op.changes = op.changes[:0]
	clear(op.sorted)
	op.sorted = op.sorted[:0]
	op.changeBytes = 0
}

// finish emits the change of every touched group's window.
func (op *monoTopKOp) finish(ctx context.Context) error {
	defer op.reset()
	if len(op.changes) > 0 {
		op.mergeChanges()
	}
	for _, grp := range op.touched {
		op.emit(grp)
		if err := op.out.flushIfFull(ctx); err != nil {
			return err
		}
	}
	return nil
}

// errMonotonicRetraction reports a retraction reaching a MonotonicTopK:
// the planner took an input for append-only that is not.
var errMonotonicRetraction = pgerr.New(pgerr.InternalError, "monotonic top-k received a retraction")

func (op *monoTopKOp) reset() {
	clear(op.touched)
	op.touched = op.touched[:0]
	clear(op.before)
	op.before = op.before[:0]
	clear(op.changes)
	op.changes = op.changes[:0]
	clear(op.sorted)
	op.sorted = op.sorted[:0]
	op.windowRuns, op.changeBytes = 0, 0
}

func (op *monoTopKOp) lookup(row types.Row) *monoTopKGroup {
	var key types.Row
	if op.spec.Group != nil {
		key = op.spec.Group(row)
	}
	before := op.index.size()
	return groupOf(op.index, &op.groups, key, func(int32) *monoTopKGroup {
		op.bytes += op.index.size() - before + sizeMonoTopKGroup + rowBytes(key)
		return &monoTopKGroup{}
	})
}

// candidate returns the item of an insertion, or false when the group's
// window is full and the row sorts at or after its last row: such a row
// cannot enter the window (at the last row itself it only adds units
// past the window). Nothing is allocated for a row refused.
func (op *monoTopKOp) candidate(grp *monoTopKGroup, row types.Row) (topKItem, bool) {
	it := topKItem{row: row, e: &op.probe}
	if op.spec.SortKey != nil {
		op.kbuf = op.spec.SortKey(op.kbuf[:0], row)
		op.probe.key = unsafe.String(unsafe.SliceData(op.kbuf), len(op.kbuf))
		it.head = headOf(op.kbuf)
	}
	if grp.units >= op.m && op.compare(it, grp.rows[len(grp.rows)-1].item) >= 0 {
		return topKItem{}, false
	}
	if op.spec.SortKey == nil {
		it.e = &topKEntry{}
		return it, true
	}
	// The entry keeps the row too, encoded after its sort key (see
	// keptRow).
	op.kbuf = appendRowValue(op.kbuf, row)
	it.e = &topKEntry{key: string(op.kbuf), n: int64(len(op.kbuf) - len(op.probe.key))}
	return it, true
}

// sortKey returns the sort key of an item's entry.
func sortKey(e *topKEntry) []byte { b := stored(e.key); return b[:int64(len(b))-e.n] }

// keptRow returns an item's row: with a SortKey a kept row is held only
// encoded, after its entry's sort key (e.n is the encoding's length), and
// decoded when it is emitted or its sort key ties. A row decoded for
// each of an auction's winning bids cost a fraction of a row of Datums
// kept for it (17 Datums, ~1 KB, where most of q6's columns are NULL).
// An item inserted in this tick still holds its input row until the
// tick's emit.
func (op *monoTopKOp) keptRow(it topKItem) types.Row {
	if it.row != nil {
		return it.row
	}
	b := stored(it.e.key)
	r, err := op.slab.decode(b[int64(len(b))-it.e.n:])
	if err != nil {
		panic("dataflow: monotonic top-k: corrupt kept row: " + err.Error())
	}
	return r
}

// compare orders items as TopK orders the same rows (see MonotonicTopK).
func (op *monoTopKOp) compare(a, b topKItem) int {
	if op.spec.SortKey == nil {
		return op.spec.compare(a, b)
	}
	if c := a.head.compare(b.head); c != 0 {
		return c
	}
	if a.e == b.e {
		return 0
	}
	if c := bytes.Compare(sortKey(a.e), sortKey(b.e)); c != 0 {
		return c
	}
	op.abuf = types.AppendKeyRow(op.abuf[:0], op.keptRow(a))
	op.bbuf = types.AppendKeyRow(op.bbuf[:0], op.keptRow(b))
	return bytes.Compare(op.abuf, op.bbuf)
}

// insert adds an entering change to a small window at once and drops
// the units pushed past its m-th. A new row is stored encoded in its
// entry (see keptRow) or, with a Compare, as a copy: the change's row
// may be carved from an upstream slab.
func (op *monoTopKOp) insert(grp *monoTopKGroup, it topKItem, n int64) {
	rows := grp.rows
	i, found := slices.BinarySearchFunc(rows, it, func(r run, it topKItem) int { return op.compare(r.item, it) })
	if found {
		rows[i].n += n
	} else {
		if op.spec.SortKey == nil {
			it.row = it.row.Copy()
		}
		rows = slices.Insert(rows, i, run{item: it, n: n})
	}
	grp.units += n
	for grp.units > op.m {
		last := &rows[len(rows)-1]
		if excess := grp.units - op.m; last.n > excess {
			last.n -= excess
			grp.units = op.m
			break
		}
		grp.units -= last.n
		*last = run{}
		rows = rows[:len(rows)-1]
	}
	grp.rows = rows
}

// merge adds a tick's entering changes to a large window: sorted, then
// merged with the window's rows up to its m-th unit.
func (op *monoTopKOp) merge(grp *monoTopKGroup, changes []topKChange) {
	slices.SortFunc(changes, func(a, b topKChange) int { return op.compare(a.item, b.item) })
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
			c = op.compare(old[i].item, changes[j].item)
		}
		var r run
		if c <= 0 {
			r = old[i]
			i++
		} else {
			r = run{item: changes[j].item}
			if op.spec.SortKey == nil {
				r.item.row = r.item.row.Copy()
			}
		}
		for c >= 0 && j < len(changes) && op.compare(changes[j].item, r.item) == 0 {
			r.n += changes[j].diff
			j++
		}
		r.n = min(r.n, op.m-units)
		units += r.n
		merged = append(merged, r)
	}
	clear(grp.rows)
	grp.rows = append(grp.rows[:0], merged...)
	grp.units = units
	clear(merged)
	op.merged = merged[:0]
}

// emit emits the change of a touched group's window and accounts for
// its new size.
func (op *monoTopKOp) emit(grp *monoTopKGroup) {
	oldWin, newWin := op.before[grp.before.start:grp.before.end], grp.rows
	if op.spec.Offset > 0 {
		// skipUnits shortens a window's first run in place: the old
		// window is scratch already, the new one is copied.
		op.newWin = append(op.newWin[:0], grp.rows...)
		oldWin = skipUnits(oldWin, op.spec.Offset)
		newWin = skipUnits(op.newWin, op.spec.Offset)
	}
	if op.spec.Number {
		op.emitNumbered(newWin, oldWin)
	} else {
		emitRunDiff(op.out, newWin, oldWin, op)
	}
	clear(op.newWin)
	op.account(grp)
	if invariants {
		op.checkGroup(grp)
	}
}

// account recounts a group's window in the operator's bytes, letting go
// of the input rows its entries hold encoded.
func (op *monoTopKOp) account(grp *monoTopKGroup) {
	op.bytes -= grp.bytes
	grp.bytes = int64(cap(grp.rows)) * sizeMonoTopKRun
	for i := range grp.rows {
		r := &grp.rows[i]
		grp.bytes += int64(len(r.item.e.key))
		if op.spec.SortKey != nil {
			// The row is in the entry; the input row is let go.
			r.item.row = nil
			continue
		}
		grp.bytes += rowBytes(r.item.row)
	}
	op.bytes += grp.bytes
}

// checkGroup panics unless the group's window is strictly ordered, of
// positive runs, and no longer than m units. It runs only under the
// invariants build tag.
func (op *monoTopKOp) checkGroup(grp *monoTopKGroup) {
	var units int64
	for i, r := range grp.rows {
		if r.n <= 0 || (i > 0 && op.compare(grp.rows[i-1].item, r.item) >= 0) {
			panic("dataflow: invariant: monotonic top-k window out of order")
		}
		units += r.n
	}
	if units != grp.units || units > op.m {
		panic("dataflow: invariant: monotonic top-k window miscounted")
	}
}

func (op *monoTopKOp) StateBytes() int64 {
	return op.bytes + int64(cap(op.groups))*sizePointer + op.changeBytes
}
