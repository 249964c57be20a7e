package planner

import (
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner/scalar"
)

// lowerAggregate computes group keys that are not plain columns as extra
// columns first (so that key errors travel as data), then reduces.
func lowerAggregate(lc *LowerContext, a *Aggregate) (dataflow.Node, error) {
	in, err := Lower(lc, a.Input)
	if err != nil {
		return in, err
	}
	width := len(a.Input.Columns())
	aggs := a.Aggs
	var keyCols []int
	if narrowed, ok := narrowAggregate(a, width); ok {
		// The rows are mapped for computed keys anyway: the map keeps
		// only the columns the aggregates read.
		in, err = lowerProject(lc, in, narrowed.exprs, width)
		keyCols, aggs = narrowed.keyCols, narrowed.aggs
	} else {
		in, _, keyCols, err = columnKeys(lc, in, width, a.Keys)
	}
	if err != nil {
		return in, err
	}
	spec := dataflow.ReduceSpec{KeyCols: keyCols, Global: len(a.Keys) == 0}
	if a.Expires {
		wm, err := lc.columnWatermark(a, a.ExpireKey)
		if err != nil {
			return in, err
		}
		if wm != nil {
			spec.Expire = &dataflow.GroupExpiry{Key: a.ExpireKey, Watermark: wm}
		}
	}
	appendOnly := a.AppendOnly
	for _, call := range aggs {
		agg, err := buildAggregate(lc, call, appendOnly)
		if err != nil {
			return in, err
		}
		spec.Aggs = append(spec.Aggs, agg)
	}
	return lc.Graph.Reduce(in, spec), nil
}

// buildAggregate compiles one aggregate call into the engine's aggregate.
// appendOnly says the aggregate's input never retracts (see appendOnly).
func buildAggregate(lc *LowerContext, call AggCall, appendOnly bool) (dataflow.Aggregate, error) {
	if call.Builtin == SingleValue {
		col, ok := call.Args[0].(*scalar.ColRef)
		if !ok {
			return nil, pgerr.New(pgerr.InternalError, "single_value over an expression")
		}
		return singleValue{col: col.Idx}, nil
	}
	args := make([]scalar.Evaluator, len(call.Args))
	cols := make([]int, len(call.Args))
	for i, e := range call.Args {
		ev, err := scalar.Compile(e)
		if err != nil {
			return nil, err
		}
		args[i], cols[i] = ev, -1
		if c, ok := e.(*scalar.ColRef); ok {
			cols[i] = c.Idx
		}
	}
	spec := scalar.AggSpec{Args: args, ArgCols: cols, Distinct: call.Distinct, Eval: lc.Eval, AppendOnly: appendOnly}
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

// narrowedAggregate is an aggregate over a mapped input: exprs build the
// mapped rows, the columns the aggregates read followed by the group keys
// that are not plain columns; keyCols and aggs refer to the mapped rows.
type narrowedAggregate struct {
	exprs   []scalar.Expr
	keyCols []int
	aggs    []AggCall
}

// narrowAggregate plans the map of an aggregate with a computed group key
// so that it keeps only the input columns the keys and aggregates read,
// not whole rows: the reduce reads nothing else, and a wide input (a
// join's concatenated rows) would otherwise be copied whole. It reports
// false when no key is computed (the reduce reads the input as it is) or
// every column is read.
func narrowAggregate(a *Aggregate, width int) (narrowedAggregate, bool) {
	var set scalar.ColSet
	computed := false
	for _, k := range a.Keys {
		if c, ok := k.(*scalar.ColRef); ok {
			set.Add(c.Idx)
		} else {
			computed = true
		}
	}
	if !computed {
		return narrowedAggregate{}, false
	}
	add := func(e scalar.Expr) {
		if e != nil {
			for _, c := range scalar.ColumnsUsed(e) {
				set.Add(c)
			}
		}
	}
	for _, call := range a.Aggs {
		for _, e := range call.Args {
			add(e)
		}
		add(call.Filter)
		for _, o := range call.Order {
			add(o.Expr)
		}
	}
	used := set.Ordered()
	if len(used) == width {
		return narrowedAggregate{}, false
	}
	cols := a.Input.Columns()
	m := make([]int, width)
	for i := range m {
		m[i] = -1
	}
	var n narrowedAggregate
	for i, c := range used {
		m[c] = i
		n.exprs = append(n.exprs, &scalar.ColRef{Idx: c, Typ: cols[c].Type})
	}
	for _, k := range a.Keys {
		if c, ok := k.(*scalar.ColRef); ok {
			n.keyCols = append(n.keyCols, m[c.Idx])
			continue
		}
		n.keyCols = append(n.keyCols, len(n.exprs))
		n.exprs = append(n.exprs, k)
	}
	for _, call := range a.Aggs {
		c := call
		c.Args = make([]scalar.Expr, len(call.Args))
		for i, e := range call.Args {
			c.Args[i] = scalar.RemapColumns(e, m)
		}
		if call.Filter != nil {
			c.Filter = scalar.RemapColumns(call.Filter, m)
		}
		if call.Order != nil {
			c.Order = make([]SortKey, len(call.Order))
			for i, o := range call.Order {
				c.Order[i] = o
				c.Order[i].Expr = scalar.RemapColumns(o.Expr, m)
			}
		}
		n.aggs = append(n.aggs, c)
	}
	return n, true
}
