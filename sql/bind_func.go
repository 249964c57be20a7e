package sql

import (
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

func (b *binder) funcCall(fc *pg_query.FuncCall, c *exprCtx) (scalar.Expr, error) {
	pos := loc(fc.Location)
	name, err := b.callableName(fc.Funcname)
	if err != nil {
		return nil, withPosition(err, pos)
	}
	if fc.Over != nil {
		return b.windowCall(fc, name, c)
	}
	if fc.AggStar || scalar.IsAggregate(name) {
		return b.aggCall(fc, name, c)
	}
	if fc.AggDistinct || len(fc.AggOrder) > 0 {
		return nil, pgerr.New(pgerr.WrongObjectType, "DISTINCT or ORDER BY specified, but %s is not an aggregate function", name).WithPosition(pos)
	}
	if fc.AggFilter != nil {
		return nil, pgerr.New(pgerr.WrongObjectType, "FILTER specified, but %s is not an aggregate function", name).WithPosition(pos)
	}
	if e, ok := b.sessionFunc(name, len(fc.Args)); ok {
		return e, nil
	}
	args := make([]scalar.Expr, len(fc.Args))
	for i, an := range fc.Args {
		if an.GetNamedArgExpr() != nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "named function arguments are not supported").WithPosition(pos)
		}
		if args[i], err = b.expr(an, c); err != nil {
			return nil, err
		}
	}
	return b.callFunc(name, args, pos)
}

// callFunc resolves a function call and coerces its arguments.
func (b *binder) callFunc(name string, args []scalar.Expr, pos int) (scalar.Expr, error) {
	if name == "pg_typeof" && len(args) == 1 {
		if d := types.RecordDescOf(args[0].Type()); d != nil && d.TypeName != "" {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "pg_typeof of the row type of %q is not supported", d.TypeName).WithPosition(pos)
		}
		return scalar.TypeOf(args[0]), nil
	}
	argTypes := make([]types.Type, len(args))
	for i, a := range args {
		argTypes[i] = a.Type()
	}
	fn, targets, err := scalar.ResolveFunc(name, argTypes)
	if err != nil {
		return nil, withPosition(err, pos)
	}
	if b.inView && fn.Volatility != scalar.Immutable {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "calls to %s are not allowed in materialized views", name).
			WithDetail("%s is %s: its result changes without any input changing.", name, fn.Volatility).WithPosition(pos)
	}
	for i := range args {
		if args[i], err = b.coerce(args[i], targets[i], coerceImplicit, pos); err != nil {
			return nil, err
		}
	}
	return &scalar.Call{Fn: fn, Args: args}, nil
}

// sessionFunc binds the functions whose value is a property of the
// session rather than of their arguments.
func (b *binder) sessionFunc(name string, nargs int) (scalar.Expr, bool) {
	if nargs != 0 {
		return nil, false
	}
	text := func(s string) scalar.Expr { return scalar.NewConst(types.NewText(s), types.TypeText) }
	name64 := func(s string) scalar.Expr { return scalar.NewConst(types.NewString(types.Name, s), types.TypeName) }
	switch name {
	case "version":
		return text(versionString), true
	case "mz_version":
		return text(mzVersionString), true
	case "current_database":
		return name64(b.sess.database), true
	case "current_schema":
		return name64(catalog.DefaultSchema), true
	case "current_user", "user", "current_role":
		return name64(b.sess.current), true
	case "session_user":
		return name64(b.sess.user), true
	}
	return nil, false
}

// aggRef stands for the result of the aggregate call at index idx of the
// enclosing query's aggCollector until the select list is rewritten over
// the Aggregate node's output.
type aggRef struct {
	idx int
	typ types.Type
}

func (e *aggRef) Type() types.Type                       { return e.typ }
func (e *aggRef) String() string                         { return "agg" + strconv.Itoa(e.idx) }
func (e *aggRef) Children() []scalar.Expr                { return nil }
func (e *aggRef) WithChildren([]scalar.Expr) scalar.Expr { return e }

// aggCollector gathers the aggregate calls of one query level.
type aggCollector struct {
	calls     []planner.AggCall
	groupings []groupingCall
	// nested is set while an aggregate's arguments are bound.
	nested bool
}

// enclosingAggs is the clause of an enclosing query a subquery stands
// in: its aggregate collector (nil where aggregates are not allowed) and
// its name. An aggregate in the subquery whose arguments reference
// columns of the enclosing query and none of the subquery's belongs, as
// in PostgreSQL, to the enclosing query: SELECT (SELECT max(x.r)) FROM x
// is one row, x's maximum. The subquery reads its result (outerAggRef).
type enclosingAggs struct {
	agg  *aggCollector
	what string
}

