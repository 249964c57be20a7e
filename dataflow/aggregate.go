package dataflow

import "github.com/streamdb/streamdb/sql/types"

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
// delta row reaches its group's accumulators without another cache miss
// and with no call through an interface value per group, and a million
// groups cost the garbage collector no accumulator to trace. Reduce does
// not call NewState of a FlatAggregate; Window does.
//
// Add and Result have AggState's contracts (Update and Result), over a
// group's state w of Words words, all zero for an empty group, except
// that Add must take a tick's insertions and retractions in any order
// (its words are sums), so that Reduce applies a delta in one pass. Result
// must also be safe to call from any goroutine: a GROUP BY view's Output
// keeps its groups' words and computes their results when it is read
// (see wordItem).
//
// Fallible reports whether Result can fail (a sum of int4 that leaves
// bigint's range): a Reduce that only looks for a group's error computes
// the results of these alone.
type FlatAggregate interface {
	Aggregate
	Words() int
	Add(w []int64, row types.Row, diff int64) error
	Result(w []int64) (types.Datum, error)
	Fallible() bool
}
