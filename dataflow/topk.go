package dataflow

import (
	"context"

	"github.com/tidwall/btree"

	"github.com/streamdb/streamdb/sql/types"
)

// TopKSpec describes ORDER BY … OFFSET … LIMIT within groups. Group
// returns a row's group key (nil: one group). Compare is the ORDER BY
// comparator; rows it considers equal are ordered by types.CompareRows, so
// the order is total and the result deterministic. Limit < 0 means no
// limit.
type TopKSpec struct {
	Group   func(types.Row) types.Row
	Compare func(a, b types.Row) int
	Offset  int64
	Limit   int64
}

// TopK returns, for each group, the rows at positions [Offset,
// Offset+Limit) of the group in Compare order, counting multiplicities.
//
// State: every row of every group, in one ordered tree per group (rows
// are kept decoded here, since the comparator works on rows). A tick
// touching a group costs O(m + c·log n), with m = Offset+Limit, c the
// group's changes and n its size: the first m rows before and after the
// changes are compared and their difference emitted. When the window was
// full and every change sorts after its last row, the window cannot have
// changed and nothing is compared. With no limit, the output is the group
// minus its first Offset rows, maintained at the same cost.
//
//	input:  +(3) +(1) +(2)   +(0)        -(1)
//	spec:   ORDER BY x LIMIT 2
//	output: +(1) +(2)        +(0) -(2)   -(1) +(2)
func (g *Graph) TopK(src Node, spec TopKSpec) Node {
	out := new(stream)
	op := &topKOp{g: g, in: g.input(src), out: out, spec: spec, groups: make(map[string]*topKGroup)}
	op.less = func(a, b *topKItem) bool { return op.compare(a.row, b.row) < 0 }
	return g.add(op, out)
}

type topKOp struct {
	g       *Graph
	in, out *stream
	spec    TopKSpec
	less    func(a, b *topKItem) bool
	groups  map[string]*topKGroup
	bytes   int64
	// Per-tick scratch: touched groups in order of first touch, the
	// delta's updates with the index of their group, the same sorted by
	// group, and the windows before and after.
	touched []*topKGroup
	changes []topKChange
	sorted  []Update
	oldRuns []run
	newRuns []run
	kbuf    []byte
}

type topKGroup struct {
	key  string
	rows *btree.BTreeG[*topKItem]
	tick uint64
	idx  int
	// start and end delimit the group's changes in topKOp.sorted.
	start, end int
}

type topKItem struct {
	row types.Row
	n   int64
}

type topKChange struct {
	group int
	u     Update
}

// run is a row with a multiplicity, an element of a window.
type run struct {
	row types.Row
	n   int64
}

const sizeTopKGroup = 160 + sizeString + sizePointer + sizeMapEntry

var _ operator = (*topKOp)(nil)

func (op *topKOp) Name() string { return "TopK" }

func (op *topKOp) Step(context.Context) error {
	op.out.passErrors(op.in)
	for _, u := range op.in.delta {
		if u.Diff == 0 {
			continue
		}
		grp := op.lookup(u.Row)
		if grp.tick != op.g.tick {
			grp.tick = op.g.tick
			grp.idx = len(op.touched)
			grp.start, grp.end = 0, 0
			op.touched = append(op.touched, grp)
		}
		op.changes = append(op.changes, topKChange{group: grp.idx, u: u})
	}
	op.sortChanges()
	for _, grp := range op.touched {
		op.stepGroup(grp, op.sorted[grp.start:grp.end])
		if grp.rows.Len() == 0 {
			delete(op.groups, grp.key)
			op.bytes -= sizeTopKGroup + int64(len(grp.key))
		}
	}
	clear(op.touched)
	op.touched = op.touched[:0]
	clear(op.changes)
	op.changes = op.changes[:0]
	clear(op.sorted)
	op.sorted = op.sorted[:0]
	return nil
}

func (op *topKOp) lookup(row types.Row) *topKGroup {
	var key types.Row
	if op.spec.Group != nil {
		key = op.spec.Group(row)
	}
	op.kbuf = types.AppendKeyRow(op.kbuf[:0], key)
	if grp := op.groups[string(op.kbuf)]; grp != nil {
		return grp
	}
	grp := &topKGroup{
		key:  string(op.kbuf),
		rows: btree.NewBTreeGOptions(op.less, btree.Options{NoLocks: true}),
	}
	op.groups[grp.key] = grp
	op.bytes += sizeTopKGroup + int64(len(grp.key))
	return grp
}

// sortChanges groups the tick's changes by group (a counting sort on the
// group index, stable within a group) into op.sorted.
func (op *topKOp) sortChanges() {
	for _, c := range op.changes {
		op.touched[c.group].end++
	}
	pos := 0
	for _, grp := range op.touched {
		n := grp.end
		grp.start, grp.end = pos, pos
		pos += n
	}
	op.sorted = append(op.sorted, make([]Update, len(op.changes))...)
	for _, c := range op.changes {
		grp := op.touched[c.group]
		op.sorted[grp.end] = c.u
		grp.end++
	}
}

