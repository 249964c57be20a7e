package dataflow

import (
	"bytes"
	"context"

	"github.com/tidwall/btree"

	"github.com/streamdb/streamdb/types"
)

// TopKSpec describes ORDER BY … OFFSET … LIMIT within groups. Group
// returns a row's group key (nil: one group); it may return a slice of the
// row. The order is given by SortKey or, when SortKey is nil, by Compare;
// rows equal under it are ordered by types.CompareRows, so the order is
// total and the result deterministic. Limit < 0 means no limit.
//
// SortKey appends a memcomparable encoding of the row's ORDER BY values
// (ColumnSortKey builds one). It is the fast path for large groups: the
// ordered state then compares inline byte prefixes, where Compare has to
// reach every row it compares, a cache miss each on a large state.
//
// Gate, when set, is bound to a MonotonicTopK built from the spec, so
// that an operator upstream can drop the rows it would refuse (see
// TopKGate); TopK ignores it. Number asks a MonotonicTopK with a limit
// and no offset to append each row's position in its group's window (see
// emitNumbered); TopK does not number.
type TopKSpec struct {
	Group   func(types.Row) types.Row
	SortKey func(dst []byte, row types.Row) []byte
	Compare func(a, b types.Row) int
	Offset  int64
	Limit   int64
	Gate    *TopKGate
	Number  bool
}

// TopK returns, for each group, the rows at positions [Offset,
// Offset+Limit) of the group in the spec's order, counting multiplicities.
//
// State: every row of every group, split in two at a boundary row. The
// head, the group's first rows up to and including the boundary, is kept
// decoded in order in a B-tree; the rest, every row after the boundary,
// in a hash table without order (see topKRest). The head always holds
// the first m units when the group has them (m = Offset+Limit, or Offset
// with no limit), so the output is read from the head alone. A change is
// routed by one comparison with the head's last row, which stays in the
// caches: a change after the boundary, nearly every change to a large
// group when m is small, costs a hash-table update — a few cache misses
// whatever the group's size — where an ordered insertion into the whole
// group costs a cache miss per level and, with a Compare, per
// comparison. The head spills its tail into the rest when it outgrows
// twice its target size (m+64 rows), and is refilled from the rest by a
// selection over the rest when deletions leave it short of m units; a
// refill moves an eighth of the rest (at least the target size), so the
// scans a run of deletions at the front of a group costs stay a constant
// per deletion.
//
// A tick touching a group costs O(m + c·log h) for the c changes that
// land in the head (h its size), O(1) for those that land in the rest,
// plus the amortized spills and refills: the first m rows before and after
// the changes are compared and their difference emitted. When the window
// was full and every change sorts after its last row, the window cannot
// have changed and nothing is compared. With no limit, the output is the
// group minus its first Offset rows, maintained at the same cost.
//
//	input:  +(3) +(1) +(2)   +(0)        -(1)
//	spec:   ORDER BY x LIMIT 2
//	output: +(1) +(2)        +(0) -(2)   -(1) +(2)
func (g *Graph) TopK(src Node, spec TopKSpec) Node {
	out := new(stream)
	op := &topKOp{g: g, in: g.input(src), out: out, spec: spec, index: newRowIndex()}
	return g.add(op, out)
}

type topKOp struct {
	g       *Graph
	in, out *stream
	spec    TopKSpec
	index   *rowIndex
	groups  []*topKGroup // by index position
	bytes   int64
	// Per-tick scratch: touched groups in order of first touch, the
	// delta's updates with the index of their group, the same sorted by
	// group, and the windows before and after.
	touched []*topKGroup
	changes []topKChange
	sorted  []topKChange
	oldRuns []run
	newRuns []run
	kbuf    []byte
	heap    []int32 // refill's selection
	// changeBytes estimates what changes holds until the tick's finish.
	changeBytes int64
}

type topKGroup struct {
	rows *btree.BTreeG[topKItem] // the head
	hint btree.PathHint
	// units counts the positive multiplicities in the head.
	units int64
	// limit is the head's size (in items) past which it spills.
	limit int
	// rest holds the rows after the head's last; nil until the first
	// spill.
	rest       *topKRest
	pos        int32
	tick       uint64
	idx        int
	changeSpan // the group's changes in topKOp.sorted
}

// topKItem is a row of a group in the group's B-tree. The comparisons of
// a search read only what the node holds inline, a cache miss each once
// the tree outgrows the caches, and never the entry: with a SortKey, head
// (the first sixteen bytes of the entry's key) settles most of them; with
// a Compare, the comparator reads the row's columns straight from row's
// array, where reaching them through the entry would cost a second miss
// per comparison.
type topKItem struct {
	head keyHead
	row  types.Row
	e    *topKEntry
}

// topKEntry is the multiplicity of an item's row, updated in place. With
// a SortKey, key is the sort key followed by the row's key encoding (the
// tiebreak that makes the order total).
type topKEntry struct {
	key string
	n   int64
}

// topKChange is an update as a tree item, built once. The item's entry
// may become the tree's and change afterwards; diff keeps the update's
// weight.
type topKChange struct {
	group int
	item  topKItem
	diff  int64
}

