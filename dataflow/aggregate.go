package dataflow

import (
	"github.com/streamdb/streamdb/internal/int128"
	"github.com/streamdb/streamdb/types"
)

// Aggregate is an aggregate function as Reduce sees it: a factory of
// per-group states. The planner supplies them (count, sum, min, string_agg
// ...); the engine knows nothing of their SQL meaning.
type Aggregate interface {
	NewState() AggState
}

// AggState is one group's accumulator for one aggregate.
//
// Update adds the row with weight diff; diff may be negative (a retraction)
// and of any magnitude. The state extracts its own arguments from the row.
// Reduce applies a tick's insertions before its retractions, so a state
// never sees a multiset with a negative count as long as the input
// collection itself stays non-negative. An Update that returns an error
// must leave the state unchanged: the error travels as data with the row's
// weight, and the row's retraction fails the same way and cancels it.
//
// Result returns the aggregate's value for the rows added so far (for no
// rows: count 0, sum NULL ...). It must be a pure function of the state:
// Reduce calls it before and after a tick's updates to find the change.
//
// Invertible aggregates (count, sum, avg) keep O(1) state; min and max
// must keep the multiset of their values to survive deletion of the
// current extreme.
type AggState interface {
	Update(row types.Row, diff int64) error
	Result() (types.Datum, error)
}

// StateSizer is implemented by aggregate states that can estimate their
// own memory, e.g. the value multisets of min and max. States that do not
// implement it are counted as sizeAggState bytes.
type StateSizer interface {
	StateBytes() int64
}

// sizeAggState is the assumed size of an accumulator that does not report
// its own: a small heap object behind an interface.
const sizeAggState = 32

// FlatAggregate is an Aggregate whose group state is a fixed number of
// words with no pointers: count, sums of integers, bool_and … Reduce
// keeps those words inside its group instead of an AggState object, so a
// delta row reaches its group's accumulators without another cache miss,
// and a million groups cost the garbage collector no accumulator to
// trace. Reduce does not call NewState of a FlatAggregate; Window does.
//
// Add adds a row, diff times, to a group's words w. A row whose addition
// fails leaves the words as they were, as AggState.Update does; Add must
// take insertions and retractions in any order (its words are sums).
// Inline returns the addition as a WordsOp when it is one, which Reduce
// then performs itself instead of calling Add. Result has
// AggState.Result's contract over a group's Words words, all zero for an
// empty group, and must be safe to call from any goroutine: a GROUP BY
// view's Output keeps its groups' words and computes their results when
// it is read (see wordItem).
//
// Fallible reports whether Result can fail (a sum of int4 that leaves
// bigint's range): a Reduce that only looks for a group's error computes
// the results of these alone.
type FlatAggregate interface {
	Aggregate
	Words() int
	Inline() (WordsOp, bool)
	Add(w []int64, row types.Row, diff int64) error
	Result(w []int64) (types.Datum, error)
	Fallible() bool
}

// WordsOp is an addition of a row to a FlatAggregate's words that Reduce
// performs itself, in its pass over a tick's delta: counting rows,
// counting an input column's values and summing an integer column, most
// of the aggregates of GROUP BY views. Each is a few instructions; a call
// of Add per row and aggregate made a 1,000-row change's tick under
// count(*) and a sum half as long again (BenchmarkViewUpdate).
type WordsOp struct {
	Kind WordsKind
	// Col is the input column counted or summed.
	Col int
	// Overflow is a SumColumn's error for a row that would take the sum
	// out of 128 bits.
	Overflow error
}

// WordsKind is what a WordsOp does with a row of weight diff.
type WordsKind int8

const (
	// CountRows adds diff to w[0].
	CountRows WordsKind = iota + 1
	// CountColumn adds diff to w[0] when column Col is not NULL.
	CountColumn
	// SumColumn adds, when column Col (an integer) is not NULL, its
	// value diff times to the sum in w[0] and w[1] (an int128.Int's Hi
	// and Lo) and diff to w[2].
	SumColumn
)

// Add adds row, diff times, to an aggregate's words w, and reports
// whether it could: not for a row too short for the column, which the
// aggregate's own Add computes. A sum that would overflow is left as it
// was and returns op.Overflow.
func (op *WordsOp) Add(w []int64, row types.Row, diff int64) (bool, error) {
	if op.Kind == CountRows {
		w[0] += diff
		return true, nil
	}
	if op.Col >= len(row) {
		return false, nil
	}
	d := &row[op.Col]
	switch {
	case d.IsNull():
	case op.Kind == CountColumn:
		w[0] += diff
	case !addSum(w, d.Int(), diff):
		return true, op.Overflow
	}
	return true, nil
}

// addSum adds v diff times to SumColumn's words w and reports whether
// the sum stayed within 128 bits; it leaves w as it was when not.
func addSum(w []int64, v, diff int64) bool {
	sum := int128.Int{Hi: w[0], Lo: uint64(w[1])}
	if !sum.AddMul(v, diff) {
		return false
	}
	w[0], w[1], w[2] = sum.Hi, int64(sum.Lo), w[2]+diff
	return true
}
