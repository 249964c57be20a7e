package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// writeTarget resolves the table an INSERT, UPDATE or DELETE changes.
func writeTarget(cat *catalog.Catalog, rv *pg_query.RangeVar, verb string) (*catalog.Object, error) {
	obj, ok := cat.Lookup(rv.Schemaname, rv.Relname)
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", rv.Relname).WithPosition(loc(rv.Location))
	}
	if obj.Kind != catalog.KindTable {
		return nil, pgerr.New(pgerr.WrongObjectType, "cannot %s %s %q", verb, obj.Kind, obj.Name).
			WithDetail("Only tables can be changed; %s are maintained from their inputs.", pluralKind(obj.Kind))
	}
	return obj, nil
}

func pluralKind(k catalog.ObjectKind) string {
	switch k {
	case catalog.KindView:
		return "views"
	case catalog.KindMaterializedView:
		return "materialized views"
	case catalog.KindIndex:
		return "indexes"
	}
	return "tables"
}

// tableScope is the scope of a table's row (plus its hidden key column).
func tableScope(obj *catalog.Object, alias string) *scope {
	s := newScope(nil)
	if alias == "" {
		alias = obj.Name
	}
	s.tables[alias] = true
	for i, c := range obj.Columns {
		s.cols = append(s.cols, scopeCol{table: alias, name: c.Name, idx: i, typ: c.Type})
	}
	return s
}

// keyedGet reads a table with each row's storage key appended.
func keyedGet(b *binder, obj *catalog.Object) *planner.Get {
	g := b.getObject(obj)
	g.WithKey = true
	g.Cols = append(append([]planner.Column(nil), g.Cols...), planner.Column{Name: "?key?", Type: types.TypeBytea})
	return g
}

// columnDefault binds a column's DEFAULT expression, or NULL.
func (b *binder) columnDefault(c catalog.ColumnDef) (scalar.Expr, error) {
	if c.Default == "" {
		return scalar.NullOf(c.Type), nil
	}
	raws, err := parseQuery("SELECT " + c.Default)
	if err != nil {
		return nil, err
	}
	rt := raws[0].node.GetSelectStmt().TargetList[0].GetResTarget()
	e, err := b.expr(rt.Val, &exprCtx{s: newScope(nil), what: "DEFAULT expressions"})
	if err != nil {
		return nil, err
	}
	return b.coerce(e, c.Type, coerceAssignment, 0)
}

