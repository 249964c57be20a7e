package sql

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// boundQuery is a bound SELECT.
type boundQuery struct {
	q *planner.Query
}

// columns returns the visible output columns.
func (bq *boundQuery) columns() []planner.Column {
	cols := bq.q.Root.Columns()
	return cols[:len(cols)-bq.q.Hidden]
}

// queryNode turns a bound query into a relation for use inside another
// query: ORDER BY survives only as far as LIMIT/OFFSET needs it.
func queryNode(q *planner.Query) planner.Node {
	n := q.Root
	if q.Limit != nil || q.Offset != nil {
		n = &planner.TopK{Input: n, Order: q.Order, Limit: q.Limit, Offset: q.Offset}
	}
	if q.Hidden > 0 {
		cols := n.Columns()
		keep := len(cols) - q.Hidden
		exprs := make([]scalar.Expr, keep)
		for i := range exprs {
			exprs[i] = &scalar.ColRef{Idx: i, Typ: cols[i].Type}
		}
		n = &planner.Project{Input: n, Exprs: exprs, Cols: cols[:keep]}
	}
	return n
}

// selectStmt binds a SELECT, VALUES or set operation. parent is the scope
// of the enclosing query for correlated references, nil at top level.
func (b *binder) selectStmt(sel *pg_query.SelectStmt, parent *scope) (*boundQuery, error) {
	// Only the subquery's own SELECT takes the enclosing clause, not
	// its CTEs, derived tables or set operations' arms.
	enclosing := b.enclosing
	b.enclosing = nil
	if sel.WithClause != nil {
		if err := b.pushCTEs(sel.WithClause, parent); err != nil {
			return nil, err
		}
		defer b.popCTEs()
	}
	if sel.IntoClause != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "SELECT INTO is not supported").WithHint("Use CREATE TABLE AS or INSERT INTO … SELECT.")
	}
	if len(sel.LockingClause) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "SELECT FOR UPDATE/SHARE is not supported")
	}
	if sel.LimitOption == pg_query.LimitOption_LIMIT_OPTION_WITH_TIES {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "FETCH … WITH TIES is not supported")
	}
	switch {
	case sel.Op == pg_query.SetOperation_SETOP_UNION || sel.Op == pg_query.SetOperation_SETOP_INTERSECT || sel.Op == pg_query.SetOperation_SETOP_EXCEPT:
		return b.setOperation(sel, parent)
	case len(sel.ValuesLists) > 0:
		return b.valuesQuery(sel, parent)
	}
	return b.simpleSelect(sel, parent, enclosing)
}