// stepGroup applies one group's changes and emits the change of its
// window.
func (op *topKOp) stepGroup(grp *topKGroup, changes []Update) {
	m := op.spec.Offset + op.spec.Limit
	if op.spec.Limit < 0 {
		m = op.spec.Offset
	}
	if m <= 0 {
		if op.spec.Limit < 0 {
			op.out.delta = append(op.out.delta, changes...)
		}
		op.apply(grp, changes)
		return
	}
	var total int64
	op.oldRuns, total = op.prefix(grp, m, op.oldRuns[:0])
	if total == m && op.allAfter(changes, op.oldRuns[len(op.oldRuns)-1].row) {
		if op.spec.Limit < 0 {
			op.out.delta = append(op.out.delta, changes...)
		}
		op.apply(grp, changes)
		return
	}
	op.apply(grp, changes)
	op.newRuns, _ = op.prefix(grp, m, op.newRuns[:0])
	if op.spec.Limit >= 0 {
		op.emitDiff(skipUnits(op.newRuns, op.spec.Offset), skipUnits(op.oldRuns, op.spec.Offset))
	} else {
		// Output = group − first Offset rows, so Δout = Δgroup − Δprefix.
		op.out.delta = append(op.out.delta, changes...)
		op.emitDiff(op.oldRuns, op.newRuns)
	}
	clear(op.oldRuns)
	clear(op.newRuns)
}

func (op *topKOp) compare(a, b types.Row) int {
	if op.spec.Compare != nil {
		if c := op.spec.Compare(a, b); c != 0 {
			return c
		}
	}
	return types.CompareRows(a, b)
}

// allAfter reports whether every change sorts strictly after bound.
func (op *topKOp) allAfter(changes []Update, bound types.Row) bool {
	for _, u := range changes {
		if op.compare(u.Row, bound) <= 0 {
			return false
		}
	}
	return true
}

// prefix appends the group's first m rows (counting multiplicities) to
// dst as runs and returns them with their total multiplicity (< m when
// the group is smaller). Rows with non-positive counts, which only
// invalid input produces, are not part of any window.
func (op *topKOp) prefix(grp *topKGroup, m int64, dst []run) ([]run, int64) {
	var total int64
	it := grp.rows.Iter()
	for ok := it.First(); ok && total < m; ok = it.Next() {
		item := it.Item()
		if item.n <= 0 {
			continue
		}
		take := min(item.n, m-total)
		dst = append(dst, run{row: item.row, n: take})
		total += take
	}
	it.Release()
	return dst, total
}

// apply adds the changes to the group's tree.
func (op *topKOp) apply(grp *topKGroup, changes []Update) {
	for _, u := range changes {
		probe := topKItem{row: u.Row}
		if item, ok := grp.rows.Get(&probe); ok {
			item.n += u.Diff
			if item.n == 0 {
				grp.rows.Delete(item)
				op.bytes -= sizeTopKItem + rowBytes(item.row)
			}
			continue
		}
		// Copied: u.Row may be carved from an upstream slab (see rowSlab).
		grp.rows.Set(&topKItem{row: u.Row.Copy(), n: u.Diff})
		op.bytes += sizeTopKItem + rowBytes(u.Row)
	}
}

// emitDiff emits a − b for two windows sorted in the group's order.
func (op *topKOp) emitDiff(a, b []run) {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var c int
		switch {
		case j == len(b):
			c = -1
		case i == len(a):
			c = 1
		default:
			c = op.compare(a[i].row, b[j].row)
		}
		switch {
		case c < 0:
			op.out.delta = append(op.out.delta, Update{Row: a[i].row, Diff: a[i].n})
			i++
		case c > 0:
			op.out.delta = append(op.out.delta, Update{Row: b[j].row, Diff: -b[j].n})
			j++
		default:
			if d := a[i].n - b[j].n; d != 0 {
				op.out.delta = append(op.out.delta, Update{Row: a[i].row, Diff: d})
			}
			i++
			j++
		}
	}
}

func (op *topKOp) StateBytes() int64 { return op.bytes }

// skipUnits drops the first k units of multiplicity from runs, shortening
// the first remaining run in place.
func skipUnits(runs []run, k int64) []run {
	for len(runs) > 0 && k > 0 {
		if runs[0].n > k {
			runs[0].n -= k
			return runs
		}
		k -= runs[0].n
		runs = runs[1:]
	}
	return runs
}

// sizeTopKItem is a tree item and its slot in a node.
const sizeTopKItem = sizeSlice + 8 + 2*sizePointer

// rowBytes estimates the memory of a decoded row kept in state.
func rowBytes(r types.Row) int64 {
	n := sizeSlice + int64(len(r))*sizeDatum
	for _, d := range r {
		n += int64(len(d.Str()))
	}
	return n
}