// run is a row with a multiplicity, an element of a window.
type run struct {
	item topKItem
	n    int64
}

const sizeTopKGroup = 200 + sizePointer

var _ operator = (*topKOp)(nil)

func (op *topKOp) Name() string { return "TopK" }

func (op *topKOp) Step(ctx context.Context) error {
	if err := op.absorb(ctx, 0); err != nil {
		return err
	}
	return op.finish(ctx)
}

// absorb records the changes of a delta, or of a final step's chunk, by
// group.
func (op *topKOp) absorb(context.Context, int) error {
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
		it := op.item(u.Row, u.Diff)
		op.changes = append(op.changes, topKChange{group: grp.idx, item: it, diff: u.Diff})
		op.changeBytes += sizeTopKItem + int64(len(it.e.key))
	}
	return nil
}

// finish applies the tick's changes group by group and emits the change
// of each group's window.
func (op *topKOp) finish(ctx context.Context) error {
	op.sortChanges()
	for _, grp := range op.touched {
		op.stepGroup(grp, op.sorted[grp.start:grp.end])
		if grp.rows.Len() == 0 && grp.rest.len() == 0 {
			op.index.remove(grp.pos)
			op.groups[grp.pos] = nil
			op.bytes -= sizeTopKGroup
		}
		if err := op.out.flushIfFull(ctx); err != nil {
			return err
		}
	}
	clear(op.touched)
	op.touched = op.touched[:0]
	clear(op.changes)
	op.changes = op.changes[:0]
	clear(op.sorted)
	op.sorted = op.sorted[:0]
	op.changeBytes = 0
	return nil
}

// item builds the tree item of a change: its entry holds the update's
// row and weight.
func (op *topKOp) item(row types.Row, n int64) topKItem {
	it := topKItem{row: row, e: &topKEntry{n: n}}
	if op.spec.SortKey != nil {
		op.kbuf = types.AppendKeyRow(op.spec.SortKey(op.kbuf[:0], row), row)
		it.e.key = string(op.kbuf)
		it.head = headOf(op.kbuf)
	}
	return it
}

func (op *topKOp) less(a, b topKItem) bool { return op.compare(a, b) < 0 }

func (op *topKOp) compare(a, b topKItem) int { return op.spec.compare(a, b) }

// compare orders two items of a group: by their keys with a SortKey,
// else by Compare, and rows equal under either by types.CompareRows.
func (s *TopKSpec) compare(a, b topKItem) int {
	if s.SortKey != nil {
		if c := a.head.compare(b.head); c != 0 {
			return c
		}
		return bytes.Compare(stored(a.e.key), stored(b.e.key))
	}
	if s.Compare != nil {
		if c := s.Compare(a.row, b.row); c != 0 {
			return c
		}
	}
	return types.CompareRows(a.row, b.row)
}

func (op *topKOp) lookup(row types.Row) *topKGroup {
	var key types.Row
	if op.spec.Group != nil {
		key = op.spec.Group(row)
	}
	return groupOf(op.index, &op.groups, key, func(pos int32) *topKGroup {
		op.bytes += sizeTopKGroup
		return &topKGroup{
			rows:  btree.NewBTreeGOptions(op.less, btree.Options{NoLocks: true}),
			pos:   pos,
			limit: 2 * op.headTarget(),
		}
	})
}

// sortChanges groups the tick's changes by group (a counting sort on the
// group index, stable within a group) into op.sorted.
func (op *topKOp) sortChanges() {
	op.sorted = bucketChanges(op.changes, func(c *topKChange) int { return c.group }, op.touched, op.sorted)
}

// stepGroup applies one group's changes and emits the change of its
// window.
func (op *topKOp) stepGroup(grp *topKGroup, changes []topKChange) {
	m := op.window()
	if m <= 0 {
		if op.spec.Limit < 0 {
			op.emitChanges(changes)
		}
		op.apply(grp, changes, m)
		op.balance(grp, m)
		return
	}
	var total int64
	op.oldRuns, total = op.prefix(grp, m, op.oldRuns[:0])
	if total == m && op.allAfter(changes, op.oldRuns[len(op.oldRuns)-1].item) {
		if op.spec.Limit < 0 {
			op.emitChanges(changes)
		}
		op.apply(grp, changes, m)
		op.balance(grp, m)
		clear(op.oldRuns)
		return
	}
	op.apply(grp, changes, m)
	op.balance(grp, m)
	op.newRuns, _ = op.prefix(grp, m, op.newRuns[:0])
	if op.spec.Limit >= 0 {
		op.emitDiff(skipUnits(op.newRuns, op.spec.Offset), skipUnits(op.oldRuns, op.spec.Offset))
	} else {
		// Output = group − first Offset rows, so Δout = Δgroup − Δprefix.
		op.emitChanges(changes)
		op.emitDiff(op.oldRuns, op.newRuns)
	}
	clear(op.oldRuns)
	clear(op.newRuns)
}