// checkExprs binds a table's CHECK constraints over its row.
func (b *binder) checkExprs(obj *catalog.Object) ([]scalar.Expr, error) {
	var out []scalar.Expr
	for _, chk := range obj.Checks {
		raws, err := parseQuery("SELECT " + chk.Expr)
		if err != nil {
			return nil, err
		}
		rt := raws[0].node.GetSelectStmt().TargetList[0].GetResTarget()
		e, err := b.expr(rt.Val, &exprCtx{s: tableScope(obj, ""), what: "check constraints"})
		if err != nil {
			return nil, err
		}
		if e, err = b.coerceBool(e, "CHECK", 0); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// returning binds a RETURNING list over the table's row.
func (b *binder) returning(list []*pg_query.Node, obj *catalog.Object, alias string) ([]scalar.Expr, []planner.Column, error) {
	if len(list) == 0 {
		return nil, nil, nil
	}
	s := tableScope(obj, alias)
	exprs, names, err := b.targetList(list, &exprCtx{s: s, what: "RETURNING"}, true, nil)
	if err != nil {
		return nil, nil, err
	}
	cols := make([]planner.Column, len(exprs))
	for i, e := range exprs {
		if e.Type().Family == types.Unknown {
			if exprs[i], err = b.coerce(e, types.TypeText, coerceImplicit, 0); err != nil {
				return nil, nil, err
			}
		}
		cols[i] = planner.Column{Name: names[i], Type: exprs[i].Type()}
	}
	return exprs, cols, nil
}

// insertPlan binds INSERT's source and returns a plan producing complete
// table rows.
func (b *binder) insertPlan(ins *pg_query.InsertStmt, obj *catalog.Object) (planner.Node, error) {
	var targets []int
	implicit := len(ins.Cols) == 0
	if implicit {
		// Without a column list the values fill the first columns.
		n := len(obj.Columns)
		if sel := ins.SelectStmt.GetSelectStmt(); sel != nil && len(sel.ValuesLists) > 0 {
			n = min(n, len(sel.ValuesLists[0].GetList().Items))
		}
		for i := 0; i < n; i++ {
			targets = append(targets, i)
		}
	} else {
		seen := map[int]bool{}
		for _, cn := range ins.Cols {
			rt := cn.GetResTarget()
			if len(rt.Indirection) > 0 {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "INSERT into array elements or fields is not supported").WithPosition(loc(rt.Location))
			}
			idx := -1
			for i, c := range obj.Columns {
				if c.Name == rt.Name {
					idx = i
				}
			}
			if idx < 0 {
				return nil, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", rt.Name, obj.Name).WithPosition(loc(rt.Location))
			}
			if seen[idx] {
				return nil, pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", rt.Name).WithPosition(loc(rt.Location))
			}
			seen[idx] = true
			targets = append(targets, idx)
		}
	}
	ttypes := make([]types.Type, len(targets))
	for i, t := range targets {
		ttypes[i] = obj.Columns[t].Type
	}
	defaults := make([]scalar.Expr, len(obj.Columns))
	for i, c := range obj.Columns {
		d, err := b.columnDefault(c)
		if err != nil {
			return nil, err
		}
		defaults[i] = d
	}
	var source planner.Node
	sel := ins.SelectStmt.GetSelectStmt()
	switch {
	case sel == nil:
		source = oneRow() // DEFAULT VALUES
		targets = nil
	case len(sel.ValuesLists) > 0 && sel.WithClause == nil && len(sel.SortClause) == 0 && sel.LimitCount == nil:
		v, err := b.values(sel.ValuesLists, nil, ttypes)
		if err != nil {
			return nil, err
		}
		if err := insertWidth(len(v.Cols), len(targets)); err != nil {
			return nil, err
		}
		for _, row := range v.Rows {
			for i, e := range row {
				if _, ok := e.(defaultMarker); ok {
					row[i] = defaults[targets[i]]
				} else if err := insertIdentity(obj.Columns[targets[i]], ins.Override); err != nil {
					return nil, err
				}
			}
		}
		source = v
	default:
		bq, err := b.selectStmt(sel, nil)
		if err != nil {
			return nil, err
		}
		node := queryNode(bq.q)
		cols := node.Columns()
		if implicit && len(cols) < len(targets) {
			targets, ttypes = targets[:len(cols)], ttypes[:len(cols)]
		}
		if err := insertWidth(len(cols), len(targets)); err != nil {
			return nil, err
		}
		for _, t := range targets {
			if err := insertIdentity(obj.Columns[t], ins.Override); err != nil {
				return nil, err
			}
		}
		exprs := make([]scalar.Expr, len(cols))
		for i, c := range cols {
			e, err := b.coerce(&scalar.ColRef{Idx: i, Typ: c.Type}, ttypes[i], coerceAssignment, 0)
			if err != nil {
				return nil, pgerr.New(pgerr.DatatypeMismatch, "column %q is of type %s but expression is of type %s", obj.Columns[targets[i]].Name, ttypes[i], c.Type).
					WithHint("You will need to rewrite or cast the expression.")
			}
			exprs[i] = e
		}
		source = &planner.Project{Input: node, Exprs: exprs, Cols: planColumnsOf(exprs)}
	}
	full := make([]scalar.Expr, len(obj.Columns))
	copy(full, defaults)
	for i, t := range targets {
		// OVERRIDING USER VALUE: identity columns take their sequence's
		// next value whatever the statement gives them.
		if obj.Columns[t].Identity == "" || ins.Override != pg_query.OverridingKind_OVERRIDING_USER_VALUE {
			full[t] = &scalar.ColRef{Idx: i, Typ: ttypes[i]}
		}
	}
	return &planner.Project{Input: source, Exprs: full, Cols: obj.PlanColumns()}, nil
}

// insertIdentity checks that INSERT may give column c a value other than
// DEFAULT: a GENERATED ALWAYS identity column takes one only with
// OVERRIDING SYSTEM VALUE (or OVERRIDING USER VALUE, which ignores it).
func insertIdentity(c catalog.ColumnDef, override pg_query.OverridingKind) error {
	if c.Identity != "a" || override != pg_query.OverridingKind_OVERRIDING_NOT_SET {
		return nil
	}
	return pgerr.New(pgerr.GeneratedAlways, "cannot insert a non-DEFAULT value into column %q", c.Name).
		WithDetail("Column %q is an identity column defined as GENERATED ALWAYS.", c.Name).
		WithHint("Use OVERRIDING SYSTEM VALUE to override.")
}

func insertWidth(exprs, targets int) error {
	switch {
	case exprs > targets:
		return pgerr.New(pgerr.SyntaxError, "INSERT has more expressions than target columns")
	case exprs < targets:
		return pgerr.New(pgerr.SyntaxError, "INSERT has more target columns than expressions")
	}
	return nil
}

func planColumnsOf(exprs []scalar.Expr) []planner.Column {
	cols := make([]planner.Column, len(exprs))
	for i, e := range exprs {
		cols[i] = planner.Column{Name: "?column?", Type: e.Type()}
	}
	return cols
}

// updatePlan binds UPDATE: a plan producing, for every row to change, the
// new row followed by the old row's storage key.
func (b *binder) updatePlan(up *pg_query.UpdateStmt, obj *catalog.Object, alias string) (planner.Node, error) {
	g := keyedGet(b, obj)
	b.deps[obj.ID] = true
	s := tableScope(obj, alias)
	node, err := b.joinOthers(g, s, obj, up.FromClause)
	if err != nil {
		return nil, err
	}
	if up.WhereClause != nil {
		pred, err := b.expr(up.WhereClause, &exprCtx{s: s, what: "WHERE"})
		if err != nil {
			return nil, err
		}
		if pred, err = b.coerceBool(pred, "WHERE", 0); err != nil {
			return nil, err
		}
		node = &planner.Filter{Input: node, Pred: pred}
	}
	exprs := make([]scalar.Expr, len(obj.Columns)+1)
	for i, c := range obj.Columns {
		exprs[i] = &scalar.ColRef{Idx: i, Typ: c.Type}
	}
	exprs[len(obj.Columns)] = &scalar.ColRef{Idx: len(obj.Columns), Typ: types.TypeBytea}
	set := map[int]bool{}
	for _, tn := range up.TargetList {
		rt := tn.GetResTarget()
		if len(rt.Indirection) > 0 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "UPDATE of array elements or fields is not supported").WithPosition(loc(rt.Location))
		}
		if rt.Val.GetMultiAssignRef() != nil {
			if name, dup := duplicateTarget(up.TargetList); dup {
				return nil, multipleAssignments(name)
			}
			return nil, pgerr.New(pgerr.FeatureNotSupported, "UPDATE with a row of values is not supported; assign each column").WithPosition(loc(rt.Location))
		}
		idx, ce, err := b.assignment(rt, obj, s, "UPDATE")
		if err != nil {
			return nil, err
		}
		if set[idx] {
			return nil, multipleAssignments(rt.Name)
		}
		set[idx] = true
		exprs[idx] = ce
	}
	// UPDATE needs SELECT too when it reads the table's columns, as in
	// PostgreSQL: in a WHERE or FROM, or in a value it assigns.
	privs := catalog.PrivUpdate
	if up.WhereClause != nil || len(up.FromClause) > 0 {
		privs |= catalog.PrivSelect
	}
	for idx := range set {
		for _, c := range scalar.ColumnsUsed(exprs[idx]) {
			if c < len(obj.Columns) {
				privs |= catalog.PrivSelect
			}
		}
	}
	b.require(obj, privs)
	var out planner.Node = &planner.Project{Input: node, Exprs: exprs, Cols: planColumnsOf(exprs)}
	if len(up.FromClause) > 0 {
		out = onePerKey(out, len(obj.Columns))
	}
	return out, nil
}

