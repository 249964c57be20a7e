package scalar

import (
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/sql/types"
)

// flatAggregate is an aggregate whose accumulator is a few words
// (dataflow.FlatAggregate): count, sum and avg of integers, bool_and and
// bool_or, fed row by row (no DISTINCT, no ORDER BY). Reduce keeps the
// words inside its groups; Add and Result load them into the same
// accumulators an AggState would hold, on the stack, so the two forms
// compute identical results and errors.
type flatAggregate struct {
	*aggregate
	kind flatKind
	// numeric marks a sum of int8 (a numeric result); or marks bool_or.
	numeric, or bool
}

// flatKind is the accumulator a flatAggregate keeps in its words.
type flatKind int8

const (
	flatCountRows flatKind = iota // count(*): n
	flatCount                     // count(x): n
	flatIntSum                    // sum of integers: sum (hi, lo), n
	flatIntAvg                    // avg of integers: sum (hi, lo), n
	flatBool                      // bool_and, bool_or: trues, falses
)

var _ dataflow.FlatAggregate = (*flatAggregate)(nil)

// flatten returns a's flat form, or nil when its accumulator needs more
// than words.
func flatten(a *aggregate) *flatAggregate {
	if a.fn.ordered || a.spec.Distinct || len(a.spec.Order) > 0 {
		return nil
	}
	f := &flatAggregate{aggregate: a}
	switch acc := a.fn.newAcc(a.fn.Params, a.fn.Ret).(type) {
	case *countAcc:
		f.kind = flatCount
		if len(a.spec.Args) == 0 {
			f.kind = flatCountRows
		}
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
	if f.kind != flatCountRows && (len(a.spec.Args) != 1 || !a.fn.Strict) {
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

func (f *flatAggregate) Add(w []int64, row types.Row, diff int64) error {
	spec := &f.spec
	if ok, err := spec.passes(row); err != nil || !ok {
		return err
	}
	if f.kind == flatCountRows {
		w[0] += diff
		return nil
	}
	d, err := spec.Args[0](spec.Eval, row)
	if err != nil || d.IsNull() {
		return err
	}
	switch f.kind {
	case flatCount:
		w[0] += diff
	case flatIntSum, flatIntAvg:
		sum := int128{hi: w[0], lo: uint64(w[1])}
		if !sum.addMul(d.Int(), diff) {
			return errNumericOverflow()
		}
		w[0], w[1], w[2] = sum.hi, int64(sum.lo), w[2]+diff
	case flatBool:
		if d.Bool() {
			w[0] += diff
		} else {
			w[1] += diff
		}
	}
	return nil
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
		acc := boolAcc{t: w[0], f: w[1], or: f.or}
		return acc.result()
	}
	return types.NewInt8(w[0]), nil
}

// intSum loads a sum's words into its accumulator.
func (f *flatAggregate) intSum(w []int64) intSumAcc {
	return intSumAcc{sum: int128{hi: w[0], lo: uint64(w[1])}, n: w[2], numeric: f.numeric || f.kind == flatIntAvg}
}