// simpleSelect binds a SELECT that is not a set operation; enclosing,
// for a subquery, is the clause of the enclosing query it stands in.
func (b *binder) simpleSelect(sel *pg_query.SelectStmt, parent *scope, enclosing *enclosingAggs) (*boundQuery, error) {
	sel, whole, err := liftSetReturning(sel)
	if err != nil {
		return nil, err
	}
	b.noteRowNames(sel)
	node, s, err := b.fromClause(sel.FromClause, parent)
	if err != nil {
		return nil, err
	}
	s.enclosing = enclosing
	for i := range s.cols {
		// A lifted function's columns are reached only through the
		// select-list items that stood for it.
		if s.cols[i].table == srfAliasPrefix {
			s.cols[i].qualifiedOnly = true
		}
	}
	if sel.WhereClause != nil {
		pred, err := b.expr(sel.WhereClause, &exprCtx{s: s, what: "WHERE"})
		if err != nil {
			return nil, err
		}
		if pred, err = b.coerceBool(pred, "WHERE", 0); err != nil {
			return nil, err
		}
		node = &planner.Filter{Input: node, Pred: pred}
	}
	agg := &aggCollector{}
	win := &winCollector{defs: windowDefs(sel.WindowClause)}
	tctx := &exprCtx{s: s, agg: agg, win: win, what: "SELECT"}
	targets, names, err := b.targetList(sel.TargetList, tctx, len(sel.FromClause) > 0, whole)
	if err != nil {
		return nil, err
	}
	if len(targets) > maxTargetList {
		return nil, pgerr.New(pgerr.TooManyColumns, "target lists can have at most %d entries", maxTargetList)
	}
	if whole != nil && (len(sel.GroupClause) > 0 || sel.HavingClause != nil || len(agg.calls) > 0 || len(agg.groupings) > 0 || len(win.calls) > 0) {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "set-returning functions in the select list of an aggregate or window query are not supported").
			WithHint("Call the function in FROM.")
	}
	var having scalar.Expr
	if sel.HavingClause != nil {
		h, err := b.expr(sel.HavingClause, &exprCtx{s: s, agg: agg, win: nil, what: "HAVING"})
		if err != nil {
			return nil, err
		}
		if having, err = b.coerceBool(h, "HAVING", 0); err != nil {
			return nil, err
		}
	}
	nVisible := len(targets)
	order, err := b.orderBy(sel.SortClause, tctx, &targets, names)
	if err != nil {
		return nil, err
	}
	distinct, distinctOn := false, []int(nil)
	if len(sel.DistinctClause) > 0 {
		if len(sel.DistinctClause) == 1 && sel.DistinctClause[0].GetNode() == nil {
			distinct = true
		} else if distinctOn, err = b.distinctOn(sel.DistinctClause, tctx, &targets, names); err != nil {
			return nil, err
		}
	}

	if len(sel.GroupClause) > 0 || having != nil || len(agg.calls) > 0 || len(agg.groupings) > 0 {
		keys, sets, err := b.groupBy(sel.GroupClause, s, targets[:nVisible], names)
		if err != nil {
			return nil, err
		}
		if node, err = b.aggregate(node, keys, sets, agg); err != nil {
			return nil, err
		}
		over := func(e scalar.Expr) (scalar.Expr, error) { return b.overAggregate(e, keys, len(agg.calls), s) }
		for i := range targets {
			if targets[i], err = over(targets[i]); err != nil {
				return nil, err
			}
		}
		for i := range win.calls {
			if err := win.calls[i].rewrite(over); err != nil {
				return nil, err
			}
		}
		if having != nil {
			if having, err = over(having); err != nil {
				return nil, err
			}
			node = &planner.Filter{Input: node, Pred: having}
		}
	}
	if len(win.calls) > 0 {
		if node, err = b.windows(node, win, targets); err != nil {
			return nil, err
		}
	}

	for i, t := range targets {
		if t.Type().Family == types.Unknown {
			if targets[i], err = b.coerce(t, types.TypeText, coerceImplicit, 0); err != nil {
				return nil, err
			}
		}
	}
	cols := make([]planner.Column, len(targets))
	for i, t := range targets {
		name := "?column?"
		if i < len(names) {
			name = names[i]
		}
		cols[i] = planner.Column{Name: name, Type: t.Type()}
	}
	node = &planner.Project{Input: node, Exprs: targets, Cols: cols}
	hidden := len(targets) - nVisible
	if distinct {
		if hidden > 0 {
			return nil, pgerr.New(pgerr.InvalidColumnReference, "for SELECT DISTINCT, ORDER BY expressions must appear in select list")
		}
		node = &planner.Distinct{Input: node}
	}
	if distinctOn != nil {
		if err := distinctOnMatchesOrder(distinctOn, order); err != nil {
			return nil, err
		}
		one := scalar.NewConst(types.NewInt8(1), types.TypeInt8)
		node = &planner.TopK{Input: node, Group: distinctOn, Order: order, Limit: one}
	}
	q := &planner.Query{Root: node, Order: order, Hidden: hidden}
	if err := b.limitOffset(sel, q); err != nil {
		return nil, err
	}
	return &boundQuery{q: q}, nil
}

// maxTargetList is PostgreSQL's MaxTupleAttributeNumber: the most
// columns a select list may have (the protocol counts them in 16 bits).
const maxTargetList = 1664

