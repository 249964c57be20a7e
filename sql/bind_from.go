package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// fromItem is one bound FROM-clause item.
type fromItem struct {
	node   planner.Node
	cols   []scopeCol
	tables []string
	// lateral items read the columns of the items before them: node is
	// the right side of an Apply over those items.
	lateral bool
	// rowTypes tells, per range variable, what a reference to its whole
	// row is (bind_record.go); absent: an anonymous record.
	rowTypes map[string]rowType
}

// oneRow is the relation of one empty row: the FROM of a SELECT without
// FROM.
func oneRow() planner.Node { return &planner.Values{Rows: [][]scalar.Expr{{}}} }

// fromClause binds the FROM list into one relation (left-deep cross joins)
// and the scope that resolves names over its rows.
func (b *binder) fromClause(items []*pg_query.Node, parent *scope) (planner.Node, *scope, error) {
	s := newScope(parent)
	if len(items) == 0 {
		return oneRow(), s, nil
	}
	var node planner.Node
	for _, it := range items {
		fi, err := b.fromItem(it, s, parent)
		if err != nil {
			return nil, nil, err
		}
		if err := addTables(s, fi.tables); err != nil {
			return nil, nil, err
		}
		s.addRowTypes(fi.rowTypes)
		switch {
		case node == nil && !fi.lateral:
			node = fi.node
		case node == nil:
			node = &planner.Apply{Kind: planner.InnerJoin, Left: oneRow(), Right: fi.node}
		case fi.lateral:
			node = &planner.Apply{Kind: planner.InnerJoin, Left: node, Right: fi.node}
		default:
			node = &planner.Join{Kind: planner.InnerJoin, Left: node, Right: fi.node, On: trueConst()}
		}
		s.cols = append(s.cols, shifted(fi.cols, s.width())...)
	}
	return node, s, nil
}

func trueConst() scalar.Expr { return scalar.NewConst(types.DTrue, types.TypeBool) }

// addTables registers range variable names, rejecting duplicates.
func addTables(s *scope, names []string) error {
	for _, t := range names {
		if s.tables[t] {
			return pgerr.New(pgerr.DuplicateAlias, "table name %q specified more than once", t)
		}
		s.tables[t] = true
	}
	return nil
}

// fromItem binds one item. left is the scope of the items to its left in
// the same FROM list, visible to LATERAL items; parent is the enclosing
// query's scope.
func (b *binder) fromItem(n *pg_query.Node, left *scope, parent *scope) (*fromItem, error) {
	switch {
	case n.GetRangeVar() != nil:
		return b.rangeVar(n.GetRangeVar(), parent)
	case n.GetJoinExpr() != nil:
		if left == nil || len(left.cols) == 0 || !holdsLateral(n) {
			return b.joinExpr(n.GetJoinExpr(), parent)
		}
		// The JOIN's LATERAL items may reference the items before it: it
		// is bound one level in, below them.
		before := &scope{cols: left.cols, tables: left.tables, parent: parent, lateralOnly: true}
		fi, err := b.joinExpr(n.GetJoinExpr(), before)
		if err != nil {
			return nil, err
		}
		return lateralItem(fi), nil
	case n.GetRangeSubselect() != nil:
		rs := n.GetRangeSubselect()
		sel := rs.Subquery.GetSelectStmt()
		outer := parent
		if rs.Lateral {
			outer = lateralScope(left, parent)
		}
		bq, err := b.selectStmt(sel, outer)
		if err != nil {
			return nil, err
		}
		if rs.Alias == nil {
			return nil, pgerr.New(pgerr.SyntaxError, "subquery in FROM must have an alias").
				WithHint("For example, FROM (SELECT ...) [AS] foo.")
		}
		node := queryNode(bq.q)
		fi, err := aliased(node, rs.Alias.Aliasname, rs.Alias)
		if err != nil {
			return nil, err
		}
		if rs.Lateral {
			return lateralItem(fi), nil
		}
		return fi, nil
	case n.GetRangeFunction() != nil:
		return b.rangeFunction(n.GetRangeFunction(), left, parent)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "FROM item %s is not supported", nodeName(n))
}

// holdsLateral reports whether a FROM item is or holds a LATERAL item: a
// LATERAL subquery or a function call, which is implicitly LATERAL.
func holdsLateral(n *pg_query.Node) bool {
	switch {
	case n.GetJoinExpr() != nil:
		return holdsLateral(n.GetJoinExpr().Larg) || holdsLateral(n.GetJoinExpr().Rarg)
	case n.GetRangeSubselect() != nil:
		return n.GetRangeSubselect().Lateral
	}
	return n.GetRangeFunction() != nil
}