// assignment binds one SET column = value of an UPDATE or an ON
// CONFLICT DO UPDATE: the column's position and the value over s,
// DEFAULT included, cast to the column's type.
func (b *binder) assignment(rt *pg_query.ResTarget, obj *catalog.Object, s *scope, what string) (int, scalar.Expr, error) {
	idx := columnIndex(obj, rt.Name)
	if idx < 0 {
		return 0, nil, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", rt.Name, obj.Name).WithPosition(loc(rt.Location))
	}
	var e scalar.Expr
	var err error
	switch c := obj.Columns[idx]; {
	case rt.Val.GetSetToDefault() != nil:
		e, err = b.columnDefault(c)
	case c.Identity == "a":
		return 0, nil, pgerr.New(pgerr.GeneratedAlways, "column %q can only be updated to DEFAULT", c.Name).
			WithDetail("Column %q is an identity column defined as GENERATED ALWAYS.", c.Name)
	default:
		e, err = b.expr(rt.Val, &exprCtx{s: s, what: what})
	}
	if err != nil {
		return 0, nil, err
	}
	ce, err := b.coerce(e, obj.Columns[idx].Type, coerceAssignment, loc(rt.Location))
	if err != nil {
		return 0, nil, pgerr.New(pgerr.DatatypeMismatch, "column %q is of type %s but expression is of type %s", rt.Name, obj.Columns[idx].Type, e.Type()).
			WithHint("You will need to rewrite or cast the expression.").WithPosition(loc(rt.Location))
	}
	return idx, ce, nil
}