// targetList binds the select list, expanding *. whole marks the items
// that stand for a lifted set-returning call (bind_srf.go): they expand
// like *, named after the call, its fields as "name.field".
func (b *binder) targetList(list []*pg_query.Node, c *exprCtx, haveFrom bool, whole map[*pg_query.ResTarget]bool) ([]scalar.Expr, []string, error) {
	var exprs []scalar.Expr
	var names []string
	for _, n := range list {
		rt := n.GetResTarget()
		if cr := rt.Val.GetColumnRef(); cr != nil && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			table := ""
			if len(cr.Fields) >= 2 {
				table = cr.Fields[len(cr.Fields)-2].GetString_().Sval
			}
			if table == "" && !haveFrom {
				return nil, nil, pgerr.New(pgerr.SyntaxError, "SELECT * with no tables specified is not valid").WithPosition(loc(cr.Location))
			}
			if table != "" && !c.s.tables[table] {
				return nil, nil, pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", table).WithPosition(loc(cr.Location))
			}
			cols := c.s.starCols(table)
			for _, col := range cols {
				exprs = append(exprs, &scalar.ColRef{Idx: col.idx, Typ: col.typ})
				switch {
				case !whole[rt]:
					names = append(names, col.name)
				case len(cols) == 1:
					names = append(names, rt.Name)
				default:
					names = append(names, rt.Name+"."+col.name)
				}
			}
			continue
		}
		if ind := rt.Val.GetAIndirection(); ind != nil && ind.Indirection[len(ind.Indirection)-1].GetAStar() != nil {
			// (record).* expands to the record's fields.
			inner := &pg_query.A_Indirection{Arg: ind.Arg, Indirection: ind.Indirection[:len(ind.Indirection)-1]}
			var e scalar.Expr
			var err error
			if len(inner.Indirection) == 0 {
				e, err = b.expr(ind.Arg, c)
			} else {
				e, err = b.indirection(inner, c)
			}
			if err != nil {
				return nil, nil, err
			}
			fields, fnames, err := expandRecord(e, 0)
			if err != nil {
				return nil, nil, err
			}
			exprs, names = append(exprs, fields...), append(names, fnames...)
			continue
		}
		e, err := b.expr(rt.Val, c)
		if err != nil {
			return nil, nil, err
		}
		name := rt.Name
		if name == "" {
			name = columnName(rt.Val)
		}
		exprs = append(exprs, e)
		names = append(names, name)
	}
	return exprs, names, nil
}

// columnName is PostgreSQL's FigureColname: the name an unaliased select
// list item gets.
func columnName(n *pg_query.Node) string {
	if name, strength := figureColname(n); strength > 0 {
		return name
	}
	return "?column?"
}

// figureColname is FigureColnameInternal: a name and its strength, 2 for
// a name of its own (a column, a function), 1 for one a CASE or a cast
// gives when nothing better is found inside it (CASE … ELSE x END is
// named after x), 0 for none.
func figureColname(n *pg_query.Node) (string, int) {
	switch {
	case n.GetColumnRef() != nil:
		f := n.GetColumnRef().Fields
		if s := f[len(f)-1].GetString_(); s != nil {
			return s.Sval, 2
		}
	case n.GetFuncCall() != nil:
		parts := nameList(n.GetFuncCall().Funcname)
		return parts[len(parts)-1], 2
	case n.GetTypeCast() != nil:
		tc := n.GetTypeCast()
		if name, strength := figureColname(tc.Arg); strength > 1 {
			return name, strength
		}
		parts := nameList(tc.TypeName.Names)
		return parts[len(parts)-1], 1
	case n.GetCaseExpr() != nil:
		if name, strength := figureColname(n.GetCaseExpr().Defresult); strength > 1 {
			return name, strength
		}
		return "case", 1
	case n.GetRowExpr() != nil:
		return "row", 2
	case n.GetCoalesceExpr() != nil:
		return "coalesce", 2
	case n.GetMinMaxExpr() != nil:
		if n.GetMinMaxExpr().Op == pg_query.MinMaxOp_IS_LEAST {
			return "least", 2
		}
		return "greatest", 2
	case n.GetAArrayExpr() != nil:
		return "array", 2
	case n.GetAIndirection() != nil:
		ind := n.GetAIndirection().Indirection
		if f := ind[len(ind)-1].GetString_(); f != nil {
			return f.Sval, 2
		}
		return figureColname(n.GetAIndirection().Arg)
	case n.GetCollateClause() != nil:
		return figureColname(n.GetCollateClause().Arg)
	case n.GetSubLink() != nil:
		sl := n.GetSubLink()
		switch sl.SubLinkType {
		case pg_query.SubLinkType_EXISTS_SUBLINK:
			return "exists", 2
		case pg_query.SubLinkType_ARRAY_SUBLINK:
			return "array", 2
		case pg_query.SubLinkType_EXPR_SUBLINK:
			if sel := sl.Subselect.GetSelectStmt(); sel != nil && len(sel.TargetList) == 1 {
				rt := sel.TargetList[0].GetResTarget()
				if rt.Name != "" {
					return rt.Name, 2
				}
				return columnName(rt.Val), 2
			}
		}
	case n.GetSqlvalueFunction() != nil:
		switch n.GetSqlvalueFunction().Op {
		case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
			return "current_date", 2
		case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N:
			return "current_time", 2
		case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
			return "current_timestamp", 2
		case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
			return "localtime", 2
		case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
			return "localtimestamp", 2
		case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_USER:
			return "current_user", 2
		case pg_query.SQLValueFunctionOp_SVFOP_SESSION_USER:
			return "session_user", 2
		case pg_query.SQLValueFunctionOp_SVFOP_USER:
			return "user", 2
		case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
			return "current_role", 2
		case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
			return "current_catalog", 2
		case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
			return "current_schema", 2
		}
	case n.GetAExpr() != nil:
		if n.GetAExpr().Kind == pg_query.A_Expr_Kind_AEXPR_NULLIF {
			return "nullif", 2
		}
	}
	return "", 0
}

