package scalar

import (
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
	"slices"
)

// AggFunc is an aggregate function overload. Build turns it, with the
// call's compiled arguments, FILTER, DISTINCT and ORDER BY, into the
// dataflow engine's Aggregate.
type AggFunc struct {
	Name   string
	Params []types.Type
	Ret    types.Type
	// Strict aggregates ignore input rows in which any argument is NULL
	// (all but count(*), array_agg, jsonb_agg and jsonb_object_agg's value).
	Strict bool

	// newAcc makes one group's accumulator for the concrete parameter
	// types.
	newAcc func(params []types.Type, ret types.Type) accumulator
	// ordered accumulators see their inputs in ORDER BY order: they are
	// fed from a per-group multiset rather than one row at a time.
	ordered bool
	// inputOrder marks the aggregates whose result depends on the order
	// of their inputs (string_agg, array_agg, the json aggregates): the
	// call's ORDER BY, or as a window function the window's, orders
	// their multiset. The others (min, max, bit_and) fold it by value.
	inputOrder bool
	empty      types.Datum
	// extreme marks min and max, which keep only their extreme over an
	// append-only input (extremeState).
	extreme extremeKind
}

// extremeKind tells min and max from the other aggregates.
type extremeKind int8

const (
	notExtreme extremeKind = iota
	extremeMin
	extremeMax
)

// AggOrder is one ORDER BY key inside an aggregate call.
type AggOrder struct {
	Eval       Evaluator
	Desc       bool
	NullsFirst bool
}

// AggSpec is a compiled aggregate call.
type AggSpec struct {
	// Args evaluate the arguments on an input row (none for count(*)).
	Args []Evaluator
	// ArgCols, when set, gives for each argument the input column it
	// is, or -1 for a computed one: a flat aggregate reads such a column
	// from the row instead of calling its evaluator for every row.
	ArgCols []int
	// Distinct aggregates each distinct argument tuple once.
	Distinct bool
	// Filter, if set, drops rows for which it is not true.
	Filter Predicate
	// Order sorts the inputs of order-sensitive aggregates.
	Order []AggOrder
	// Eval is the evaluation context for Args, Filter and Order.
	Eval *EvalContext
	// AppendOnly says the input never retracts a row (the planner's
	// append-only analysis), so that min and max may keep their extreme
	// alone.
	AppendOnly bool
}

// passes reports whether row passes the call's FILTER (every row does
// without one).
func (spec *AggSpec) passes(row types.Row) (bool, error) {
	if spec.Filter == nil {
		return true, nil
	}
	return spec.Filter(spec.Eval, row)
}

// InputOrdered reports whether the aggregate's result depends on the
// order of its inputs, so that as a window function it follows the
// window's ORDER BY.
func (f *AggFunc) InputOrdered() bool { return f.inputOrder }

// Empty returns the aggregate's value over no rows: 0 for count, NULL for
// the others.
func (f *AggFunc) Empty() types.Datum { return f.empty }

// Build returns the dataflow aggregate for one call.
func (f *AggFunc) Build(spec AggSpec) (dataflow.Aggregate, error) {
	if f.newAcc == nil {
		return nil, pgerr.New(pgerr.InternalError, "aggregate %s is not instantiated", f.Name)
	}
	if len(spec.Args) != len(f.Params) {
		return nil, pgerr.New(pgerr.InternalError, "aggregate %s built with %d arguments, wants %d", f.Name, len(spec.Args), len(f.Params))
	}
	a := &aggregate{fn: f, spec: spec}
	if f.extreme != notExtreme && spec.AppendOnly && len(spec.Order) == 0 {
		return extremeAgg{aggregate: a, max: f.extreme == extremeMax}, nil
	}
	if flat := flatten(a); flat != nil {
		return flat, nil
	}
	return a, nil
}

// accumulator is an aggregate's per-group state over evaluated arguments.
// add must leave the state unchanged when it fails.
type accumulator interface {
	add(args []types.Datum, diff int64) error
	result() (types.Datum, error)
}

