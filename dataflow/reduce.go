package dataflow

import (
	"context"
	"slices"
	"strings"
	"unsafe"

	"github.com/streamdb/streamdb/sql/pgerr"
	"github.com/streamdb/streamdb/sql/types"
)

// ReduceSpec describes a grouped aggregation. Key returns a row's group key
// (the GROUP BY columns); nil means one group with the empty key. Key may
// return a slice of the row itself, or a buffer it overwrites on its next
// call: Reduce copies a key only when it creates a group. Each output row
// is the key's columns followed by one column per aggregate. Global makes the empty-key group
// exist even when it has no rows, as SQL requires of an aggregate without
// GROUP BY (SELECT count(*) FROM empty_table returns one row, 0).
type ReduceSpec struct {
	Key    func(types.Row) types.Row
	Aggs   []Aggregate
	Global bool
}

// Reduce groups src by key and maintains the aggregates of every group.
//
// State is per group, never per input row: the group's output row (its
// key, then its aggregates' values), the number of rows in the group and
// one accumulator per aggregate, found through a hash index on the key
// (types.HashRow, equality by types.Compare). A group exists while its
// row count is positive. Per tick, each group the delta touches emits
// −old +new (or only +new when it appears, −old when it disappears), and
// nothing when its output did not change; untouched groups cost nothing.
//
//	input:  +(a, 1) +(a, 2) +(b, 5)   -(a, 1)           -(b, 5)
//	spec:   key (k), aggs count(*), sum(v)
//	output: +(a, 2, 3) +(b, 1, 5)     -(a, 2, 3) +(a, 1, 2)   -(b, 1, 5)
//
// When an aggregate's Result fails, the group's output is that error
// (weight +1) instead of a row, and it is retracted like a row.
func (g *Graph) Reduce(src Node, spec ReduceSpec) Node {
	out := new(stream)
	op := &reduceOp{g: g, in: g.input(src), out: out, spec: spec, index: newRowIndex()}
	return g.add(op, out)
}

type reduceOp struct {
	g       *Graph
	in, out *stream
	spec    ReduceSpec
	index   *rowIndex
	groups  []*group // by index position
	bytes   int64
	started bool
	// touched lists the groups changed in this tick, with whether they had
	// an output at the start of the tick.
	touched []touchedGroup
	news    []types.Datum
	// retract holds the tick's retractions until its insertions are in.
	retract []pendingRetraction
	// keyed is set when an Output keeps this Reduce's groups (see
	// Graph.Output): groups then carry their key encodings, a tick's
	// touched groups are finished in key order, so that the delta comes
	// out consolidated, and changes lists each changed group's new row
	// for the Output.
	keyed   bool
	kbuf    []byte
	changes []groupChange
}

type pendingRetraction struct {
	grp *group
	u   *Update
}

// group is one group's state. Up to two accumulators' interface values
// live inside the group itself: with a million groups each separate
// allocation is one more cache and TLB miss for every delta row that
// reaches the group.
//
// row is the group's output as last emitted: its key columns (which
// index.keys[pos] shares) and the aggregates' values, or before its first
// emission the key and zero values. An emitted row is never modified, so
// the group's next change emits this very row as its retraction instead
// of building the old output again: a tick computes each touched group's
// results once and allocates one row for it, not two.
type group struct {
	n      int64
	states []AggState
	tick   uint64
	pos    int32
	// emitted tells that row has left the operator and must not change.
	emitted bool
	row     types.Row
	// err is the group's output instead of row when its aggregates failed.
	err *pgerr.Error
	// size is the group's bytes for StateBytes, fixed at creation.
	size      int64
	statesBuf [2]AggState
	// kenc is the key encoding of the group's key and head its head,
	// kept only for an Output that holds the groups (reduceOp.keyed).
	kenc string
	head keyHead
}

// touchedGroup is a group changed in the current tick, with its key's
// head inline so that sorting the touched groups seldom reaches them.
type touchedGroup struct {
	grp     *group
	existed bool
	head    keyHead
}

// compareTouched orders touched groups by key encoding.
func compareTouched(a, b touchedGroup) int {
	if c := a.head.compare(b.head); c != 0 {
		return c
	}
	return strings.Compare(a.grp.kenc, b.grp.kenc)
}

const sizeGroup = int64(unsafe.Sizeof(group{})) + sizePointer

var _ operator = (*reduceOp)(nil)