// outerAggRef stands, in a subquery, for the result of the aggregate call
// at index idx of the enclosing query's aggCollector (see enclosingAggs),
// until the enclosing query's overAggregate makes it an outer reference
// to the aggregate's column.
type outerAggRef struct {
	idx int
	typ types.Type
}

func (e *outerAggRef) Type() types.Type                       { return e.typ }
func (e *outerAggRef) String() string                         { return "outer agg" + strconv.Itoa(e.idx) }
func (e *outerAggRef) Children() []scalar.Expr                { return nil }
func (e *outerAggRef) WithChildren([]scalar.Expr) scalar.Expr { return e }

func (b *binder) aggCall(fc *pg_query.FuncCall, name string, c *exprCtx) (scalar.Expr, error) {
	pos := loc(fc.Location)
	if c.agg == nil && c.s.enclosing == nil {
		return nil, aggNotAllowed(c.what, pos)
	}
	// Where the clause allows no aggregate of its own, the arguments
	// are bound all the same: they may make it the enclosing query's.
	agg := c.agg
	if agg == nil {
		agg = &aggCollector{}
	}
	if agg.nested {
		return nil, aggNested(pos)
	}
	agg.nested = true
	defer func() { agg.nested = false }()
	inner := &exprCtx{s: c.s, agg: agg, what: "aggregate function arguments"}
	var args []scalar.Expr
	if !fc.AggStar {
		for _, an := range fc.Args {
			a, err := b.expr(an, inner)
			if err != nil {
				return nil, err
			}
			args = append(args, a)
		}
	}
	argTypes := make([]types.Type, len(args))
	for i, a := range args {
		argTypes[i] = a.Type()
	}
	fn, targets, err := scalar.ResolveAggregate(name, argTypes, fc.AggDistinct)
	if err != nil {
		return nil, withPosition(err, pos)
	}
	if err := starless(fc, fn, name, pos); err != nil {
		return nil, err
	}
	for i := range args {
		if args[i], err = b.coerce(args[i], targets[i], coerceImplicit, pos); err != nil {
			return nil, err
		}
	}
	call := planner.AggCall{Func: fn, Args: args, Distinct: fc.AggDistinct, Typ: fn.Ret, EmptyValue: fn.Empty()}
	if fc.AggFilter != nil {
		f, err := b.expr(fc.AggFilter, &exprCtx{s: c.s, agg: agg, what: "FILTER"})
		if err != nil {
			return nil, err
		}
		if call.Filter, err = b.coerceBool(f, "FILTER", pos); err != nil {
			return nil, err
		}
	}
	for _, sn := range fc.AggOrder {
		sb := sn.GetSortBy()
		e, err := b.expr(sb.Node, inner)
		if err != nil {
			return nil, err
		}
		call.Order = append(call.Order, sortKey(e, sb))
	}
	switch depth := outerLevel(call); {
	case depth > 1:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "an aggregate over columns of a query more than one level out is not supported").
			WithHint("PostgreSQL computes such an aggregate in that query: compute it there and reference its result.").WithPosition(pos)
	case depth == 1 && c.s.enclosing == nil:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "an aggregate over columns of an enclosing query only is supported only in a subquery's SELECT, WHERE, HAVING and ORDER BY").
			WithHint("PostgreSQL computes such an aggregate in the enclosing query: compute it there and reference its result.").WithPosition(pos)
	case depth == 1:
		return enclosingAgg(call, c.s.enclosing, pos)
	}
	if c.agg == nil {
		return nil, aggNotAllowed(c.what, pos)
	}
	c.agg.calls = append(c.agg.calls, call)
	return &aggRef{idx: len(c.agg.calls) - 1, typ: fn.Ret}, nil
}

// aggNotAllowed is PostgreSQL's error for an aggregate in a clause that
// allows none, what.
func aggNotAllowed(what string, pos int) error {
	if what == "" {
		what = "this context"
	}
	return pgerr.New(pgerr.GroupingError, "aggregate functions are not allowed in %s", what).WithPosition(pos)
}

// aggNested is PostgreSQL's error for an aggregate inside another's
// arguments.
func aggNested(pos int) error {
	return pgerr.New(pgerr.GroupingError, "aggregate function calls cannot be nested").WithPosition(pos)
}