// joinOthers joins the keyed target of an UPDATE … FROM or DELETE …
// USING with the other tables: their columns follow the target's and its
// storage key in s. Without other tables it returns the target.
func (b *binder) joinOthers(g *planner.Get, s *scope, obj *catalog.Object, items []*pg_query.Node) (planner.Node, error) {
	if len(items) == 0 {
		return g, nil
	}
	other, os, err := b.fromClause(items, nil)
	if err != nil {
		return nil, err
	}
	for t := range os.tables {
		if s.tables[t] {
			return nil, pgerr.New(pgerr.DuplicateAlias, "table name %q specified more than once", t)
		}
		s.tables[t] = true
	}
	s.cols = append(s.cols, shifted(os.cols, len(obj.Columns)+1)...)
	return &planner.Join{Kind: planner.InnerJoin, Left: g, Right: other, On: trueConst()}, nil
}

// onePerKey keeps one row per storage key (the column at keyCol): a
// target row that joins several rows of the other tables is changed
// once, with the values of one of them, as in PostgreSQL.
func onePerKey(n planner.Node, keyCol int) planner.Node {
	return &planner.TopK{Input: n, Group: []int{keyCol}, Limit: scalar.NewConst(types.NewInt8(1), types.TypeInt8)}
}

// deletePlan binds DELETE: a plan producing every row to delete followed
// by its storage key.
func (b *binder) deletePlan(del *pg_query.DeleteStmt, obj *catalog.Object, alias string) (planner.Node, error) {
	g := keyedGet(b, obj)
	b.deps[obj.ID] = true
	if del.WhereClause != nil || len(del.UsingClause) > 0 {
		b.require(obj, catalog.PrivDelete|catalog.PrivSelect)
	} else {
		b.require(obj, catalog.PrivDelete)
	}
	s := tableScope(obj, alias)
	node, err := b.joinOthers(g, s, obj, del.UsingClause)
	if err != nil {
		return nil, err
	}
	if del.WhereClause != nil {
		pred, err := b.expr(del.WhereClause, &exprCtx{s: s, what: "WHERE"})
		if err != nil {
			return nil, err
		}
		if pred, err = b.coerceBool(pred, "WHERE", 0); err != nil {
			return nil, err
		}
		node = &planner.Filter{Input: node, Pred: pred}
	}
	if len(del.UsingClause) > 0 {
		width := len(obj.Columns) + 1
		exprs := make([]scalar.Expr, width)
		for i, c := range g.Cols {
			exprs[i] = &scalar.ColRef{Idx: i, Typ: c.Type}
		}
		node = onePerKey(&planner.Project{Input: node, Exprs: exprs, Cols: planColumnsOf(exprs)}, width-1)
	}
	return node, nil
}

// duplicateTarget finds a column assigned twice in a SET list.
func duplicateTarget(targets []*pg_query.Node) (string, bool) {
	seen := map[string]bool{}
	for _, tn := range targets {
		name := tn.GetResTarget().Name
		if seen[name] {
			return name, true
		}
		seen[name] = true
	}
	return "", false
}

// multipleAssignments is PostgreSQL's error for SET x = 1, x = 2, which
// its rewriter raises, with a syntax error's SQLSTATE.
func multipleAssignments(col string) error {
	return pgerr.New(pgerr.SyntaxError, "multiple assignments to same column %q", col)
}
