package planner

import (
	"fmt"
	"slices"
	"sort"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// Decorrelation removes every subquery and Apply from a plan, in two
// rules:
//
//  1. subqueriesToApply replaces each Subquery expression by a column that
//     an Apply computes: EXISTS and quantified comparisons become counts
//     over the subquery, scalar subqueries its single value. Conjuncts of a
//     WHERE that are EXISTS, NOT EXISTS or IN become semi and anti joins
//     directly when their correlation is a plain predicate.
//  2. removeApply turns each Apply into joins (Neumann and Kemper,
//     "Unnesting Arbitrary Queries", BTW 2015): the subquery is computed
//     once for the distinct values of the outer columns it reads (the
//     domain) by pushing the domain down through it, and joined back on
//     those values. Equality correlations then become equi-joins, so a
//     correlated subquery costs joins, never a per-row evaluation. A
//     recursive query inside the subquery runs once for the whole domain,
//     its rows carrying their domain values through the iterations.

// subqueriesToApply rewrites the nodes whose expressions hold subqueries.
func subqueriesToApply(n Node) (Node, error) {
	var err error
	out := RewriteNodes(n, func(n Node) Node {
		if err != nil || !hasSubquery(n) {
			return n
		}
		var r Node
		r, err = unnestNode(n)
		return r
	})
	return out, err
}

// hasSubquery reports whether n's own expressions hold a subquery.
func hasSubquery(n Node) bool {
	return slices.ContainsFunc(NodeExprs(n), exprHasSubquery)
}

// exprHasSubquery reports whether e holds a subquery.
func exprHasSubquery(e scalar.Expr) bool {
	found := false
	scalar.Walk(e, func(x scalar.Expr) bool {
		if _, ok := x.(*Subquery); ok {
			found = true
		}
		return !found
	})
	return found
}

func unnestNode(n Node) (Node, error) {
	switch x := n.(type) {
	case *Filter:
		input, rest, err := semiJoins(x.Input, scalar.Conjuncts(x.Pred))
		if err != nil {
			return nil, err
		}
		if len(rest) == 0 {
			return input, nil
		}
		width := len(input.Columns())
		input, pred, err := applySubqueries(input, scalar.NewAnd(subqueriesLast(rest)))
		if err != nil {
			return nil, err
		}
		return keepColumns(&Filter{Input: input, Pred: pred}, width), nil
	case *Project:
		input := x.Input
		exprs := make([]scalar.Expr, len(x.Exprs))
		for i, e := range x.Exprs {
			var err error
			if input, exprs[i], err = applySubqueries(input, e); err != nil {
				return nil, err
			}
		}
		return &Project{Input: input, Exprs: exprs, Cols: x.Cols}, nil
	case *Window:
		return unnestWindow(x)
	case *FlatMap:
		return unnestFlatMap(x)
	case *Join:
		if x.Kind != InnerJoin {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "subqueries in the condition of an outer join are not supported")
		}
		cross := &Join{Kind: InnerJoin, Left: x.Left, Right: x.Right, On: trueExpr()}
		return unnestNode(&Filter{Input: cross, Pred: x.On})
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "subqueries are not supported in this position")
}

// unnestWindow computes the subqueries of window function arguments
// (lag(x, (SELECT …))) as columns of the window's input, which the
// window's output then drops again.
func unnestWindow(w *Window) (Node, error) {
	input := w.Input
	width := len(input.Columns())
	calls := make([]WindowCall, len(w.Calls))
	for i, c := range w.Calls {
		c.Args = slices.Clone(c.Args)
		for j, a := range c.Args {
			var err error
			if input, c.Args[j], err = applySubqueries(input, a); err != nil {
				return nil, err
			}
		}
		calls[i] = c
	}
	if c := w.Order; slices.ContainsFunc(c, func(k SortKey) bool { return exprHasSubquery(k.Expr) }) {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "subqueries in a window's ORDER BY are not supported")
	}
	out := &Window{Input: input, PartitionBy: w.PartitionBy, Order: w.Order, Calls: calls, Cols: w.Cols}
	return withoutColumns(out, width, len(input.Columns())-width), nil
}

// unnestFlatMap computes the subqueries of a set-returning function's
// arguments (unnest((SELECT array_agg(…) …)), as pgcli's foreign-key
// query calls it) as columns of its input, which its output then drops
// again.
func unnestFlatMap(f *FlatMap) (Node, error) {
	input := f.Input
	width := len(input.Columns())
	args := slices.Clone(f.Args)
	for i, a := range args {
		var err error
		if input, args[i], err = applySubqueries(input, a); err != nil {
			return nil, err
		}
	}
	out := &FlatMap{Input: input, Func: f.Func, Args: args, Cols: f.Cols, Ordinality: f.Ordinality}
	return withoutColumns(out, width, len(input.Columns())-width), nil
}

