package planner

import (
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/sql/pgerr"
)

// lowerAggregate computes group keys that are not plain columns as extra
// columns first (so that key errors travel as data), then reduces.
func lowerAggregate(lc *LowerContext, a *Aggregate) (dataflow.Node, error) {
	in, err := Lower(lc, a.Input)
	if err != nil {
		return in, err
	}
	width := len(a.Input.Columns())
	in, _, keyCols, err := columnKeys(lc, in, width, a.Keys)
	if err != nil {
		return in, err
	}
	spec := dataflow.ReduceSpec{Global: len(a.Keys) == 0}
	if len(keyCols) > 0 {
		spec.Key = pick(keyCols)
	}
	for _, call := range a.Aggs {
		agg, err := buildAggregate(lc, call)
		if err != nil {
			return in, err
		}
		spec.Aggs = append(spec.Aggs, agg)
	}
	return lc.Graph.Reduce(in, spec), nil
}

// buildAggregate compiles one aggregate call into the engine's aggregate.
func buildAggregate(lc *LowerContext, call AggCall) (dataflow.Aggregate, error) {
	if call.Builtin == SingleValue {
		col, ok := call.Args[0].(*scalar.ColRef)
		if !ok {
			return nil, pgerr.New(pgerr.InternalError, "single_value over an expression")
		}
		return singleValue{col: col.Idx}, nil
	}
	args := make([]scalar.Evaluator, len(call.Args))
	for i, e := range call.Args {
		ev, err := scalar.Compile(e)
		if err != nil {
			return nil, err
		}
		args[i] = ev
	}
	spec := scalar.AggSpec{Args: args, Distinct: call.Distinct, Eval: lc.Eval}
	if call.Filter != nil {
		p, err := scalar.CompilePredicate(call.Filter)
		if err != nil {
			return nil, err
		}
		spec.Filter = p
	}
	for _, k := range call.Order {
		ev, err := scalar.Compile(k.Expr)
		if err != nil {
			return nil, err
		}
		spec.Order = append(spec.Order, scalar.AggOrder{Eval: ev, Desc: k.Desc, NullsFirst: k.NullsFirst})
	}
	return call.Func.Build(spec)
}