type aggregate struct {
	fn   *AggFunc
	spec AggSpec
}

var (
	_ dataflow.Aggregate  = (*aggregate)(nil)
	_ dataflow.StateSizer = (*aggState)(nil)
)

// NewState returns an empty group state.
func (a *aggregate) NewState() dataflow.AggState {
	acc := a.fn.newAcc(a.fn.Params, a.fn.Ret)
	switch {
	case a.fn.ordered:
		s := &aggState{agg: a, args: make([]types.Datum, len(a.spec.Args))}
		s.set = newMultiset(a.spec.Distinct, !a.fn.inputOrder, acc.(orderedAccumulator))
		return s
	case a.spec.Distinct:
		s := &aggState{agg: a, args: make([]types.Datum, len(a.spec.Args))}
		s.distinct = map[string]*distinctKey{}
		s.acc = acc
		return s
	}
	return a.newPlainState(acc)
}

// newPlainState returns the state of an aggregate fed directly. The
// accumulators of count and of sums of integers, and a single argument's
// buffer, share one allocation with the state: Reduce reaches every
// touched group's states two or three times a tick, and on a state that
// has left the caches each separate object is one more miss.
func (a *aggregate) newPlainState(acc accumulator) *aggState {
	var s *aggState
	var args []types.Datum
	switch c := acc.(type) {
	case *countAcc:
		if len(a.spec.Args) == 0 {
			p := &struct {
				aggState
				acc countAcc
			}{acc: *c}
			s, acc = &p.aggState, &p.acc
			break
		}
		s, acc, args = withArg(*c)
	case *intSumAcc:
		s, acc, args = withArg(*c)
	default:
		s = &aggState{}
	}
	if len(args) != len(a.spec.Args) {
		args = make([]types.Datum, len(a.spec.Args))
	}
	s.agg, s.args, s.acc = a, args, acc
	return s
}

// withArg allocates a state, its accumulator (a copy of acc) and a
// one-argument buffer together (see newPlainState).
func withArg[A any, P interface {
	*A
	accumulator
}](acc A) (*aggState, accumulator, []types.Datum) {
	p := &struct {
		aggState
		acc A
		arg [1]types.Datum
	}{acc: acc}
	return &p.aggState, P(&p.acc), p.arg[:]
}

// aggState evaluates arguments, applies FILTER and strictness, and feeds
// the accumulator directly, through a DISTINCT counter, or through an
// ordered multiset.
type aggState struct {
	agg      *aggregate
	args     []types.Datum
	acc      accumulator
	distinct map[string]*distinctKey
	set      *multiset
	keyBuf   []byte
	exactBuf []byte
	// distinctBytes estimates the memory of the DISTINCT counts.
	distinctBytes int64
}

// distinctKey is one distinct argument tuple of a DISTINCT aggregate:
// the forms of it present, with their counts. Equal values may be
// written differently (numerics 7.8 and 7.80, intervals '1 day' and '24
// hours'), and the accumulator holds one of them, the representative:
// the form whose exact encoding is the least, as the multiset's DISTINCT
// takes, so that it does not depend on the order rows came in. When it
// goes, or a lesser form comes, the accumulator retracts the very form
// it was given and takes the new one: a numeric sum's scale is that of
// the forms it holds.
type distinctKey struct {
	forms []distinctForm
}

// distinctForm is one way an argument tuple is written: its exact
// encoding (types.AppendRow), its arguments and its count.
type distinctForm struct {
	exact string
	args  []types.Datum
	n     int64
}

// rep returns the representative form's index, -1 when none is present.
func (k *distinctKey) rep() int {
	r := -1
	for i, f := range k.forms {
		if f.n > 0 && (r < 0 || f.exact < k.forms[r].exact) {
			r = i
		}
	}
	return r
}

// update adds diff to the count of the form exact (args), returning the
// change of the memory it holds.
func (k *distinctKey) update(exact []byte, args []types.Datum, diff int64) int64 {
	for i := range k.forms {
		if f := &k.forms[i]; f.exact == string(exact) {
			if f.n += diff; f.n == 0 {
				k.forms = slices.Delete(k.forms, i, i+1)
				return -formBytes(len(exact), len(args))
			}
			return 0
		}
	}
	k.forms = append(k.forms, distinctForm{exact: string(exact), args: slices.Clone(args), n: diff})
	return formBytes(len(exact), len(args))
}