// withoutColumns projects away the n columns of node that start at from.
func withoutColumns(node Node, from, n int) Node {
	if n == 0 {
		return node
	}
	var exprs []scalar.Expr
	var keep []Column
	for i, c := range node.Columns() {
		if i >= from && i < from+n {
			continue
		}
		exprs = append(exprs, &scalar.ColRef{Idx: i, Typ: c.Type})
		keep = append(keep, c)
	}
	return &Project{Input: node, Exprs: exprs, Cols: keep}
}

func trueExpr() scalar.Expr { return scalar.NewConst(types.DTrue, types.TypeBool) }

// keepColumns projects n onto its first width columns.
func keepColumns(n Node, width int) Node {
	cols := n.Columns()
	if len(cols) == width {
		return n
	}
	exprs := make([]scalar.Expr, width)
	for i := range exprs {
		exprs[i] = &scalar.ColRef{Idx: i, Typ: cols[i].Type}
	}
	return &Project{Input: n, Exprs: exprs, Cols: cols[:width]}
}

// semiJoins turns the conjuncts EXISTS(q), NOT EXISTS(q) and x IN (q) into
// semi and anti joins when q's correlation can be lifted into the join
// condition. It returns the new input and the conjuncts left over.
func semiJoins(input Node, conjuncts []scalar.Expr) (Node, []scalar.Expr, error) {
	var rest []scalar.Expr
	for _, c := range conjuncts {
		sq, _ := c.(*Subquery)
		anti := false
		if not, ok := c.(*scalar.Not); ok {
			if s, ok := not.Arg.(*Subquery); ok && s.Kind == ExistsSubquery {
				sq, anti = s, true
			}
		}
		// A subquery among IN's left operands stays for applySubqueries,
		// which turns it into an Apply before the IN's own: a join
		// condition cannot hold one.
		if sq == nil || !(sq.Kind == ExistsSubquery || (sq.Kind == AnySubquery && !anti && allEq(sq.Ops))) || slices.ContainsFunc(sq.Args, exprHasSubquery) {
			rest = append(rest, c)
			continue
		}
		plan, err := subqueriesToApply(sq.Plan)
		if err != nil {
			return nil, nil, err
		}
		right, preds, outExprs, ok := liftCorrelation(plan)
		if !ok {
			rest = append(rest, c)
			continue
		}
		lw := len(input.Columns())
		var on []scalar.Expr
		for _, p := range preds {
			on = append(on, intoJoin(p, lw))
		}
		if sq.Kind == AnySubquery {
			for i, a := range sq.Args {
				on = append(on, &scalar.Call{Fn: sq.Ops[i], Args: []scalar.Expr{a, intoJoin(outExprs[i], lw)}})
			}
		}
		kind := SemiJoin
		if anti {
			kind = AntiJoin
		}
		var cond scalar.Expr = trueExpr()
		if len(on) > 0 {
			cond = scalar.NewAnd(on)
		}
		input = &Join{Kind: kind, Left: input, Right: decrementDepth(right), On: cond}
	}
	return input, rest, nil
}

func allEq(ops []*scalar.Func) bool {
	for _, f := range ops {
		if f.Name != "=" {
			return false
		}
	}
	return true
}

// liftCorrelation splits a subquery plan Project*(Filter*(X)) with X free of
// references to the enclosing row into X, the filter conjuncts (which may
// reference the enclosing row) and the output expressions over X's rows.
func liftCorrelation(plan Node) (Node, []scalar.Expr, []scalar.Expr, bool) {
	var outs []scalar.Expr
	cols := plan.Columns()
	outs = make([]scalar.Expr, len(cols))
	for i, c := range cols {
		outs[i] = &scalar.ColRef{Idx: i, Typ: c.Type}
	}
	n := plan
	var preds []scalar.Expr
	for {
		switch x := n.(type) {
		case *Project:
			if len(preds) > 0 {
				return nil, nil, nil, false
			}
			for i, o := range outs {
				outs[i] = substitute(o, x.Exprs)
			}
			n = x.Input
			continue
		case *Filter:
			preds = append(preds, scalar.Conjuncts(x.Pred)...)
			n = x.Input
			continue
		}
		break
	}
	if HasOuterRefs(n, 1) {
		return nil, nil, nil, false
	}
	for _, o := range outs {
		if exprHasOuterRefs(o, 1) {
			return nil, nil, nil, false
		}
	}
	return n, preds, outs, true
}

