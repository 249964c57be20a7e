package dataflow

import (
	"context"
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
}

type touchedGroup struct {
	grp     *group
	existed bool
}

const sizeGroup = int64(unsafe.Sizeof(group{})) + sizePointer

var _ operator = (*reduceOp)(nil)

func (op *reduceOp) Name() string { return "Reduce" }

func (op *reduceOp) Step(context.Context) error {
	op.out.passErrors(op.in)
	if !op.started {
		op.started = true
		if op.spec.Global {
			// The empty group exists from the first tick on; it had no
			// output before.
			op.touch(op.lookup(nil, op.index.hash(nil)), false)
		}
	}
	op.apply()
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
	op.touched = append(op.touched, touchedGroup{grp: grp, existed: existed})
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
	if t.existed && exists && sameResults(grp.row[nk:], grp.err, op.news, newErr) {
		return
	}
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

func sameResults(a []types.Datum, aErr *pgerr.Error, b []types.Datum, bErr *pgerr.Error) bool {
	if aErr != nil || bErr != nil {
		return aErr != nil && bErr != nil && compareErrors(aErr, bErr) == 0
	}
	for i := range a {
		if types.Compare(a[i], b[i]) != 0 || a[i].Kind() != b[i].Kind() {
			return false
		}
	}
	return true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