// outputRef resolves an ORDER BY, GROUP BY or DISTINCT ON item that names
// an output column by position or by name; -1 if it does not.
func outputRef(n *pg_query.Node, names []string, nTargets int) (int, error) {
	if ac := n.GetAConst(); ac != nil {
		if iv := ac.GetIval(); iv != nil {
			i := int(iv.Ival)
			if i < 1 || i > nTargets {
				return 0, pgerr.New(pgerr.InvalidColumnReference, "position %d is not in select list", i).WithPosition(loc(ac.Location))
			}
			return i - 1, nil
		}
		return -1, nil
	}
	if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
		name := cr.Fields[0].GetString_().Sval
		found := -1
		for i, nm := range names[:nTargets] {
			if nm == name {
				if found >= 0 {
					return 0, pgerr.New(pgerr.AmbiguousColumn, "ORDER BY %q is ambiguous", name).WithPosition(loc(cr.Location))
				}
				found = i
			}
		}
		return found, nil
	}
	return -1, nil
}

// orderBy binds ORDER BY. Items that are not output columns are added to
// targets as hidden trailing columns. The keys reference the projection.
func (b *binder) orderBy(items []*pg_query.Node, c *exprCtx, targets *[]scalar.Expr, names []string) ([]planner.SortKey, error) {
	nVisible := len(names)
	var keys []planner.SortKey
	for _, n := range items {
		sb := n.GetSortBy()
		if sb.SortbyDir == pg_query.SortByDir_SORTBY_USING {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "ORDER BY … USING is not supported").WithPosition(loc(sb.Location))
		}
		idx, err := outputRef(sb.Node, names, nVisible)
		if err != nil {
			return nil, err
		}
		if idx < 0 {
			e, err := b.expr(sb.Node, &exprCtx{s: c.s, agg: c.agg, win: c.win, what: "ORDER BY"})
			if err != nil {
				return nil, err
			}
			idx = findExpr(*targets, e)
			if idx < 0 {
				*targets = append(*targets, e)
				idx = len(*targets) - 1
			}
		}
		keys = append(keys, sortKey(&scalar.ColRef{Idx: idx, Typ: (*targets)[idx].Type()}, sb))
	}
	return keys, nil
}

// distinctOn binds DISTINCT ON expressions to projection positions, as
// ORDER BY items are bound (window functions included).
func (b *binder) distinctOn(items []*pg_query.Node, c *exprCtx, targets *[]scalar.Expr, names []string) ([]int, error) {
	var cols []int
	for _, n := range items {
		idx, err := outputRef(n, names, len(names))
		if pe, ok := err.(*pgerr.Error); ok && pe.Code == pgerr.InvalidColumnReference {
			err = pgerr.New(pe.Code, "DISTINCT ON %s", pe.Message).WithPosition(pe.Position)
		}
		if err != nil {
			return nil, err
		}
		if idx < 0 {
			e, err := b.expr(n, &exprCtx{s: c.s, agg: c.agg, win: c.win, what: "DISTINCT ON"})
			if err != nil {
				return nil, err
			}
			idx = findExpr(*targets, e)
			if idx < 0 {
				*targets = append(*targets, e)
				idx = len(*targets) - 1
			}
		}
		cols = append(cols, idx)
	}
	return cols, nil
}

