package sql

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// WITH RECURSIVE: every query of the clause sees every other, so they are
// bound in the order their references require; a query that references
// itself is a recursive query, planned as planner.Recursive over its
// non-recursive term and its recursive term, after PostgreSQL's checks
// that the recursion is well formed (parse_cte.c).

// pushRecursiveCTEs binds a WITH RECURSIVE clause.
func (b *binder) pushRecursiveCTEs(w *pg_query.WithClause, parent *scope) error {
	frame := map[string]*cteDef{}
	b.ctes = append(b.ctes, frame)
	ctes := make([]*pg_query.CommonTableExpr, len(w.Ctes))
	names := map[string]int{}
	for i, n := range w.Ctes {
		ctes[i] = n.GetCommonTableExpr()
		if _, dup := names[ctes[i].Ctename]; dup {
			b.popCTEs()
			return pgerr.New(pgerr.DuplicateAlias, "WITH query name %q specified more than once", ctes[i].Ctename).WithPosition(loc(ctes[i].Location))
		}
		names[ctes[i].Ctename] = i
	}
	order, err := cteOrder(ctes, names)
	if err != nil {
		b.popCTEs()
		return err
	}
	for _, i := range order {
		cte := ctes[i]
		sel := cte.Ctequery.GetSelectStmt()
		if sel == nil {
			b.popCTEs()
			return pgerr.New(pgerr.FeatureNotSupported, "data-modifying statements in WITH are not supported")
		}
		var node planner.Node
		if references(sel.ProtoReflect(), cte.Ctename) {
			node, err = b.recursiveCTE(cte, sel, parent)
		} else {
			node, err = b.cteNode(cte, sel, parent)
		}
		if err != nil {
			b.popCTEs()
			return err
		}
		frame[cte.Ctename] = &cteDef{plan: node, scope: parent}
	}
	return nil
}

// cteOrder orders the queries of a WITH RECURSIVE clause so that each
// comes after the others it reads, refusing mutual recursion as
// PostgreSQL does.
func cteOrder(ctes []*pg_query.CommonTableExpr, names map[string]int) ([]int, error) {
	deps := make([][]int, len(ctes))
	for i, c := range ctes {
		for name, j := range names {
			if j != i && references(c.Ctequery.ProtoReflect(), name) {
				deps[i] = append(deps[i], j)
			}
		}
		slices.Sort(deps[i])
	}
	var order []int
	state := make([]int, len(ctes)) // 0 new, 1 visiting, 2 done
	var visit func(i int) error
	visit = func(i int) error {
		switch state[i] {
		case 1:
			return pgerr.New(pgerr.FeatureNotSupported, "mutual recursion between WITH items is not implemented").WithPosition(loc(ctes[i].Location))
		case 2:
			return nil
		}
		state[i] = 1
		for _, j := range deps[i] {
			if err := visit(j); err != nil {
				return err
			}
		}
		state[i] = 2
		order = append(order, i)
		return nil
	}
	for i := range ctes {
		if err := visit(i); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// references reports whether m reads a relation named name (without a
// schema). An inner WITH query of that name counts too: the check errs
// toward seeing a reference.
func references(m protoreflect.Message, name string) bool {
	if rv, ok := m.Interface().(*pg_query.RangeVar); ok {
		return rv.Schemaname == "" && rv.Relname == name
	}
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len() && !found; i++ {
				found = references(v.List().Get(i).Message(), name)
			}
		case fd.Message() != nil && !fd.IsMap():
			found = references(v.Message(), name)
		}
		return !found
	})
	return found
}

// cteNode binds a WITH query that does not reference itself.
func (b *binder) cteNode(cte *pg_query.CommonTableExpr, sel *pg_query.SelectStmt, parent *scope) (planner.Node, error) {
	bq, err := b.selectStmt(sel, parent)
	if err != nil {
		return nil, err
	}
	return renameCTE(cte, queryNode(bq.q))
}

// renameCTE applies a WITH query's column list.
func renameCTE(cte *pg_query.CommonTableExpr, node planner.Node) (planner.Node, error) {
	names := nameList(cte.Aliascolnames)
	if len(names) == 0 {
		return node, nil
	}
	cols := node.Columns()
	if len(names) > len(cols) {
		return nil, pgerr.New(pgerr.InvalidColumnReference, "WITH query %q has %d columns available but %d columns specified", cte.Ctename, len(cols), len(names))
	}
	renamed := append([]planner.Column(nil), cols...)
	exprs := make([]scalar.Expr, len(cols))
	for i, c := range cols {
		if i < len(names) {
			renamed[i].Name = names[i]
		}
		exprs[i] = &scalar.ColRef{Idx: i, Typ: c.Type}
	}
	return &planner.Project{Input: node, Exprs: exprs, Cols: renamed}, nil
}