// substitute replaces column references in e by the expressions they
// name.
func substitute(e scalar.Expr, by []scalar.Expr) scalar.Expr {
	return scalar.Rewrite(e, func(x scalar.Expr) scalar.Expr {
		if c, ok := x.(*scalar.ColRef); ok {
			return by[c.Idx]
		}
		return x
	})
}

// intoJoin moves an expression of a subquery into the condition of a join
// whose left side is the enclosing row (width lw): the subquery's columns
// follow the left columns and references to the enclosing row become
// plain columns.
func intoJoin(e scalar.Expr, lw int) scalar.Expr {
	return scalar.Rewrite(e, func(x scalar.Expr) scalar.Expr {
		switch c := x.(type) {
		case *scalar.ColRef:
			return &scalar.ColRef{Idx: c.Idx + lw, Typ: c.Typ}
		case *OuterRef:
			if c.Depth == 1 {
				return &scalar.ColRef{Idx: c.Idx, Typ: c.Typ}
			}
			return &OuterRef{Depth: c.Depth - 1, Idx: c.Idx, Typ: c.Typ}
		}
		return x
	})
}

// IntoEnclosing moves an expression of a subquery that reads no column
// of its own out to the enclosing query: its references to the enclosing
// row become plain columns, and those further out come one level closer.
func IntoEnclosing(e scalar.Expr) scalar.Expr { return intoJoin(e, 0) }

// intoSubquery moves an expression of the enclosing row into a subquery:
// its columns become depth-1 outer references.
func intoSubquery(e scalar.Expr) scalar.Expr {
	return scalar.Rewrite(e, func(x scalar.Expr) scalar.Expr {
		switch c := x.(type) {
		case *scalar.ColRef:
			return &OuterRef{Depth: 1, Idx: c.Idx, Typ: c.Typ}
		case *OuterRef:
			return &OuterRef{Depth: c.Depth + 1, Idx: c.Idx, Typ: c.Typ}
		}
		return x
	})
}

func exprHasOuterRefs(e scalar.Expr, depth int) bool {
	found := false
	scalar.Walk(e, func(x scalar.Expr) bool {
		switch o := x.(type) {
		case *OuterRef:
			if o.Depth == depth {
				found = true
			}
		case *Subquery:
			if HasOuterRefs(o.Plan, depth+1) {
				found = true
			}
		}
		return !found
	})
	return found
}

// applySubqueries replaces each subquery in e by a column computed by an
// Apply over input, returning the widened input and the rewritten e. A
// subquery that only some rows reach (in a CASE branch, say) is computed
// for those rows alone (see guardedApplies).
func applySubqueries(input Node, e scalar.Expr) (Node, scalar.Expr, error) {
	g := guardedApplies{input: input}
	out := g.rewrite(e, nil)
	return g.input, out, g.err
}