// outerLevel returns, for an aggregate call whose arguments (FILTER and
// ORDER BY included) reference columns of enclosing queries and none of
// their own query's, the nearest level they reference, 1 for the query
// immediately enclosing; 0 for any other call. References inside a
// subquery of the arguments are not looked at: the planner refuses
// subqueries there.
func outerLevel(call planner.AggCall) int {
	own, level := false, 0
	look := func(e scalar.Expr) {
		scalar.Walk(e, func(x scalar.Expr) bool {
			switch x := x.(type) {
			case *scalar.ColRef:
				own = true
			case *planner.OuterRef:
				if level == 0 || x.Depth < level {
					level = x.Depth
				}
			}
			return true
		})
	}
	for _, e := range call.Args {
		look(e)
	}
	if call.Filter != nil {
		look(call.Filter)
	}
	for _, k := range call.Order {
		look(k.Expr)
	}
	if own {
		return 0
	}
	return level
}

// enclosingAgg makes call, whose arguments reference the query enclosing
// its own and queries further out but not its own, an aggregate of the
// enclosing query (see enclosingAggs), and returns its result for the
// subquery.
func enclosingAgg(call planner.AggCall, enc *enclosingAggs, pos int) (scalar.Expr, error) {
	if enc.agg == nil {
		return nil, aggNotAllowed(enc.what, pos)
	}
	if enc.agg.nested {
		return nil, aggNested(pos)
	}
	for i, a := range call.Args {
		call.Args[i] = planner.IntoEnclosing(a)
	}
	if call.Filter != nil {
		call.Filter = planner.IntoEnclosing(call.Filter)
	}
	for i := range call.Order {
		call.Order[i].Expr = planner.IntoEnclosing(call.Order[i].Expr)
	}
	enc.agg.calls = append(enc.agg.calls, call)
	return &outerAggRef{idx: len(enc.agg.calls) - 1, typ: call.Typ}, nil
}

// sortKey builds a sort key with PostgreSQL's NULL placement defaults:
// NULLs last ascending, first descending.
func sortKey(e scalar.Expr, sb *pg_query.SortBy) planner.SortKey {
	k := planner.SortKey{Expr: e, Desc: sb.SortbyDir == pg_query.SortByDir_SORTBY_DESC}
	switch sb.SortbyNulls {
	case pg_query.SortByNulls_SORTBY_NULLS_FIRST:
		k.NullsFirst = true
	case pg_query.SortByNulls_SORTBY_NULLS_LAST:
		k.NullsFirst = false
	default:
		k.NullsFirst = k.Desc
	}
	return k
}

func (b *binder) subLink(sl *pg_query.SubLink, c *exprCtx) (scalar.Expr, error) {
	pos := loc(sl.Location)
	sel := sl.Subselect.GetSelectStmt()
	if sel == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "subquery must be a SELECT").WithPosition(pos)
	}
	b.enclosing = &enclosingAggs{agg: c.agg, what: c.what}
	bq, err := b.selectStmt(sel, c.s)
	b.enclosing = nil
	if err != nil {
		return nil, err
	}
	if sl.SubLinkType == pg_query.SubLinkType_ARRAY_SUBLINK {
		return arraySubquery(bq.q, pos)
	}
	plan := queryNode(bq.q)
	cols := plan.Columns()
	switch sl.SubLinkType {
	case pg_query.SubLinkType_EXISTS_SUBLINK:
		return &planner.Subquery{Kind: planner.ExistsSubquery, Plan: plan, Typ: types.TypeBool}, nil
	case pg_query.SubLinkType_EXPR_SUBLINK:
		if len(cols) != 1 {
			return nil, pgerr.New(pgerr.SyntaxError, "subquery must return only one column").WithPosition(pos)
		}
		if e, ok := inlineScalar(plan); ok {
			return e, nil
		}
		return &planner.Subquery{Kind: planner.ScalarSubquery, Plan: plan, Typ: cols[0].Type}, nil
	case pg_query.SubLinkType_ANY_SUBLINK, pg_query.SubLinkType_ALL_SUBLINK:
		return b.quantifiedSubquery(sl, plan, c, pos)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "this kind of subquery is not supported").WithPosition(pos)
}

// inlineScalar returns the expression of a scalar subquery that is one
// expression over the enclosing query's row, (SELECT e) without FROM,
// WHERE or anything else, as an expression of the enclosing query: it
// is e for every row. Decorrelated, such a subquery would be joins over
// a copy of the enclosing query (three Aggregates over x for SELECT
// (SELECT max(x.r)) FROM x), each maintained on every change. Only an
// expression that references the enclosing query is taken: PostgreSQL
// computes an uncorrelated subquery once, which a volatile e would tell
// apart from once per row. One holding a subquery is left as it is.
func inlineScalar(plan planner.Node) (scalar.Expr, bool) {
	p, ok := plan.(*planner.Project)
	if !ok || len(p.Exprs) != 1 {
		return nil, false
	}
	if v, ok := p.Input.(*planner.Values); !ok || len(v.Rows) != 1 || len(v.Rows[0]) != 0 {
		return nil, false
	}
	outer, nested := false, false
	scalar.Walk(p.Exprs[0], func(x scalar.Expr) bool {
		switch x.(type) {
		case *planner.OuterRef, *outerAggRef:
			outer = true
		case *planner.Subquery:
			nested = true
		}
		return true
	})
	if !outer || nested {
		return nil, false
	}
	// The enclosing query's aggregates are its own aggRefs there.
	e := scalar.Rewrite(p.Exprs[0], func(x scalar.Expr) scalar.Expr {
		if o, ok := x.(*outerAggRef); ok {
			return &aggRef{idx: o.idx, typ: o.typ}
		}
		return x
	})
	return planner.IntoEnclosing(e), true
}