// lateralScope presents the columns left of a LATERAL item as the scope
// one level out.
func lateralScope(left *scope, parent *scope) *scope {
	ls := newScope(parent)
	ls.lateral = true
	if left != nil {
		ls.cols = left.cols
		ls.tables = left.tables
	}
	return ls
}

// lateralItem finishes an item bound one level in, below the items to its
// left: one that references them is the right side of an Apply over
// them; one that does not is an ordinary item, its references to
// enclosing queries, at any depth, one level shallower.
func lateralItem(fi *fromItem) *fromItem {
	fi.lateral = planner.HasOuterRefs(fi.node, 1)
	if !fi.lateral {
		fi.node = planner.ShiftDepth(fi.node, -1)
	}
	return fi
}

// aliased names a relation's columns for the scope: the range variable
// name, with column aliases overriding the first names.
func aliased(node planner.Node, table string, alias *pg_query.Alias) (*fromItem, error) {
	cols := node.Columns()
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	if alias != nil {
		ac := nameList(alias.Colnames)
		if len(ac) > len(cols) {
			return nil, pgerr.New(pgerr.InvalidColumnReference, "table %q has %d columns available but %d columns specified", table, len(cols), len(ac))
		}
		copy(names, ac)
	}
	fi := &fromItem{node: node, tables: []string{table}}
	for i, c := range cols {
		fi.cols = append(fi.cols, scopeCol{table: table, name: names[i], idx: i, typ: c.Type})
	}
	return fi, nil
}

// rangeVar binds a named FROM item, whose query level has parent around
// it.
func (b *binder) rangeVar(rv *pg_query.RangeVar, parent *scope) (*fromItem, error) {
	name := rv.Relname
	table := name
	if rv.Alias != nil {
		table = rv.Alias.Aliasname
	}
	if rv.Schemaname == "" {
		if cte := b.lookupCTE(name); cte != nil {
			// Referenced from within a subquery of its WITH clause's query,
			// the WITH query is levels further from the rows around it.
			levels, ok := levelsBetween(parent, cte.scope)
			if !ok {
				return nil, pgerr.New(pgerr.InternalError, "WITH query %q referenced outside the query it belongs to", name)
			}
			return aliased(planner.ShiftDepth(cte.plan, levels), table, rv.Alias)
		}
	}
	if rv.Catalogname != "" && rv.Catalogname != b.sess.database {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cross-database references are not implemented: %s.%s.%s", rv.Catalogname, rv.Schemaname, name).WithPosition(loc(rv.Location))
	}
	if fi, ok, err := b.systemRelation(rv, table); ok {
		return fi, err
	}
	obj, ok := b.cat.Lookup(rv.Schemaname, name)
	if !ok {
		if rv.Schemaname != "" {
			name = rv.Schemaname + "." + name
		}
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name).WithPosition(loc(rv.Location))
	}
	b.deps[obj.ID] = true
	b.require(obj, catalog.PrivSelect)
	var node planner.Node
	switch obj.Kind {
	case catalog.KindTable, catalog.KindMaterializedView, catalog.KindSubsource:
		node = b.getObject(obj)
	case catalog.KindSource:
		if len(obj.Columns) == 0 {
			return nil, pgerr.New(pgerr.WrongObjectType, "source %q has several tables; select from one of them", name).
				WithHint("SHOW OBJECTS lists them.").WithPosition(loc(rv.Location))
		}
		node = b.getObject(obj)
	case catalog.KindView:
		node = obj.Plan
	default:
		return nil, pgerr.New(pgerr.WrongObjectType, "%q is %s %s", name, article(obj.Kind), obj.Kind).WithPosition(loc(rv.Location))
	}
	fi, err := aliased(node, table, rv.Alias)
	if err != nil {
		return nil, err
	}
	fi.rowTypes = map[string]rowType{table: {name: obj.Name}}
	return fi, nil
}

// getObject returns the plan that reads a table or materialized view, with
// the keys the planner may use for lookups.
func (b *binder) getObject(obj *catalog.Object) *planner.Get {
	g := &planner.Get{ID: planner.ObjectID(obj.ID), Name: obj.Name, Cols: obj.PlanColumns(), KeyCols: obj.PrimaryKey, AppendOnly: obj.Cold}
	for _, d := range b.cat.Dependents(obj.ID) {
		if d.Kind == catalog.KindIndex && d.On == obj.ID {
			g.Indexes = append(g.Indexes, planner.IndexRef{ID: planner.ObjectID(d.ID), Name: d.Name, KeyCols: d.KeyCols})
		}
	}
	return g
}

