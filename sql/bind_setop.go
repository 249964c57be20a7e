package sql

import (
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// setOperation binds UNION, INTERSECT and EXCEPT.
func (b *binder) setOperation(sel *pg_query.SelectStmt, parent *scope) (*boundQuery, error) {
	kind, what := planner.Union, "UNION"
	switch sel.Op {
	case pg_query.SetOperation_SETOP_INTERSECT:
		kind, what = planner.Intersect, "INTERSECT"
	case pg_query.SetOperation_SETOP_EXCEPT:
		kind, what = planner.Except, "EXCEPT"
	}
	lq, err := b.selectStmt(sel.Larg, parent)
	if err != nil {
		return nil, err
	}
	rq, err := b.selectStmt(sel.Rarg, parent)
	if err != nil {
		return nil, err
	}
	l, r := queryNode(lq.q), queryNode(rq.q)
	lc, rc := l.Columns(), r.Columns()
	if len(lc) != len(rc) {
		return nil, pgerr.New(pgerr.SyntaxError, "each %s query must have the same number of columns", what)
	}
	lx, rx := make([]scalar.Expr, len(lc)), make([]scalar.Expr, len(rc))
	castL, castR := false, false
	cols := make([]planner.Column, len(lc))
	for i := range lc {
		pair := []scalar.Expr{&scalar.ColRef{Idx: i, Typ: lc[i].Type}, &scalar.ColRef{Idx: i, Typ: rc[i].Type}}
		t, err := b.unify(pair, what, 0)
		if err != nil {
			return nil, err
		}
		if t.Family == types.Unknown {
			t = types.TypeText
			for j := range pair {
				if pair[j], err = b.coerce(pair[j], t, coerceImplicit, 0); err != nil {
					return nil, err
				}
			}
		}
		lx[i], rx[i] = pair[0], pair[1]
		castL = castL || lc[i].Type != t
		castR = castR || rc[i].Type != t
		cols[i] = planner.Column{Name: lc[i].Name, Type: t}
	}
	if castL {
		l = &planner.Project{Input: l, Exprs: lx, Cols: cols}
	}
	if castR {
		r = &planner.Project{Input: r, Exprs: rx, Cols: cols}
	}
	node := planner.Node(&planner.SetOp{Kind: kind, All: sel.All, Left: l, Right: r})
	return b.outputOrder(sel, node)
}

// outputOrder applies ORDER BY, LIMIT and OFFSET of a set operation or
// VALUES list, whose ORDER BY may only name output columns.
func (b *binder) outputOrder(sel *pg_query.SelectStmt, node planner.Node) (*boundQuery, error) {
	cols := node.Columns()
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	q := &planner.Query{Root: node}
	for _, n := range sel.SortClause {
		sb := n.GetSortBy()
		idx, err := outputRef(sb.Node, names, len(names))
		if err != nil {
			return nil, err
		}
		if idx < 0 {
			s := newScope(nil)
			for i, c := range cols {
				s.cols = append(s.cols, scopeCol{name: c.Name, idx: i, typ: c.Type})
			}
			e, err := b.expr(sb.Node, &exprCtx{s: s, what: "ORDER BY"})
			if err != nil {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "invalid UNION/INTERSECT/EXCEPT ORDER BY clause").
					WithDetail("Only result column names can be used, not expressions or functions.")
			}
			cr, ok := e.(*scalar.ColRef)
			if !ok {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "invalid UNION/INTERSECT/EXCEPT ORDER BY clause").
					WithDetail("Only result column names can be used, not expressions or functions.")
			}
			idx = cr.Idx
		}
		q.Order = append(q.Order, sortKey(&scalar.ColRef{Idx: idx, Typ: cols[idx].Type}, sb))
	}
	if err := b.limitOffset(sel, q); err != nil {
		return nil, err
	}
	return &boundQuery{q: q}, nil
}

// valuesQuery binds a VALUES list as a constant relation with columns
// column1, column2, ….
func (b *binder) valuesQuery(sel *pg_query.SelectStmt, parent *scope) (*boundQuery, error) {
	node, err := b.values(sel.ValuesLists, parent, nil)
	if err != nil {
		return nil, err
	}
	return b.outputOrder(sel, node)
}

