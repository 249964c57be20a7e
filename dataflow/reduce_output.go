package dataflow

import (
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// finishTouched emits the change of one touched group and drops the
// group if it no longer has rows.
func (op *reduceOp) finishTouched(t *touchedGroup) {
	grp := op.groups.at(t.pos)
	exists := op.exists(t.pos)
	var newErr *pgerr.Error
	op.news = op.news[:0]
	if exists {
		op.news, newErr = op.appendResults(op.news, t.pos)
	}
	nk := len(grp.row) - len(op.aggs)
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
		op.changed(t.kenc, exists && newErr == nil, start, order, grp.row)
	}
}

// finishWords is finish in words mode, for the tick's touched groups,
// which touch listed in wchanges with whether they had an output: a
// group whose words did not change has not changed and leaves the list;
// any other stays, with whether it had and has a row. Its results are
// computed only to find an error, when an aggregate's result can fail
// (reduceOp.fallible), which is emitted as in finish.
//
// The common change, of a group that had a row and keeps it, under
// aggregates that cannot fail and words the group holds itself, is
// decided here; finishGroup, a call per group, made the 1,000-row
// update tick of BenchmarkViewUpdate 7% longer. The kept changes are
// compacted in place, each copied to its slot before its fields are
// set there: a copy of the change after its fields were written one by
// one waited on the stores (a store-forwarding stall, 70% of the loop's
// own time in perf; the tick took 4% longer).
func (op *reduceOp) finishWords() {
	common := !op.fallible && op.stride <= groupWords
	n := 0
	for i := range op.wchanges {
		c := &op.wchanges[n]
		*c = op.wchanges[i]
		if grp := op.groups.at(c.pos); common && c.had && grp.n > 0 {
			if grp.words != op.olds[c.old] {
				c.has = true
				n++
			}
			continue
		}
		if op.finishGroup(c) {
			n++
		}
	}
	op.wchanges = op.wchanges[:n]
}

// finishGroup finishes the touched group of c, which says on entry
// whether it had an output, and reports whether the Output must hear
// of its change.
func (op *reduceOp) finishGroup(c *wordsChange) bool {
	grp := op.groups.at(c.pos)
	existed, exists := c.had, op.exists(c.pos)
	var words []int64
	var same bool
	if op.stride > groupWords {
		words = op.words(c.pos)
		same = slices.Equal(words, op.oldWords(c.old))
	} else {
		words, same = grp.words[:op.stride], grp.words == op.olds[c.old]
	}
	if existed && exists && same {
		return false
	}
	var newErr, oldErr *pgerr.Error
	if exists && op.fallible {
		newErr = op.wordsError(words)
	}
	if existed && grp.failed {
		oldErr = grp.err
	}
	if oldErr == nil || newErr == nil || compareErrors(oldErr, newErr) != 0 {
		if oldErr != nil {
			op.emit(nil, oldErr, -1)
		}
		if newErr != nil {
			op.emit(nil, newErr, +1)
		}
	}
	if newErr != nil || grp.failed {
		grp.err, grp.failed = newErr, newErr != nil
	}
	c.had, c.has = existed && oldErr == nil, exists && newErr == nil
	dropped := !exists && grp.n == 0
	if dropped && c.had {
		c.drop = int32(len(op.dropped))
		op.dropped = append(op.dropped, grp.key())
	}
	if dropped {
		op.bytes -= grp.size
		op.index.remove(c.pos)
		*grp = group{}
	}
	return c.had || c.has
}

// oldWords returns the words a touched group had before the tick, in
// words mode; i is its wordsChange.old.
func (op *reduceOp) oldWords(i int32) []int64 {
	if op.stride > groupWords {
		return op.wideOlds[i][:op.stride]
	}
	return op.olds[i][:op.stride]
}

// wordsError returns the error of the first aggregate whose result over
// a group's words w fails, nil if none does.
func (op *reduceOp) wordsError(w []int64) *pgerr.Error {
	for _, a := range op.aggs {
		if !a.fallible {
			continue
		}
		if _, err := a.flat.Result(w[a.off : a.off+a.n : a.off+a.n]); err != nil {
			return dataError(err)
		}
	}
	return nil
}