// formBytes estimates the memory of a distinctForm.
func formBytes(exact, args int) int64 { return int64(exact) + int64(args)*32 + 64 }

func (s *aggState) Update(row types.Row, diff int64) error {
	spec := &s.agg.spec
	if ok, err := spec.passes(row); err != nil || !ok {
		return err
	}
	for i, ev := range spec.Args {
		d, err := ev(spec.Eval, row)
		if err != nil {
			return err
		}
		if d.IsNull() && s.agg.fn.Strict {
			return nil
		}
		s.args[i] = d
	}
	switch {
	case s.set != nil:
		return s.set.add(spec, row, s.args, diff)
	case s.distinct != nil:
		return s.updateDistinct(diff)
	}
	return s.acc.add(s.args, diff)
}

// updateDistinct adds s.args diff times to a DISTINCT aggregate: the
// accumulator sees each distinct tuple once, through its representative
// (see distinctKey).
func (s *aggState) updateDistinct(diff int64) error {
	s.keyBuf = types.AppendKeyRow(s.keyBuf[:0], s.args)
	s.exactBuf = types.AppendRow(s.exactBuf[:0], s.args)
	k := s.distinct[string(s.keyBuf)]
	if k == nil {
		k = &distinctKey{}
		s.distinct[string(s.keyBuf)] = k
		s.distinctBytes += int64(len(s.keyBuf)) + 64
	}
	var before, after distinctForm
	if r := k.rep(); r >= 0 {
		before = k.forms[r]
	}
	s.distinctBytes += k.update(s.exactBuf, s.args, diff)
	if r := k.rep(); r >= 0 {
		after = k.forms[r]
	}
	if len(k.forms) == 0 {
		delete(s.distinct, string(s.keyBuf))
		s.distinctBytes -= int64(len(s.keyBuf)) + 64
	}
	if before.exact == after.exact && (before.args == nil) == (after.args == nil) {
		return nil
	}
	if before.args != nil {
		if err := s.acc.add(before.args, -1); err != nil {
			return err
		}
	}
	if after.args != nil {
		return s.acc.add(after.args, 1)
	}
	return nil
}

// StateBytes estimates the state's memory (dataflow.StateSizer): a fixed
// part for invertible accumulators, plus the multiset or DISTINCT counts.
func (s *aggState) StateBytes() int64 {
	n := int64(96) + s.distinctBytes
	if s.set != nil {
		n += s.set.bytes
	}
	return n
}

func (s *aggState) Result() (types.Datum, error) {
	if s.set != nil {
		return s.set.result()
	}
	return s.acc.result()
}

// IsAggregate reports whether name is an aggregate function.
func IsAggregate(name string) bool { return len(lib.aggs[name]) > 0 }

// ResolveAggregate picks the overload of aggregate name for the argument
// types (none for count(*)), with the same rules as ResolveFunc.
func ResolveAggregate(name string, args []types.Type, distinct bool) (*AggFunc, []types.Type, error) {
	aggs := lib.aggs[name]
	fs := make([]*Func, len(aggs))
	for i, a := range aggs {
		fs[i] = &Func{Name: a.Name, Params: a.Params, Ret: a.Ret}
	}
	c, err := resolve(fs, args, false)
	if err != nil {
		return nil, nil, funcError(err, name, args)
	}
	var chosen *AggFunc
	for i, f := range fs {
		if f == c.fn {
			chosen = aggs[i]
		}
	}
	f, targets, _ := finish(c, args)
	inst := *chosen
	inst.Params, inst.Ret = targets, f.Ret
	return &inst, targets, nil
}

func addAgg(fs ...*AggFunc) {
	for _, f := range fs {
		lib.aggs[f.Name] = append(lib.aggs[f.Name], f)
	}
}