// joinExpr binds a JOIN, whose query level has parent around it. Its
// left item has nothing to its left inside the JOIN: what is before the
// JOIN, its LATERAL items see through parent (see fromItem).
func (b *binder) joinExpr(j *pg_query.JoinExpr, parent *scope) (*fromItem, error) {
	l, err := b.fromItem(j.Larg, nil, parent)
	if err != nil {
		return nil, err
	}
	// A LATERAL item on the right of a JOIN sees the join's left side.
	ls := newScope(parent)
	ls.cols = l.cols
	for _, t := range l.tables {
		ls.tables[t] = true
	}
	r, err := b.fromItem(j.Rarg, ls, parent)
	if err != nil {
		return nil, err
	}
	var kind planner.JoinKind
	switch j.Jointype {
	case pg_query.JoinType_JOIN_INNER:
		kind = planner.InnerJoin
	case pg_query.JoinType_JOIN_LEFT:
		kind = planner.LeftJoin
	case pg_query.JoinType_JOIN_RIGHT:
		kind = planner.RightJoin
	case pg_query.JoinType_JOIN_FULL:
		kind = planner.FullJoin
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "join type %s is not supported", j.Jointype)
	}
	if r.lateral && kind != planner.InnerJoin && kind != planner.LeftJoin {
		return nil, pgerr.New(pgerr.InvalidColumnReference, "the combining JOIN type must be INNER or LEFT for a LATERAL reference")
	}
	switch kind {
	case planner.LeftJoin:
		b.markNullable(r)
	case planner.RightJoin:
		b.markNullable(l)
	case planner.FullJoin:
		b.markNullable(l)
		b.markNullable(r)
	}
	s := newScope(parent)
	s.cols = append(append([]scopeCol(nil), l.cols...), shifted(r.cols, len(l.node.Columns()))...)
	for _, t := range append(append([]string(nil), l.tables...), r.tables...) {
		if s.tables[t] {
			return nil, pgerr.New(pgerr.DuplicateAlias, "table name %q specified more than once", t)
		}
		s.tables[t] = true
	}
	s.addRowTypes(l.rowTypes)
	s.addRowTypes(r.rowTypes)

	var on scalar.Expr = trueConst()
	var using []string
	switch {
	case j.IsNatural:
		for _, lc := range l.cols {
			if lc.qualifiedOnly || lc.hidden {
				continue
			}
			for _, rc := range r.cols {
				if rc.name == lc.name && !rc.qualifiedOnly && !rc.hidden {
					using = append(using, lc.name)
					break
				}
			}
		}
	case len(j.UsingClause) > 0:
		using = nameList(j.UsingClause)
	case j.Quals != nil:
		cond, err := b.expr(j.Quals, &exprCtx{s: s, what: "JOIN conditions"})
		if err != nil {
			return nil, err
		}
		if on, err = b.coerceBool(cond, "JOIN/ON", 0); err != nil {
			return nil, err
		}
	}
	var node planner.Node
	if r.lateral {
		right := r.node
		if j.Quals != nil && kind == planner.LeftJoin {
			// The condition decides which right rows match, so it filters
			// the right side, where the left row is the outer one.
			pred, ok := lateralCondition(on, len(l.node.Columns()))
			if !ok {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "LEFT JOIN LATERAL with a subquery or outer reference in its join condition is not supported; use ON true and a WHERE clause inside the subquery")
			}
			right = &planner.Filter{Input: right, Pred: pred}
		}
		node = &planner.Apply{Kind: kind, Left: l.node, Right: right}
		if j.Quals != nil && kind == planner.InnerJoin {
			node = &planner.Filter{Input: node, Pred: on}
		}
	} else if using == nil {
		node = &planner.Join{Kind: kind, Left: l.node, Right: r.node, On: on}
	}
	fi := &fromItem{node: node, cols: s.cols, tables: append(append([]string(nil), l.tables...), r.tables...), rowTypes: s.rowTypes}
	if using != nil {
		if err := b.usingJoin(fi, kind, l, r, using); err != nil {
			return nil, err
		}
		if j.JoinUsingAlias != nil {
			if err := usingAlias(fi, len(using), j.JoinUsingAlias.Aliasname); err != nil {
				return nil, err
			}
		}
	}
	if j.Alias != nil {
		return aliasJoin(fi, j.Alias)
	}
	return fi, nil
}