// values binds VALUES rows. targets, when given, are the column types of
// an INSERT target, which untyped literals take directly.
func (b *binder) values(lists []*pg_query.Node, parent *scope, targets []types.Type) (*planner.Values, error) {
	c := &exprCtx{s: newScope(parent), what: "VALUES"}
	var rows [][]scalar.Expr
	width := -1
	for _, ln := range lists {
		items := ln.GetList().Items
		if width >= 0 && len(items) != width {
			return nil, pgerr.New(pgerr.SyntaxError, "VALUES lists must all be the same length")
		}
		width = len(items)
		row := make([]scalar.Expr, len(items))
		for i, it := range items {
			if it.GetSetToDefault() != nil {
				row[i] = defaultMarker{}
				continue
			}
			e, err := b.expr(it, c)
			if err != nil {
				return nil, err
			}
			row[i] = e
		}
		rows = append(rows, row)
	}
	cols := make([]planner.Column, width)
	for i := 0; i < width; i++ {
		cols[i].Name = "column" + strconv.Itoa(i+1)
		if targets != nil && i < len(targets) {
			for _, row := range rows {
				if _, ok := row[i].(defaultMarker); ok {
					continue
				}
				var err error
				if row[i], err = b.coerce(row[i], targets[i], coerceAssignment, 0); err != nil {
					return nil, err
				}
			}
			cols[i].Type = targets[i]
			continue
		}
		col := make([]scalar.Expr, len(rows))
		for r := range rows {
			if _, ok := rows[r][i].(defaultMarker); ok {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "DEFAULT is not allowed in this context")
			}
			col[r] = rows[r][i]
		}
		t, err := b.unify(col, "VALUES", 0)
		if err != nil {
			return nil, err
		}
		if t.Family == types.Unknown {
			t = types.TypeText
			for r := range col {
				if col[r], err = b.coerce(col[r], t, coerceImplicit, 0); err != nil {
					return nil, err
				}
			}
		}
		for r := range rows {
			rows[r][i] = col[r]
		}
		cols[i].Type = t
	}
	return &planner.Values{Rows: rows, Cols: cols}, nil
}

// defaultMarker stands for DEFAULT in an INSERT's VALUES list until the
// column's default replaces it.
type defaultMarker struct{}

func (defaultMarker) Type() types.Type                       { return types.TypeUnknown }
func (defaultMarker) String() string                         { return "DEFAULT" }
func (defaultMarker) Children() []scalar.Expr                { return nil }
func (defaultMarker) WithChildren([]scalar.Expr) scalar.Expr { return defaultMarker{} }

// pushCTEs binds a WITH clause; each CTE sees the ones before it.
func (b *binder) pushCTEs(w *pg_query.WithClause, parent *scope) error {
	if w.Recursive {
		return b.pushRecursiveCTEs(w, parent)
	}
	frame := map[string]*cteDef{}
	b.ctes = append(b.ctes, frame)
	for _, n := range w.Ctes {
		cte := n.GetCommonTableExpr()
		sel := cte.Ctequery.GetSelectStmt()
		if sel == nil {
			b.popCTEs()
			return pgerr.New(pgerr.FeatureNotSupported, "data-modifying statements in WITH are not supported")
		}
		if _, dup := frame[cte.Ctename]; dup {
			b.popCTEs()
			return pgerr.New(pgerr.DuplicateAlias, "WITH query name %q specified more than once", cte.Ctename).WithPosition(loc(cte.Location))
		}
		node, err := b.cteNode(cte, sel, parent)
		if err != nil {
			b.popCTEs()
			return err
		}
		frame[cte.Ctename] = &cteDef{plan: node, scope: parent}
	}
	return nil
}

func (b *binder) popCTEs() { b.ctes = b.ctes[:len(b.ctes)-1] }

func (b *binder) lookupCTE(name string) *cteDef {
	for i := len(b.ctes) - 1; i >= 0; i-- {
		if c, ok := b.ctes[i][name]; ok {
			return c
		}
	}
	return nil
}