// recursiveCTE binds a WITH query that references itself: its
// non-recursive term fixes its columns, under which the recursive term is
// bound with the query's name standing for the working table.
func (b *binder) recursiveCTE(cte *pg_query.CommonTableExpr, sel *pg_query.SelectStmt, parent *scope) (planner.Node, error) {
	name, pos := cte.Ctename, loc(cte.Location)
	if cte.SearchClause != nil || cte.CycleClause != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "SEARCH and CYCLE clauses are not supported").WithPosition(pos)
	}
	if sel.Op != pg_query.SetOperation_SETOP_UNION {
		return nil, pgerr.New(pgerr.InvalidRecursion, "recursive query %q does not have the form non-recursive-term UNION [ALL] recursive-term", name).WithPosition(pos)
	}
	switch {
	case len(sel.SortClause) > 0:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "ORDER BY in a recursive query is not implemented").WithPosition(pos)
	case sel.LimitOffset != nil:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "OFFSET in a recursive query is not implemented").WithPosition(pos)
	case sel.LimitCount != nil:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "LIMIT in a recursive query is not implemented").WithPosition(pos)
	case len(sel.LockingClause) > 0:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "FOR UPDATE/SHARE in a recursive query is not implemented").WithPosition(pos)
	case references(sel.Larg.ProtoReflect(), name):
		return nil, pgerr.New(pgerr.InvalidRecursion, "recursive reference to query %q must not appear within its non-recursive term", name).WithPosition(pos)
	}
	w := wellFormed{name: name}
	w.walk(sel.Rarg.ProtoReflect(), recursionContext{})
	if w.err != nil {
		return nil, w.err
	}
	if hasAggregate(sel.Rarg) {
		return nil, pgerr.New(pgerr.InvalidRecursion, "aggregate functions are not allowed in a recursive query's recursive term").WithPosition(pos)
	}
	bq, err := b.selectStmt(sel.Larg, parent)
	if err != nil {
		return nil, err
	}
	base, err := renameCTE(cte, queryNode(bq.q))
	if err != nil {
		return nil, err
	}
	cols := base.Columns()
	for i, c := range cols {
		if c.Type.Family == types.Unknown {
			// An untyped literal of the non-recursive term is text.
			if base, err = castColumn(b, base, i, types.TypeText); err != nil {
				return nil, err
			}
			cols = base.Columns()
		}
	}
	b.recursions++
	id := b.recursions
	frame := b.ctes[len(b.ctes)-1]
	frame[name] = &cteDef{plan: &planner.WorkTable{Name: name, ID: id, Cols: cols}, scope: parent}
	rq, err := b.selectStmt(sel.Rarg, parent)
	delete(frame, name)
	if err != nil {
		return nil, err
	}
	step := queryNode(rq.q)
	sc := step.Columns()
	if len(sc) != len(cols) {
		return nil, pgerr.New(pgerr.SyntaxError, "each UNION query must have the same number of columns")
	}
	exprs := make([]scalar.Expr, len(cols))
	for i := range cols {
		t, err := scalar.CommonType([]types.Type{cols[i].Type, sc[i].Type}, "UNION")
		if err != nil {
			return nil, err
		}
		if t != cols[i].Type {
			return nil, pgerr.New(pgerr.DatatypeMismatch, "recursive query %q column %d has type %s in non-recursive term but type %s overall", name, i+1, cols[i].Type, t).
				WithHint("Cast the output of the non-recursive term to the correct type.").WithPosition(pos)
		}
		if exprs[i], err = b.coerce(&scalar.ColRef{Idx: i, Typ: sc[i].Type}, t, coerceImplicit, pos); err != nil {
			return nil, err
		}
	}
	step = &planner.Project{Input: step, Exprs: exprs, Cols: cols}
	union := !sel.All
	if union {
		base = &planner.Distinct{Input: base}
	}
	return &planner.Recursive{Name: name, ID: id, Base: base, Step: step, Union: union, Cols: cols}, nil
}