// lateralCondition rewrites a join condition over the left columns
// followed by the right ones into a predicate over the right side of an
// Apply: left columns become references to the outer row. ok is false
// when the condition holds a subquery or an outer reference, whose levels
// the move would shift.
func lateralCondition(on scalar.Expr, leftWidth int) (scalar.Expr, bool) {
	ok := true
	scalar.Walk(on, func(e scalar.Expr) bool {
		switch e.(type) {
		case *planner.OuterRef, *planner.Subquery:
			ok = false
		}
		return ok
	})
	if !ok {
		return nil, false
	}
	return scalar.Rewrite(on, func(e scalar.Expr) scalar.Expr {
		c, isCol := e.(*scalar.ColRef)
		switch {
		case !isCol:
			return e
		case c.Idx < leftWidth:
			return &planner.OuterRef{Depth: 1, Idx: c.Idx, Typ: c.Typ}
		default:
			return &scalar.ColRef{Idx: c.Idx - leftWidth, Typ: c.Typ}
		}
	}), true
}

// usingJoin builds a JOIN … USING (or NATURAL JOIN): the join condition
// equates the named columns, and a projection puts the merged columns
// first, as PostgreSQL's * shows them.
func (b *binder) usingJoin(fi *fromItem, kind planner.JoinKind, l, r *fromItem, using []string) error {
	lw := len(l.node.Columns())
	var conds, merged []scalar.Expr
	var mergedCols []scopeCol
	hideL, hideR := map[int]bool{}, map[int]bool{}
	for _, name := range using {
		lc, err := uniqueCol(l.cols, name, "left")
		if err != nil {
			return err
		}
		rc, err := uniqueCol(r.cols, name, "right")
		if err != nil {
			return err
		}
		le := scalar.Expr(&scalar.ColRef{Idx: lc.idx, Typ: lc.typ})
		re := scalar.Expr(&scalar.ColRef{Idx: lw + rc.idx, Typ: rc.typ})
		pair := []scalar.Expr{le, re}
		t, err := b.unify(pair, "JOIN/USING", 0)
		if err != nil {
			return err
		}
		eq, err := b.binaryOp("=", pair[0], pair[1], 0)
		if err != nil {
			return err
		}
		conds = append(conds, eq)
		var m scalar.Expr
		switch kind {
		case planner.RightJoin:
			m = pair[1]
		case planner.FullJoin:
			m = &scalar.Coalesce{Args: pair, Typ: t}
		default:
			m = pair[0]
		}
		merged = append(merged, m)
		mergedCols = append(mergedCols, scopeCol{name: name, typ: t})
		hideL[lc.idx] = true
		hideR[rc.idx] = true
	}
	join := &planner.Join{Kind: kind, Left: l.node, Right: r.node, On: scalar.NewAnd(conds)}
	jcols := join.Columns()
	exprs := append([]scalar.Expr(nil), merged...)
	var cols []scopeCol
	for i := range mergedCols {
		mergedCols[i].idx = i
		cols = append(cols, mergedCols[i])
	}
	off := len(merged)
	for i, c := range jcols {
		exprs = append(exprs, &scalar.ColRef{Idx: i, Typ: c.Type})
	}
	for _, c := range l.cols {
		c.qualifiedOnly = c.qualifiedOnly || hideL[c.idx]
		c.idx += off
		cols = append(cols, c)
	}
	for _, c := range r.cols {
		c.qualifiedOnly = c.qualifiedOnly || hideR[c.idx]
		c.idx += off + lw
		cols = append(cols, c)
	}
	pcols := make([]planner.Column, len(exprs))
	for i, e := range exprs {
		name := "?column?"
		if i < off {
			name = mergedCols[i].name
		} else {
			name = jcols[i-off].Name
		}
		pcols[i] = planner.Column{Name: name, Type: e.Type()}
	}
	fi.node = &planner.Project{Input: join, Exprs: exprs, Cols: pcols}
	fi.cols = cols
	return nil
}