// arraySubquery binds ARRAY(subquery). Its elements keep the subquery's
// ORDER BY, so the plan keeps the sort columns (hidden ones too) and the
// order travels with it.
func arraySubquery(q *planner.Query, pos int) (scalar.Expr, error) {
	if len(q.Root.Columns())-q.Hidden != 1 {
		return nil, pgerr.New(pgerr.SyntaxError, "subquery must return only one column").WithPosition(pos)
	}
	plan := q.Root
	if q.Limit != nil || q.Offset != nil {
		plan = &planner.TopK{Input: plan, Order: q.Order, Limit: q.Limit, Offset: q.Offset}
	}
	elem := plan.Columns()[0].Type
	return &planner.Subquery{Kind: planner.ArraySubquery, Plan: plan, Order: q.Order, Typ: types.ArrayOf(elem)}, nil
}

// quantifiedSubquery binds x op ANY/ALL (subquery), including IN and
// NOT IN (which the parser writes as NOT (x = ANY …)).
func (b *binder) quantifiedSubquery(sl *pg_query.SubLink, plan planner.Node, c *exprCtx, pos int) (scalar.Expr, error) {
	op := "="
	if len(sl.OperName) > 0 {
		n, err := funcName(sl.OperName)
		if err != nil {
			return nil, err
		}
		op = n
	}
	var lefts []*pg_query.Node
	if row := sl.Testexpr.GetRowExpr(); row != nil {
		lefts = row.Args
	} else {
		lefts = []*pg_query.Node{sl.Testexpr}
	}
	cols := plan.Columns()
	if len(lefts) != len(cols) {
		if len(lefts) < len(cols) {
			return nil, pgerr.New(pgerr.SyntaxError, "subquery has too many columns").WithPosition(pos)
		}
		return nil, pgerr.New(pgerr.SyntaxError, "subquery has too few columns").WithPosition(pos)
	}
	sq := &planner.Subquery{Kind: planner.AnySubquery, Typ: types.TypeBool}
	if sl.SubLinkType == pg_query.SubLinkType_ALL_SUBLINK {
		sq.Kind = planner.AllSubquery
	}
	casts := make([]scalar.Expr, len(cols))
	needCast := false
	for i, ln := range lefts {
		l, err := b.expr(ln, c)
		if err != nil {
			return nil, err
		}
		fn, targets, err := scalar.ResolveBinaryOp(op, l.Type(), cols[i].Type)
		if err != nil {
			return nil, withPosition(err, pos)
		}
		if fn.Ret.Family != types.Bool {
			return nil, pgerr.New(pgerr.DatatypeMismatch, "operator %s must return type boolean, not type %s", op, fn.Ret).WithPosition(pos)
		}
		if l, err = b.coerce(l, targets[0], coerceImplicit, pos); err != nil {
			return nil, err
		}
		var col scalar.Expr = &scalar.ColRef{Idx: i, Typ: cols[i].Type}
		if targets[1] != cols[i].Type {
			col = &scalar.Cast{Arg: col, To: targets[1]}
			needCast = true
		}
		casts[i] = col
		sq.Args = append(sq.Args, l)
		sq.Ops = append(sq.Ops, fn)
	}
	if needCast {
		pc := make([]planner.Column, len(cols))
		for i, e := range casts {
			pc[i] = planner.Column{Name: cols[i].Name, Type: e.Type()}
		}
		plan = &planner.Project{Input: plan, Exprs: casts, Cols: pc}
	}
	sq.Plan = plan
	return sq, nil
}

// starless refuses count() as PostgreSQL does: an aggregate without
// parameters is called with (*).
func starless(fc *pg_query.FuncCall, fn *scalar.AggFunc, name string, pos int) error {
	if len(fn.Params) == 0 && !fc.AggStar {
		return pgerr.New(pgerr.WrongObjectType, "%s(*) must be used to call a parameterless aggregate function", name).WithPosition(pos)
	}
	return nil
}