func (op *reduceOp) Name() string { return "Reduce" }

func (op *reduceOp) Step(context.Context) error {
	op.out.passErrors(op.in)
	clear(op.changes)
	op.changes = op.changes[:0]
	if !op.started {
		op.started = true
		if op.spec.Global {
			// The empty group exists from the first tick on; it had no
			// output before.
			op.touch(op.lookup(nil, op.index.hash(nil)), false)
		}
	}
	op.apply()
	if op.keyed {
		slices.SortFunc(op.touched, compareTouched)
	}
	for i := range op.touched {
		op.finish(&op.touched[i])
	}
	clear(op.touched)
	op.touched = op.touched[:0]
	clear(op.news)
	return nil
}

// apply feeds the delta to the groups' accumulators: insertions first,
// then retractions, so that every intermediate multiset an accumulator
// sees is non-negative (see AggState). One pass finds each row's group
// and applies the insertions; the retractions wait in op.retract with
// their groups, so that a row is looked up once, and an update's −old
// +new, adjacent in a consolidated delta, once between them.
func (op *reduceOp) apply() {
	var last *group
	for i := range op.in.delta {
		u := &op.in.delta[i]
		if u.Diff == 0 {
			continue
		}
		var key types.Row
		if op.spec.Key != nil {
			key = op.spec.Key(u.Row)
		}
		grp := last
		if grp == nil || !equalRows(op.index.keys[grp.pos], key) {
			grp = op.lookup(key, op.index.hash(key))
			last = grp
		}
		if grp.tick != op.g.tick {
			op.touch(grp, op.exists(grp))
		}
		if u.Diff < 0 {
			op.retract = append(op.retract, pendingRetraction{grp: grp, u: u})
			continue
		}
		op.update(grp, u)
	}
	for _, r := range op.retract {
		op.update(r.grp, r.u)
	}
	clear(op.retract)
	op.retract = op.retract[:0]
}

// update adds one row to a group's count and accumulators.
func (op *reduceOp) update(grp *group, u *Update) {
	grp.n += u.Diff
	for _, st := range grp.states {
		if err := st.Update(u.Row, u.Diff); err != nil {
			op.out.errs = append(op.out.errs, ErrorUpdate{Err: dataError(err), Diff: u.Diff})
		}
	}
}

// lookup returns the group of key (hash h), creating it with fresh
// accumulators.
func (op *reduceOp) lookup(key types.Row, h uint64) *group {
	if p := op.index.find(key, h); p >= 0 {
		return op.groups[p]
	}
	// The key may share the input row's storage: it is copied.
	grp := &group{row: make(types.Row, len(key)+len(op.spec.Aggs))}
	copy(grp.row, key)
	grp.size = sizeGroup + rowBytes(grp.row)
	if op.keyed {
		op.kbuf = types.AppendKeyRow(op.kbuf[:0], key)
		grp.kenc, grp.head = string(op.kbuf), headOf(op.kbuf)
		grp.size += int64(len(grp.kenc))
	}
	grp.pos = op.index.insert(grp.row[:len(key):len(key)], h)
	if n := len(op.spec.Aggs); n <= len(grp.statesBuf) {
		grp.states = grp.statesBuf[:n:n]
	} else {
		grp.states = make([]AggState, n)
		grp.size += int64(n) * (2 * sizePointer)
	}
	for i, a := range op.spec.Aggs {
		grp.states[i] = a.NewState()
	}
	if int(grp.pos) == len(op.groups) {
		op.groups = append(op.groups, grp)
	} else {
		op.groups[grp.pos] = grp
	}
	op.bytes += grp.size
	return grp
}

// exists reports whether grp has an output row.
func (op *reduceOp) exists(grp *group) bool {
	return grp.n > 0 || (op.spec.Global && len(op.index.keys[grp.pos]) == 0)
}

// touch records that grp changes in this tick and whether it had an
// output before (its row or err, which stay as they are until finish).
func (op *reduceOp) touch(grp *group, existed bool) {
	grp.tick = op.g.tick
	op.touched = append(op.touched, touchedGroup{grp: grp, existed: existed, head: grp.head})
}