// usingAlias names the n merged columns of a JOIN … USING (…) AS alias
// (PostgreSQL 14): alias.col reaches a merged column, while the joined
// tables stay visible, so the alias's columns are qualified-only.
func usingAlias(fi *fromItem, n int, alias string) error {
	for _, t := range fi.tables {
		if t == alias {
			return pgerr.New(pgerr.DuplicateAlias, "table name %q specified more than once", alias)
		}
	}
	fi.tables = append(fi.tables, alias)
	for _, c := range fi.cols[:n] {
		c.table, c.qualifiedOnly = alias, true
		fi.cols = append(fi.cols, c)
	}
	return nil
}

func uniqueCol(cols []scopeCol, name, side string) (scopeCol, error) {
	var found *scopeCol
	for i := range cols {
		c := &cols[i]
		if c.name != name || c.qualifiedOnly || c.hidden {
			continue
		}
		if found != nil {
			return scopeCol{}, pgerr.New(pgerr.AmbiguousColumn, "common column name %q appears more than once in %s table", name, side)
		}
		found = c
	}
	if found == nil {
		return scopeCol{}, pgerr.New(pgerr.UndefinedColumn, "column %q specified in USING clause does not exist in %s table", name, side)
	}
	return *found, nil
}

// aliasJoin applies JOIN … AS alias: the joined columns belong to the alias
// and the inner range variables are no longer visible.
func aliasJoin(fi *fromItem, alias *pg_query.Alias) (*fromItem, error) {
	names := nameList(alias.Colnames)
	var cols []scopeCol
	i := 0
	for _, c := range fi.cols {
		if c.qualifiedOnly || c.hidden {
			continue
		}
		c.table = alias.Aliasname
		if i < len(names) {
			c.name = names[i]
		}
		i++
		cols = append(cols, c)
	}
	if len(names) > i {
		return nil, pgerr.New(pgerr.InvalidColumnReference, "table %q has %d columns available but %d columns specified", alias.Aliasname, i, len(names))
	}
	return &fromItem{node: fi.node, cols: cols, tables: []string{alias.Aliasname}, lateral: fi.lateral}, nil
}

// rangeFunction binds a set-returning function in FROM, or ROWS FROM of
// several. Its arguments may read the items to its left (functions in
// FROM are implicitly LATERAL), so it is bound one level in, as the
// right side of an Apply.
func (b *binder) rangeFunction(rf *pg_query.RangeFunction, left *scope, parent *scope) (*fromItem, error) {
	if len(rf.Functions) > 1 && rf.Alias != nil && rf.Alias.Aliasname == srfAliasPrefix {
		return b.liftedFunctions(rf, left, parent)
	}
	if len(rf.Coldeflist) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "column definition lists are not supported")
	}
	inner := newScope(lateralScope(left, parent))
	c := &exprCtx{s: inner, what: "functions in FROM"}
	if len(rf.Functions) > 1 {
		return b.rowsFrom(rf, c)
	}
	items := rf.Functions[0].GetList().Items
	if len(items) > 1 && items[1].GetList() != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "column definition lists are not supported")
	}
	fc := items[0].GetFuncCall()
	if fc == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "only function calls are supported in FROM")
	}
	name, args, err := b.fromFuncArgs(fc, c)
	if err != nil {
		return nil, err
	}
	if !scalar.IsTableFunc(name) && scalar.Known(name) && !rf.Ordinality {
		// A scalar function in FROM is a one-row relation, as in
		// PostgreSQL (FROM string_to_array(...) s).
		e, err := b.callFunc(name, args, loc(fc.Location))
		if err != nil {
			return nil, err
		}
		table, col := name, name
		if rf.Alias != nil {
			table = rf.Alias.Aliasname
			if len(rf.Alias.Colnames) == 0 {
				col = table
			}
		}
		node := &planner.Project{Input: oneRow(), Exprs: []scalar.Expr{e}, Cols: []planner.Column{{Name: col, Type: e.Type()}}}
		fi, err := b.functionItem(node, table, rf.Alias)
		if err == nil {
			fi.rowTypes = map[string]rowType{table: {scalar: true}}
		}
		return fi, err
	}
	tf, args, err := b.tableFunc(name, args, loc(fc.Location))
	if err != nil {
		return nil, err
	}
	fcols := tf.Columns(tf.Params)
	cols := make([]planner.Column, len(fcols))
	for i, c := range fcols {
		cols[i] = planner.Column{Name: c.Name, Type: c.Type}
	}
	table := name
	if rf.Alias != nil {
		table = rf.Alias.Aliasname
		if len(cols) == 1 && len(rf.Alias.Colnames) == 0 && !tf.NamedColumn() {
			cols[0].Name = table
		}
	} else if len(cols) == 1 && !tf.NamedColumn() {
		cols[0].Name = name
	}
	node := planner.Node(&planner.FlatMap{Input: oneRow(), Func: tf, Args: args, Cols: cols, Ordinality: rf.Ordinality})
	fi, err := b.functionItem(node, table, rf.Alias)
	if err == nil && len(cols) == 1 && !rf.Ordinality {
		// The whole row of a function returning one value is that value.
		fi.rowTypes = map[string]rowType{table: {scalar: true}}
	}
	return fi, err
}

