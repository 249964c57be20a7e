package scalar

import (
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/internal/int128"
	"github.com/streamdb/streamdb/types"
)

// flatAggregate is an aggregate whose accumulator is a few words
// (dataflow.FlatAggregate): count, sum and avg of integers, bool_and and
// bool_or, fed row by row (no DISTINCT, no ORDER BY). Reduce keeps the
// words inside its groups; Add and Result load them into the same
// accumulators an AggState would hold, on the stack, so the two forms
// compute identical results and errors. Reduce adds the rows of the
// common forms itself (Inline), in the same words.
type flatAggregate struct {
	*aggregate
	kind flatKind
	// numeric marks a sum of int8 (a numeric result); or marks bool_or.
	numeric, or bool
	// col is the input column the argument is, -1 if it is computed or
	// there is none (see AggSpec.ArgCols).
	col int
}

// flatKind is the accumulator a flatAggregate keeps in its words.
type flatKind int8

const (
	flatCount  flatKind = iota // count(*), count(x): n
	flatIntSum                 // sum of integers: sum (hi, lo), n
	flatIntAvg                 // avg of integers: sum (hi, lo), n
	flatBool                   // bool_and, bool_or: trues, falses
)

var _ dataflow.FlatAggregate = (*flatAggregate)(nil)

// flatten returns a's flat form, or nil when its accumulator needs more
// than words.
func flatten(a *aggregate) *flatAggregate {
	if a.fn.ordered || a.spec.Distinct || len(a.spec.Order) > 0 {
		return nil
	}
	f := &flatAggregate{aggregate: a, col: -1}
	if len(a.spec.ArgCols) == 1 {
		f.col = a.spec.ArgCols[0]
	}
	switch acc := a.fn.newAcc(a.fn.Params, a.fn.Ret).(type) {
	case *countAcc:
		f.kind = flatCount
	case *intSumAcc:
		f.kind, f.numeric = flatIntSum, acc.numeric
	case *avgAcc:
		if !acc.kind.IsInteger() {
			return nil
		}
		f.kind = flatIntAvg
	case *boolAcc:
		f.kind, f.or = flatBool, acc.or
	default:
		return nil
	}
	// Build checked the arity (none for count(*), else one); Add skips a
	// NULL argument, which only a strict aggregate may.
	if len(a.spec.Args) > 0 && !a.fn.Strict {
		return nil
	}
	return f
}

func (f *flatAggregate) Words() int {
	switch f.kind {
	case flatIntSum, flatIntAvg:
		return 3
	case flatBool:
		return 2
	}
	return 1
}

// Inline returns the addition of count(*), and of count, sum and avg of
// an integer input column with no FILTER, for Reduce to perform itself;
// their words are laid out as the WordsOp says (see intSum).
func (f *flatAggregate) Inline() (dataflow.WordsOp, bool) {
	spec := &f.spec
	switch {
	case spec.Filter != nil:
	case len(spec.Args) == 0:
		return dataflow.WordsOp{Kind: dataflow.CountRows}, true
	case f.col < 0:
	case f.kind == flatCount:
		return dataflow.WordsOp{Kind: dataflow.CountColumn, Col: f.col}, true
	case f.kind == flatIntSum || f.kind == flatIntAvg:
		return dataflow.WordsOp{Kind: dataflow.SumColumn, Col: f.col, Overflow: errNumericOverflow()}, true
	}
	return dataflow.WordsOp{}, false
}

// Add adds one row to a group's words w.
func (f *flatAggregate) Add(w []int64, row types.Row, diff int64) error {
	spec := &f.spec
	if ok, err := spec.passes(row); err != nil || !ok {
		return err
	}
	if len(spec.Args) == 0 {
		w[0] += diff
		return nil
	}
	// The argument is read in place when it is an input column: a Datum
	// is four words.
	var d *types.Datum
	if f.col >= 0 && f.col < len(row) {
		d = &row[f.col]
	} else {
		v, err := spec.Args[0](spec.Eval, row)
		if err != nil {
			return err
		}
		d = &v
	}
	if d.IsNull() {
		return nil
	}
	switch f.kind {
	case flatIntSum, flatIntAvg:
		return f.addInt(w, d.Int(), diff)
	case flatBool:
		acc := f.bools(w)
		if err := acc.add([]types.Datum{*d}, diff); err != nil {
			return err
		}
		w[0], w[1] = acc.t, acc.f
	default:
		w[0] += diff
	}
	return nil
}

// addInt adds v diff times to a sum's or average's words w.
func (f *flatAggregate) addInt(w []int64, v, diff int64) error {
	acc := f.intSum(w)
	if err := acc.addInt(v, diff); err != nil {
		return err
	}
	w[0], w[1], w[2] = acc.sum.Hi, int64(acc.sum.Lo), acc.n
	return nil
}

// Fallible: a sum of int2 or int4 may leave bigint's range; an average
// is computed in numeric arithmetic, which this does not vouch for. A
// sum of int8 is a numeric of at most 39 digits, a count a bigint.
func (f *flatAggregate) Fallible() bool {
	return f.kind == flatIntSum && !f.numeric || f.kind == flatIntAvg
}

func (f *flatAggregate) Result(w []int64) (types.Datum, error) {
	switch f.kind {
	case flatIntSum:
		acc := f.intSum(w)
		return acc.result()
	case flatIntAvg:
		acc := avgAcc{kind: f.fn.Params[0].Family, ints: f.intSum(w)}
		return acc.result()
	case flatBool:
		acc := f.bools(w)
		return acc.result()
	}
	acc := countAcc{n: w[0]}
	return acc.result()
}

// intSum loads a sum's words into its accumulator.
func (f *flatAggregate) intSum(w []int64) intSumAcc {
	return intSumAcc{sum: int128.Int{Hi: w[0], Lo: uint64(w[1])}, n: w[2], numeric: f.numeric}
}

// bools loads bool_and's or bool_or's words into its accumulator.
func (f *flatAggregate) bools(w []int64) boolAcc {
	return boolAcc{t: w[0], f: w[1], or: f.or}
}