// distinctOnMatchesOrder checks PostgreSQL's rule for DISTINCT ON with
// ORDER BY (transformDistinctOnClause): the ORDER BY items that are
// DISTINCT ON items, repeats dropped, come first, and the DISTINCT ON
// items that ORDER BY lacks are allowed only when every ORDER BY item is
// one of them.
func distinctOnMatchesOrder(on []int, order []planner.SortKey) error {
	if len(order) == 0 {
		return nil
	}
	mismatch := pgerr.New(pgerr.InvalidColumnReference, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions")
	sorted := map[int]bool{}
	skipped := false
	for _, k := range order {
		idx := k.Expr.(*scalar.ColRef).Idx
		switch {
		case sorted[idx]:
		case slices.Contains(on, idx):
			if skipped {
				return mismatch
			}
			sorted[idx] = true
		default:
			skipped = true
		}
	}
	for _, idx := range on {
		if !sorted[idx] && skipped {
			return mismatch
		}
	}
	return nil
}

// findExpr returns the position of an expression equal to e, or -1.
func findExpr(list []scalar.Expr, e scalar.Expr) int {
	for i, x := range list {
		if exprEqual(x, e) {
			return i
		}
	}
	return -1
}

// exprEqual compares expressions structurally through their EXPLAIN text
// and type.
func exprEqual(a, b scalar.Expr) bool {
	return a.Type() == b.Type() && a.String() == b.String()
}

// groupBy binds GROUP BY items: output column positions and names (an
// input column of the same name wins, as in PostgreSQL) or expressions
// over the input. It returns the distinct key expressions and, when the
// clause uses GROUPING SETS, ROLLUP or CUBE, the grouping sets as lists of
// key positions (nil for a plain GROUP BY).
func (b *binder) groupBy(items []*pg_query.Node, s *scope, targets []scalar.Expr, names []string) ([]scalar.Expr, [][]int, error) {
	var keys []scalar.Expr
	keyOf := func(e scalar.Expr) int {
		if i := findExpr(keys, e); i >= 0 {
			return i
		}
		keys = append(keys, e)
		return len(keys) - 1
	}
	bindItem := func(n *pg_query.Node) (int, error) {
		if ac := n.GetAConst(); ac != nil && ac.GetIval() != nil {
			i := int(ac.GetIval().Ival)
			if i < 1 || i > len(targets) {
				return 0, pgerr.New(pgerr.InvalidColumnReference, "GROUP BY position %d is not in select list", i).WithPosition(loc(ac.Location))
			}
			if err := noAggregates(targets[i-1], "GROUP BY", loc(ac.Location)); err != nil {
				return 0, err
			}
			return keyOf(targets[i-1]), nil
		}
		if rt, ok, err := groupAlias(n, s, targets, names); err != nil {
			return 0, err
		} else if ok {
			return keyOf(rt), nil
		}
		e, err := b.expr(n, &exprCtx{s: s, what: "GROUP BY"})
		if err != nil {
			return 0, err
		}
		return keyOf(e), nil
	}
	sets := [][]int{{}}
	grouping := false
	for _, n := range items {
		var itemSets [][]int
		if gs := n.GetGroupingSet(); gs != nil {
			grouping = true
			var err error
			if itemSets, err = b.groupingSets(gs, bindItem); err != nil {
				return nil, nil, err
			}
		} else {
			k, err := bindItem(n)
			if err != nil {
				return nil, nil, err
			}
			itemSets = [][]int{{k}}
		}
		var next [][]int
		for _, a := range sets {
			for _, c := range itemSets {
				next = append(next, mergeSet(a, c))
			}
		}
		sets = next
	}
	if !grouping {
		return keys, nil, nil
	}
	if len(sets) > 4096 {
		return nil, nil, pgerr.New(pgerr.StatementTooComplex, "too many grouping sets present (maximum 4096)")
	}
	return keys, sets, nil
}

// groupingSets expands one GROUPING SETS, ROLLUP or CUBE item.
func (b *binder) groupingSets(gs *pg_query.GroupingSet, bindItem func(*pg_query.Node) (int, error)) ([][]int, error) {
	// bindItems binds the expressions of one grouping set.
	bindItems := func(nodes []*pg_query.Node) ([]int, error) {
		set := make([]int, 0, len(nodes))
		for _, a := range nodes {
			k, err := bindItem(a)
			if err != nil {
				return nil, err
			}
			set = append(set, k)
		}
		return set, nil
	}
	// elems binds the content as a list of sets: a plain expression is a
	// one-key set, a parenthesised row a multi-key set.
	elems := func() ([][]int, error) {
		var out [][]int
		for _, c := range gs.Content {
			if row := c.GetRowExpr(); row != nil {
				set, err := bindItems(row.Args)
				if err != nil {
					return nil, err
				}
				out = append(out, set)
				continue
			}
			if inner := c.GetGroupingSet(); inner != nil && inner.Kind == pg_query.GroupingSetKind_GROUPING_SET_SIMPLE {
				set, err := bindItems(inner.Content)
				if err != nil {
					return nil, err
				}
				out = append(out, set)
				continue
			}
			k, err := bindItem(c)
			if err != nil {
				return nil, err
			}
			out = append(out, []int{k})
		}
		return out, nil
	}
	switch gs.Kind {
	case pg_query.GroupingSetKind_GROUPING_SET_EMPTY:
		return [][]int{{}}, nil
	case pg_query.GroupingSetKind_GROUPING_SET_SIMPLE:
		es, err := elems()
		if err != nil {
			return nil, err
		}
		var set []int
		for _, e := range es {
			set = mergeSet(set, e)
		}
		return [][]int{set}, nil
	case pg_query.GroupingSetKind_GROUPING_SET_ROLLUP:
		es, err := elems()
		if err != nil {
			return nil, err
		}
		out := make([][]int, 0, len(es)+1)
		for i := len(es); i >= 0; i-- {
			var set []int
			for _, e := range es[:i] {
				set = mergeSet(set, e)
			}
			out = append(out, set)
		}
		return out, nil
	case pg_query.GroupingSetKind_GROUPING_SET_CUBE:
		es, err := elems()
		if err != nil {
			return nil, err
		}
		if len(es) > 12 {
			return nil, pgerr.New(pgerr.StatementTooComplex, "CUBE is limited to 12 elements").WithPosition(loc(gs.Location))
		}
		var out [][]int
		for mask := (1 << len(es)) - 1; mask >= 0; mask-- {
			var set []int
			for i, e := range es {
				if mask&(1<<(len(es)-1-i)) != 0 {
					set = mergeSet(set, e)
				}
			}
			out = append(out, set)
		}
		return out, nil
	case pg_query.GroupingSetKind_GROUPING_SET_SETS:
		var out [][]int
		for _, c := range gs.Content {
			if inner := c.GetGroupingSet(); inner != nil {
				sub, err := b.groupingSets(inner, bindItem)
				if err != nil {
					return nil, err
				}
				out = append(out, sub...)
				continue
			}
			if row := c.GetRowExpr(); row != nil {
				set, err := bindItems(row.Args)
				if err != nil {
					return nil, err
				}
				out = append(out, set)
				continue
			}
			k, err := bindItem(c)
			if err != nil {
				return nil, err
			}
			out = append(out, []int{k})
		}
		return out, nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "this grouping set is not supported").WithPosition(loc(gs.Location))
}

// mergeSet returns the union of two key sets, keeping first-seen order.
func mergeSet(a, b []int) []int {
	out := append([]int(nil), a...)
	for _, k := range b {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// groupAlias resolves a GROUP BY name to a select-list alias as
// PostgreSQL does (findTargetlistEntrySQL92): a column of the query's own
// FROM clause comes first, then the aliases, which must agree when
// several have the name, and only then the columns of enclosing queries.
func groupAlias(n *pg_query.Node, s *scope, targets []scalar.Expr, names []string) (scalar.Expr, bool, error) {
	cr := n.GetColumnRef()
	if cr == nil || len(cr.Fields) != 1 || cr.Fields[0].GetString_() == nil {
		return nil, false, nil
	}
	name := cr.Fields[0].GetString_().Sval
	if s.hasLocal(name) {
		return nil, false, nil
	}
	var found scalar.Expr
	for i, nm := range names {
		if nm != name || i >= len(targets) {
			continue
		}
		if found != nil && !exprEqual(found, targets[i]) {
			return nil, false, pgerr.New(pgerr.AmbiguousColumn, "GROUP BY %q is ambiguous", name).WithPosition(loc(cr.Location))
		}
		if found == nil {
			found = targets[i]
		}
	}
	if found == nil {
		return nil, false, nil
	}
	return found, true, noAggregates(found, "GROUP BY", loc(cr.Location))
}

// noAggregates rejects an aggregate call in a clause that cannot hold one.
func noAggregates(e scalar.Expr, what string, pos int) error {
	var found bool
	scalar.Walk(e, func(x scalar.Expr) bool {
		if _, ok := x.(*aggRef); ok {
			found = true
		}
		return !found
	})
	if found {
		return pgerr.New(pgerr.GroupingError, "aggregate functions are not allowed in %s", what).WithPosition(pos)
	}
	return nil
}

// overAggregate rewrites an expression bound over the aggregate's input
// into one over its output: group keys become key columns, aggregate calls
// become aggregate columns, and any other input column is an error.
func (b *binder) overAggregate(e scalar.Expr, keys []scalar.Expr, nAggs int, s *scope) (scalar.Expr, error) {
	if i := findExpr(keys, e); i >= 0 {
		return &scalar.ColRef{Idx: i, Typ: keys[i].Type()}, nil
	}
	switch x := e.(type) {
	case *aggRef:
		return &scalar.ColRef{Idx: len(keys) + x.idx, Typ: x.typ}, nil
	case *groupingRef:
		return &scalar.ColRef{Idx: len(keys) + nAggs + x.idx, Typ: types.TypeInt4}, nil
	case *scalar.ColRef:
		return nil, ungroupedError(s, x.Idx)
	case *planner.Subquery:
		c := *x
		c.Args = make([]scalar.Expr, len(x.Args))
		for i, a := range x.Args {
			r, err := b.overAggregate(a, keys, nAggs, s)
			if err != nil {
				return nil, err
			}
			c.Args[i] = r
		}
		var rerr error
		c.Plan = planner.RewriteOuterRefs(x.Plan, 1, func(o *planner.OuterRef) scalar.Expr {
			for i, k := range keys {
				if cr, ok := k.(*scalar.ColRef); ok && cr.Idx == o.Idx {
					return &planner.OuterRef{Depth: o.Depth, Idx: i, Typ: o.Typ}
				}
			}
			if rerr == nil {
				rerr = ungroupedError(s, o.Idx)
			}
			return o
		})
		// The subquery's aggregates over this query's columns only are
		// this query's (see enclosingAggs).
		c.Plan = planner.MapPlanExprs(c.Plan, func(e scalar.Expr, level int) scalar.Expr {
			if o, ok := e.(*outerAggRef); ok {
				return &planner.OuterRef{Depth: level + 1, Idx: len(keys) + o.idx, Typ: o.typ}
			}
			return e
		})
		return &c, rerr
	}
	kids := e.Children()
	if len(kids) == 0 {
		return e, nil
	}
	nk := make([]scalar.Expr, len(kids))
	for i, k := range kids {
		r, err := b.overAggregate(k, keys, nAggs, s)
		if err != nil {
			return nil, err
		}
		nk[i] = r
	}
	return e.WithChildren(nk), nil
}

func ungroupedError(s *scope, idx int) error {
	name := "?"
	for _, c := range s.cols {
		if c.idx == idx {
			name = c.name
			if c.table != "" {
				name = c.table + "." + c.name
			}
			break
		}
	}
	return pgerr.New(pgerr.GroupingError, "column %q must appear in the GROUP BY clause or be used in an aggregate function", name)
}

// limitOffset binds LIMIT and OFFSET as bigint expressions without column
// references.
func (b *binder) limitOffset(sel *pg_query.SelectStmt, q *planner.Query) error {
	bind := func(n *pg_query.Node, what string) (scalar.Expr, error) {
		if n == nil {
			return nil, nil
		}
		if ac := n.GetAConst(); ac != nil && ac.Isnull {
			return nil, nil
		}
		e, err := b.expr(n, &exprCtx{s: newScope(nil), what: what})
		if err != nil {
			return nil, err
		}
		return b.coerce(e, types.TypeInt8, coerceImplicit, 0)
	}
	var err error
	if q.Limit, err = bind(sel.LimitCount, "LIMIT"); err != nil {
		return err
	}
	q.Offset, err = bind(sel.LimitOffset, "OFFSET")
	return err
}
