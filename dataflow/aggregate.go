package dataflow

import (
	"unsafe"

	"github.com/streamdb/streamdb/sql/types"
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
// AddAll adds a tick's delta to the groups' words, one call per
// aggregate rather than per row and aggregate, so that the aggregate
// runs one loop specialised to its kind and argument: row i (delta[i],
// its Diff times) goes to the words w.At(i), and is skipped when those
// are nil. A row whose addition fails is reported to fail and leaves its
// words as they were, as AggState.Update does; AddAll must take
// insertions and retractions in any order (its words are sums). Result
// has AggState.Result's contract over a group's Words words, all zero for
// an empty group, and must be safe to call from any goroutine: a GROUP
// BY view's Output keeps its groups' words and computes their results
// when it is read (see wordItem).
//
// Fallible reports whether Result can fail (a sum of int4 that leaves
// bigint's range): a Reduce that only looks for a group's error computes
// the results of these alone.
type FlatAggregate interface {
	Aggregate
	Words() int
	AddAll(delta Batch, w GroupWords, fail func(i int, err error))
	Result(w []int64) (types.Datum, error)
	Fallible() bool
}

// GroupWords locates, for each row of a delta, the words of one
// aggregate in the row's group: the aggregate's n words from off on in
// the group's words, which start at base[i], or none when base[i] is nil.
// One pointer per row serves every aggregate of a Reduce.
type GroupWords struct {
	base   []*int64
	off, n int
}

// NewGroupWords returns the words of an aggregate of n words at offset
// off of each row's group words base[i].
func NewGroupWords(base []*int64, off, n int) GroupWords {
	return GroupWords{base: base, off: off, n: n}
}

// At returns row i's words, nil when row i is to be skipped.
func (g GroupWords) At(i int) []int64 {
	p := g.base[i]
	if p == nil {
		return nil
	}
	return unsafe.Slice((*int64)(unsafe.Add(unsafe.Pointer(p), uintptr(g.off)*8)), g.n)
}