// fromFuncArgs binds the name and arguments of a function call in FROM.
func (b *binder) fromFuncArgs(fc *pg_query.FuncCall, c *exprCtx) (string, []scalar.Expr, error) {
	name, err := b.callableName(fc.Funcname)
	if err != nil {
		return "", nil, withPosition(err, loc(fc.Location))
	}
	args := make([]scalar.Expr, len(fc.Args))
	for i, an := range fc.Args {
		if args[i], err = b.expr(an, c); err != nil {
			return "", nil, err
		}
	}
	return name, args, nil
}

// tableFunc resolves a set-returning function for its arguments and casts
// them to its parameters.
func (b *binder) tableFunc(name string, args []scalar.Expr, pos int) (*scalar.TableFunc, []scalar.Expr, error) {
	argTypes := make([]types.Type, len(args))
	for i, a := range args {
		argTypes[i] = a.Type()
	}
	tf, targets, err := scalar.ResolveTableFunc(name, argTypes)
	if err != nil {
		return nil, nil, withPosition(err, pos)
	}
	if b.inView && tf.Volatility != scalar.Immutable {
		return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "calls to %s are not allowed in materialized views", name).WithPosition(pos)
	}
	for i := range args {
		if args[i], err = b.coerce(args[i], targets[i], coerceImplicit, pos); err != nil {
			return nil, nil, err
		}
	}
	return tf, args, nil
}

// rowsFrom binds ROWS FROM (f(...), g(...), ...): the functions run side
// by side (scalar.RowsFrom), each contributing its columns, named as
// each would be on its own without an alias.
func (b *binder) rowsFrom(rf *pg_query.RangeFunction, c *exprCtx) (*fromItem, error) {
	var fns []*scalar.TableFunc
	var args []scalar.Expr
	for _, item := range rf.Functions {
		items := item.GetList().Items
		if len(items) > 1 && items[1].GetList() != nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "column definition lists are not supported")
		}
		fc := items[0].GetFuncCall()
		if fc == nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "only function calls are supported in FROM")
		}
		name, fargs, err := b.fromFuncArgs(fc, c)
		if err != nil {
			return nil, err
		}
		var tf *scalar.TableFunc
		if !scalar.IsTableFunc(name) && scalar.Known(name) {
			e, err := b.callFunc(name, fargs, loc(fc.Location))
			if err != nil {
				return nil, err
			}
			call, ok := e.(*scalar.Call)
			if !ok {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "%s is not supported in ROWS FROM", name).WithPosition(loc(fc.Location))
			}
			params := make([]types.Type, len(call.Args))
			for i, a := range call.Args {
				params[i] = a.Type()
			}
			tf, fargs = scalar.SingleRow(call.Fn, params), call.Args
		} else if tf, fargs, err = b.tableFunc(name, fargs, loc(fc.Location)); err != nil {
			return nil, err
		}
		fns = append(fns, tf)
		args = append(args, fargs...)
	}
	tf := scalar.RowsFrom(fns)
	var cols []planner.Column
	for _, f := range fns {
		fcols := f.Columns(f.Params)
		for _, fc := range fcols {
			name := fc.Name
			if len(fcols) == 1 && !f.NamedColumn() {
				name = f.Name
			}
			cols = append(cols, planner.Column{Name: name, Type: fc.Type})
		}
	}
	table := fns[0].Name
	if rf.Alias != nil {
		table = rf.Alias.Aliasname
	}
	node := planner.Node(&planner.FlatMap{Input: oneRow(), Func: tf, Args: args, Cols: cols, Ordinality: rf.Ordinality})
	return b.functionItem(node, table, rf.Alias)
}

// functionItem names a function's relation in FROM and marks it lateral
// when it reads the items to its left.
func (b *binder) functionItem(node planner.Node, table string, alias *pg_query.Alias) (*fromItem, error) {
	fi, err := aliased(node, table, alias)
	if err != nil {
		return nil, err
	}
	return lateralItem(fi), nil
}