// castColumn casts column i of node to t.
func castColumn(b *binder, node planner.Node, i int, t types.Type) (planner.Node, error) {
	cols := append([]planner.Column(nil), node.Columns()...)
	exprs := make([]scalar.Expr, len(cols))
	for j, c := range cols {
		exprs[j] = &scalar.ColRef{Idx: j, Typ: c.Type}
	}
	var err error
	if exprs[i], err = b.coerce(exprs[i], t, coerceImplicit, 0); err != nil {
		return nil, err
	}
	cols[i].Type = t
	return &planner.Project{Input: node, Exprs: exprs, Cols: cols}, nil
}

// recursionContext is where in the recursive term the walk is: the
// places PostgreSQL forbids the recursive reference.
type recursionContext struct {
	subquery, outerJoin, intersect, except bool
}

// wellFormed is checkWellFormedRecursion: the recursive term references
// the query once, and not inside a subquery of an expression, on the
// nullable side of an outer join, or in INTERSECT or EXCEPT (a subquery
// in FROM may hold it).
type wellFormed struct {
	name string
	refs int
	err  error
}

func (w *wellFormed) fail(format string) {
	if w.err == nil {
		w.err = pgerr.New(pgerr.InvalidRecursion, "recursive reference to query %q must not appear "+format, w.name)
	}
}

func (w *wellFormed) walk(m protoreflect.Message, c recursionContext) {
	if w.err != nil {
		return
	}
	switch x := m.Interface().(type) {
	case *pg_query.RangeVar:
		if x.Schemaname != "" || x.Relname != w.name {
			return
		}
		w.refs++
		switch {
		case c.subquery:
			w.fail("within a subquery")
		case c.outerJoin:
			w.fail("within an outer join")
		case c.intersect:
			w.fail("within INTERSECT")
		case c.except:
			w.fail("within EXCEPT")
		case w.refs > 1:
			w.fail("more than once")
		}
		return
	case *pg_query.SubLink:
		c.subquery = true
	case *pg_query.SelectStmt:
		switch x.Op {
		case pg_query.SetOperation_SETOP_INTERSECT:
			c.intersect = true
		case pg_query.SetOperation_SETOP_EXCEPT:
			c.except = true
		}
		if x.WithClause != nil {
			// A WITH inside the recursive term may define the name anew;
			// its queries are subqueries.
			w.walk(x.WithClause.ProtoReflect(), recursionContext{subquery: true})
		}
	case *pg_query.JoinExpr:
		l, r := c, c
		switch x.Jointype {
		case pg_query.JoinType_JOIN_LEFT:
			r.outerJoin = true
		case pg_query.JoinType_JOIN_RIGHT:
			l.outerJoin = true
		case pg_query.JoinType_JOIN_FULL:
			l.outerJoin, r.outerJoin = true, true
		}
		if x.Larg != nil {
			w.walk(x.Larg.ProtoReflect(), l)
		}
		if x.Rarg != nil {
			w.walk(x.Rarg.ProtoReflect(), r)
		}
		if x.Quals != nil {
			w.walk(x.Quals.ProtoReflect(), c)
		}
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Name() == "with_clause" {
			return true // walked above
		}
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len(); i++ {
				w.walk(v.List().Get(i).Message(), c)
			}
		case fd.Message() != nil && !fd.IsMap():
			w.walk(v.Message(), c)
		}
		return w.err == nil
	})
}

// hasAggregate reports whether a SELECT's own level calls an aggregate
// function (not inside a subquery, not as a window function).
func hasAggregate(sel *pg_query.SelectStmt) bool {
	if sel.Op != pg_query.SetOperation_SETOP_NONE {
		return hasAggregate(sel.Larg) || hasAggregate(sel.Rarg)
	}
	found := false
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *pg_query.SubLink, *pg_query.RangeSubselect:
			return
		case *pg_query.FuncCall:
			if name, err := funcName(x.Funcname); err == nil && x.Over == nil && (x.AggStar || scalar.IsAggregate(name)) {
				found = true
				return
			}
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				for i := 0; i < v.List().Len(); i++ {
					walk(v.List().Get(i).Message())
				}
			case fd.Message() != nil && !fd.IsMap():
				walk(v.Message())
			}
			return !found
		})
	}
	for _, t := range sel.TargetList {
		walk(t.ProtoReflect())
	}
	if sel.HavingClause != nil {
		walk(sel.HavingClause.ProtoReflect())
	}
	return found
}