// applyOne plans one subquery as an Apply that appends its value (or the
// counts its value is computed from) to the input's columns; guard, if
// not nil, is the condition under which the input row needs it.
func applyOne(input Node, sq *Subquery, guard scalar.Expr) (Node, scalar.Expr, error) {
	plan, err := subqueriesToApply(sq.Plan)
	if err != nil {
		return nil, nil, err
	}
	width := len(input.Columns())
	col := func(i int, t types.Type) scalar.Expr { return &scalar.ColRef{Idx: width + i, Typ: t} }
	countAgg, err := countStar()
	if err != nil {
		return nil, nil, err
	}
	zero := types.NewInt8(0)
	switch sq.Kind {
	case ScalarSubquery:
		cols := plan.Columns()
		var right Node
		if singleRow(plan) {
			right = plan
		} else {
			right = &Aggregate{Input: plan, Aggs: []AggCall{{Builtin: SingleValue, Args: []scalar.Expr{&scalar.ColRef{Idx: 0, Typ: cols[0].Type}}, Typ: cols[0].Type}},
				Cols: []Column{{Name: cols[0].Name, Type: cols[0].Type}}}
		}
		return &Apply{Kind: InnerJoin, Left: input, Right: right, Guard: guard}, col(0, sq.Typ), nil
	case ExistsSubquery:
		agg := &Aggregate{Input: plan, Aggs: []AggCall{{Func: countAgg, Typ: types.TypeInt8, EmptyValue: zero}}, Cols: []Column{{Name: "count", Type: types.TypeInt8}}}
		gt, err := compareConst(">", col(0, types.TypeInt8), zero)
		if err != nil {
			return nil, nil, err
		}
		return &Apply{Kind: InnerJoin, Left: input, Right: agg, Guard: guard}, gt, nil
	case AnySubquery, AllSubquery:
		// Per subquery row, the comparison is true, false or NULL; ANY
		// is true if one is true, else NULL if one is NULL, else false;
		// ALL is false if one is false, else NULL if one is NULL, else true.
		cols := plan.Columns()
		var conds []scalar.Expr
		for i, a := range sq.Args {
			conds = append(conds, &scalar.Call{Fn: sq.Ops[i], Args: []scalar.Expr{intoSubquery(a), &scalar.ColRef{Idx: i, Typ: cols[i].Type}}})
		}
		cmp := scalar.NewAnd(conds)
		decisive := cmp
		if sq.Kind == AllSubquery {
			decisive = &scalar.Not{Arg: cmp}
		}
		agg := &Aggregate{Input: plan, Aggs: []AggCall{
			{Func: countAgg, Filter: decisive, Typ: types.TypeInt8, EmptyValue: zero},
			{Func: countAgg, Filter: &scalar.IsNull{Arg: cmp}, Typ: types.TypeInt8, EmptyValue: zero},
		}, Cols: []Column{{Name: "decisive", Type: types.TypeInt8}, {Name: "unknown", Type: types.TypeInt8}}}
		decided, err := compareConst(">", col(0, types.TypeInt8), zero)
		if err != nil {
			return nil, nil, err
		}
		unknown, err := compareConst(">", col(1, types.TypeInt8), zero)
		if err != nil {
			return nil, nil, err
		}
		onDecided := types.DTrue
		otherwise := types.DFalse
		if sq.Kind == AllSubquery {
			onDecided, otherwise = types.DFalse, types.DTrue
		}
		value := &scalar.Case{Whens: []scalar.When{
			{Cond: decided, Result: scalar.NewConst(onDecided, types.TypeBool)},
			{Cond: unknown, Result: scalar.NullOf(types.TypeBool)},
		}, Else: scalar.NewConst(otherwise, types.TypeBool), Typ: types.TypeBool}
		return &Apply{Kind: InnerJoin, Left: input, Right: agg, Guard: guard}, value, nil
	case ArraySubquery:
		// array_agg in the subquery's order; no rows is an empty array,
		// not array_agg's NULL.
		cols := plan.Columns()
		arrayAgg, _, err := scalar.ResolveAggregate("array_agg", []types.Type{cols[0].Type}, false)
		if err != nil {
			return nil, nil, err
		}
		empty := types.NewArray(&types.ArrayValue{Elem: cols[0].Type})
		agg := &Aggregate{Input: plan, Aggs: []AggCall{{Func: arrayAgg, Args: []scalar.Expr{&scalar.ColRef{Idx: 0, Typ: cols[0].Type}},
			Order: sq.Order, Typ: sq.Typ, EmptyValue: empty}}, Cols: []Column{{Name: "array", Type: sq.Typ}}}
		value := &scalar.Coalesce{Args: []scalar.Expr{col(0, sq.Typ), scalar.NewConst(empty, sq.Typ)}, Typ: sq.Typ}
		return &Apply{Kind: InnerJoin, Left: input, Right: agg, Guard: guard}, value, nil
	}
	return nil, nil, fmt.Errorf("planner: unknown subquery kind %d", sq.Kind)
}

// singleRow reports whether a plan always returns exactly one row: an
// aggregate without GROUP BY, possibly under projections.
func singleRow(n Node) bool {
	for {
		switch x := n.(type) {
		case *Project:
			n = x.Input
		case *Aggregate:
			return len(x.Keys) == 0
		default:
			return false
		}
	}
}

// countStar resolves count(*).
func countStar() (*scalar.AggFunc, error) {
	f, _, err := scalar.ResolveAggregate("count", nil, false)
	return f, err
}

// compareConst builds e op c for an int8 constant.
func compareConst(op string, e scalar.Expr, c types.Datum) (scalar.Expr, error) {
	fn, _, err := scalar.ResolveBinaryOp(op, types.TypeInt8, types.TypeInt8)
	if err != nil {
		return nil, err
	}
	return &scalar.Call{Fn: fn, Args: []scalar.Expr{e, scalar.NewConst(c, types.TypeInt8)}}, nil
}

// outerColumns returns the sorted distinct columns of the enclosing row
// that a plan references at depth.
func outerColumns(n Node, depth int) []*OuterRef {
	seen := map[int]*OuterRef{}
	RewriteOuterRefs(n, depth, func(o *OuterRef) scalar.Expr {
		if _, ok := seen[o.Idx]; !ok {
			seen[o.Idx] = o
		}
		return o
	})
	out := make([]*OuterRef, 0, len(seen))
	for _, o := range seen {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Idx < out[j].Idx })
	return out
}