// window returns m, the number of units at the front of a group that
// the output depends on: Offset+Limit, or Offset with no limit.
func (op *topKOp) window() int64 {
	if op.spec.Limit < 0 {
		return op.spec.Offset
	}
	return op.spec.Offset + op.spec.Limit
}

// headTarget is the number of items a group's head keeps after a spill:
// the window and some slack, so that deletions in the window rarely
// leave the head short.
func (op *topKOp) headTarget() int {
	return int(min(max(op.window(), 0), 1<<30)) + 64
}

func (op *topKOp) emitChanges(changes []topKChange) {
	for _, c := range changes {
		op.out.delta = append(op.out.delta, Update{Row: c.item.row, Diff: c.diff})
	}
}

// allAfter reports whether every change sorts strictly after bound.
func (op *topKOp) allAfter(changes []topKChange, bound topKItem) bool {
	for _, c := range changes {
		if op.compare(c.item, bound) <= 0 {
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
		if item.e.n <= 0 {
			continue
		}
		take := min(item.e.n, m-total)
		dst = append(dst, run{item: item, n: take})
		total += take
	}
	it.Release()
	return dst, total
}

// apply adds the changes to the group: a change at or before the head's
// last row to the head, any other to the rest (see TopK). While the rest
// is empty every change goes to the head. A head that outgrows its limit
// spills at once, so that a large tick (a view's first, a one-tick
// query's only one) sends most of its rows to the rest, not into order.
func (op *topKOp) apply(grp *topKGroup, changes []topKChange, m int64) {
	for i := range changes {
		c := &changes[i]
		if grp.rest.len() == 0 {
			op.applyHead(grp, c)
		} else if last, ok := grp.rows.Max(); ok && op.compare(c.item, last) <= 0 {
			op.applyHead(grp, c)
		} else {
			op.applyRest(grp, c.item, c.diff)
			continue
		}
		if grp.rows.Len() > grp.limit {
			op.spill(grp, m)
		}
	}
}

// applyHead adds a change to the group's head. A change's item becomes
// the tree's when its row is new (one traversal); otherwise the stored
// entry's count changes in place. A stored row is a copy: the change's
// row may be carved from an upstream slab (see rowSlab) or share the
// storage of a larger row.
func (op *topKOp) applyHead(grp *topKGroup, c *topKChange) {
	cur, ok := grp.rows.GetHint(c.item, &grp.hint)
	if !ok {
		item := c.item
		item.row = item.row.Copy()
		op.insertHead(grp, item)
		return
	}
	was := cur.e.n
	cur.e.n += c.diff
	grp.units += max(cur.e.n, 0) - max(was, 0)
	if cur.e.n == 0 {
		grp.rows.DeleteHint(cur, &grp.hint)
		op.bytes -= sizeTopKItem + int64(len(cur.e.key)) + rowBytes(cur.row)
	}
}

// insertHead adds an item whose row the head does not hold; the head
// keeps the item, its row and its entry.
func (op *topKOp) insertHead(grp *topKGroup, item topKItem) {
	grp.rows.SetHint(item, &grp.hint)
	grp.units += max(item.e.n, 0)
	op.bytes += sizeTopKItem + int64(len(item.e.key)) + rowBytes(item.row)
}

// emitDiff emits a − b for two windows sorted in the group's order.
func (op *topKOp) emitDiff(a, b []run) { emitRunDiff(op.out, a, b, op) }

// itemOrder is a top-k operator's order of its items, and the rows they
// stand for.
type itemOrder interface {
	compare(a, b topKItem) int
	keptRow(it topKItem) types.Row
}

// keptRow returns an item's row, which TopK keeps decoded.
func (op *topKOp) keptRow(it topKItem) types.Row { return it.row }

// emitRunDiff appends a − b to out for two windows sorted in order.
func emitRunDiff(out *stream, a, b []run, order itemOrder) {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var c int
		switch {
		case j == len(b):
			c = -1
		case i == len(a):
			c = 1
		default:
			c = order.compare(a[i].item, b[j].item)
		}
		switch {
		case c < 0:
			out.delta = append(out.delta, Update{Row: order.keptRow(a[i].item), Diff: a[i].n})
			i++
		case c > 0:
			out.delta = append(out.delta, Update{Row: order.keptRow(b[j].item), Diff: -b[j].n})
			j++
		default:
			if d := a[i].n - b[j].n; d != 0 {
				out.delta = append(out.delta, Update{Row: order.keptRow(a[i].item), Diff: d})
			}
			i++
			j++
		}
	}
}

func (op *topKOp) StateBytes() int64 {
	return op.bytes + op.index.size() + int64(cap(op.groups))*sizePointer + op.changeBytes
}

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

// sizeTopKItem is a tree item in its node and its entry.
const sizeTopKItem = 16 + sizeSlice + sizePointer + sizeString + 8

// rowBytes estimates the memory of a decoded row kept in state.
func rowBytes(r types.Row) int64 {
	n := sizeSlice + int64(len(r))*sizeDatum
	for _, d := range r {
		n += int64(len(d.Str()))
	}
	return n
}