// appendWordsDelta appends the tick's changes in words mode as rows,
// −old +new in row order, for readers of the Output's delta: the rows
// are built only when one asks for them (Output.Delta).
func (op *reduceOp) appendWordsDelta(dst Batch, changes []keyedChange) Batch {
	for i := range changes {
		c := &changes[i]
		var oldRow, newRow types.Row
		if c.had {
			oldRow = wordsRow(op.aggs, c.key, op.oldWords(c.old))
		}
		if c.has {
			newRow = wordsRow(op.aggs, c.key, op.words(c.pos))
		}
		switch {
		case !c.has:
			dst = append(dst, Update{Row: oldRow, Diff: -1})
		case !c.had:
			dst = append(dst, Update{Row: newRow, Diff: +1})
		default:
			// A result that changed representation only is no change,
			// as consolidation would make it.
			_, order := compareResults(oldRow[len(c.key):], nil, newRow[len(c.key):], nil)
			switch {
			case order < 0:
				dst = append(dst, Update{Row: newRow, Diff: +1}, Update{Row: oldRow, Diff: -1})
			case order > 0:
				dst = append(dst, Update{Row: oldRow, Diff: -1}, Update{Row: newRow, Diff: +1})
			}
		}
	}
	return dst
}

// wordsRow builds the output row of a group in words mode from its key
// and words w. Results are a function of the words, and a group has a
// row only when they did not fail, so a failure here is a broken
// FlatAggregate.
func wordsRow(aggs []reduceAgg, key types.Row, w []int64) types.Row {
	row := make(types.Row, len(key), len(key)+len(aggs))
	copy(row, key)
	for _, a := range aggs {
		d, err := a.flat.Result(w[a.off : a.off+a.n : a.off+a.n])
		if err != nil {
			panic(fmt.Sprintf("dataflow: flat aggregate failed on words it succeeded on: %v", err))
		}
		row = append(row, d)
	}
	return row
}

// appendResults appends the aggregates' results of the group at pos to
// dst; on the first failure it returns the error instead (the group's
// output is the error).
func (op *reduceOp) appendResults(dst []types.Datum, pos int32) ([]types.Datum, *pgerr.Error) {
	start := len(dst)
	grp := op.groups.at(pos)
	var words []int64
	if op.stride > 0 {
		words = op.words(pos)
	}
	for _, a := range op.aggs {
		var d types.Datum
		var err error
		if a.flat != nil {
			d, err = a.flat.Result(words[a.off : a.off+a.n : a.off+a.n])
		} else {
			d, err = grp.states(op.nstates)[a.off].Result()
		}
		if err != nil {
			return append(dst[:start], make([]types.Datum, len(op.aggs))...), dataError(err)
		}
		dst = append(dst, d)
	}
	return dst, nil
}

// replace emits a touched group's −old +new, with its new results in
// op.news (or newErr), and drops the group if it no longer has rows.
func (op *reduceOp) replace(t *touchedGroup, exists bool, newErr *pgerr.Error, nk int) {
	grp := op.groups.at(t.pos)
	if t.existed {
		op.emit(grp.row, grp.err, -1)
	}
	if !exists {
		if grp.n == 0 {
			op.bytes -= grp.size + statesBytes(grp.states(op.nstates))
			op.index.remove(t.pos)
			*grp = group{}
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
		op.index.keys[t.pos] = row[:nk:nk]
	}
	copy(grp.row[nk:], op.news)
	grp.emitted = true
	op.emit(grp.row, nil, +1)
}

// changed records the change of a group in a keyed Reduce: its new row,
// or none when it has none (no rows, or an error). It also puts the
// group's −old +new, emitted from start on, in row order (order compares
// the new row with the old), so that the delta stays consolidated. When
// they compare equal (a result that changed representation only) it
// drops both and leaves the Output its old row, as consolidation would.
func (op *reduceOp) changed(kenc string, hasRow bool, start, order int, row types.Row) {
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
	if !hasRow {
		row = nil
	}
	op.changes = append(op.changes, groupChange{kenc: kenc, row: row})
}

// emit outputs a group's row or, when its aggregates failed, the error.
func (op *reduceOp) emit(row types.Row, err *pgerr.Error, diff int64) {
	if err != nil {
		op.out.errs = append(op.out.errs, ErrorUpdate{Err: err, Diff: diff})
		return
	}
	op.out.delta = append(op.out.delta, Update{Row: row, Diff: diff})
	op.out.built(row)
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