// finish emits the change of one touched group and drops the group if it
// no longer has rows.
func (op *reduceOp) finish(t *touchedGroup) {
	grp := t.grp
	exists := op.exists(grp)
	var newErr *pgerr.Error
	op.news = op.news[:0]
	if exists {
		op.news, newErr = appendResults(op.news, grp.states)
	}
	nk := len(grp.row) - len(grp.states)
	order := 0
	if t.existed && exists {
		var same bool
		if same, order = compareResults(grp.row[nk:], grp.err, op.news, newErr); same {
			return
		}
	}
	start := len(op.out.delta)
	op.replace(t, exists, newErr, nk)
	if op.keyed {
		op.changed(grp, exists && newErr == nil, start, order)
	}
}

// replace emits a touched group's −old +new, with its new results in
// op.news (or newErr), and drops the group if it no longer has rows.
func (op *reduceOp) replace(t *touchedGroup, exists bool, newErr *pgerr.Error, nk int) {
	grp := t.grp
	if t.existed {
		op.emit(grp.row, grp.err, -1)
	}
	if !exists {
		if grp.n == 0 {
			op.bytes -= grp.size
			op.index.remove(grp.pos)
			op.groups[grp.pos] = nil
		}
		return
	}
	grp.err = newErr
	if newErr != nil {
		op.emit(nil, newErr, +1)
		return
	}
	if grp.emitted {
		row := make(types.Row, len(grp.row))
		copy(row, grp.row[:nk])
		grp.row = row
		op.index.keys[grp.pos] = row[:nk:nk]
	}
	copy(grp.row[nk:], op.news)
	grp.emitted = true
	op.emit(grp.row, nil, +1)
}

// changed records the change of a group in a keyed Reduce: its new row,
// or nil when it has none (no rows, or an error). It also puts the
// group's −old +new, emitted from start on, in row order (order compares
// the new row with the old), so that the delta stays consolidated. When
// they compare equal (a result that changed representation only) it
// drops both and leaves the Output its old row, as consolidation would.
func (op *reduceOp) changed(grp *group, hasRow bool, start, order int) {
	if d := op.out.delta[start:]; len(d) == 2 {
		switch {
		case order == 0:
			clear(d)
			op.out.delta = op.out.delta[:start]
			return
		case order < 0:
			d[0], d[1] = d[1], d[0]
		}
	}
	var row types.Row
	if hasRow {
		row = grp.row
	}
	op.changes = append(op.changes, groupChange{kenc: grp.kenc, row: row})
}

// emit outputs a group's row or, when its aggregates failed, the error.
func (op *reduceOp) emit(row types.Row, err *pgerr.Error, diff int64) {
	if err != nil {
		op.out.errs = append(op.out.errs, ErrorUpdate{Err: err, Diff: diff})
		return
	}
	op.out.delta = append(op.out.delta, Update{Row: row, Diff: diff})
}

func (op *reduceOp) StateBytes() int64 {
	n := op.bytes + op.index.size() + int64(cap(op.groups))*sizePointer
	for _, grp := range op.groups {
		if grp == nil {
			continue
		}
		for _, st := range grp.states {
			if s, ok := st.(StateSizer); ok {
				n += s.StateBytes()
			} else {
				n += sizeAggState
			}
		}
	}
	return n
}

// appendResults appends the aggregates' results to dst; on the first
// failure it returns the error instead (the group's output is the error).
func appendResults(dst []types.Datum, states []AggState) ([]types.Datum, *pgerr.Error) {
	start := len(dst)
	for _, st := range states {
		d, err := st.Result()
		if err != nil {
			return append(dst[:start], make([]types.Datum, len(states))...), dataError(err)
		}
		dst = append(dst, d)
	}
	return dst, nil
}

// sameResults reports whether results b (or error bErr) are the same as
// results a (or aErr); see compareResults.
func sameResults(a []types.Datum, aErr *pgerr.Error, b []types.Datum, bErr *pgerr.Error) bool {
	same, _ := compareResults(a, aErr, b, bErr)
	return same
}

// compareResults reports whether a group's new results b (or error bErr)
// are the same as its old ones a (or aErr), equal and of the same kinds,
// and, when both are rows, how b compares with a (types.CompareRows).
func compareResults(a []types.Datum, aErr *pgerr.Error, b []types.Datum, bErr *pgerr.Error) (same bool, order int) {
	if aErr != nil || bErr != nil {
		return aErr != nil && bErr != nil && compareErrors(aErr, bErr) == 0, 0
	}
	same = true
	for i := range a {
		if c := types.Compare(b[i], a[i]); c != 0 {
			return false, c
		}
		if a[i].Kind() != b[i].Kind() {
			same = false
		}
	}
	return same, 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
