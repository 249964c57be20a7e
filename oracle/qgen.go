package oracle

import (
	"fmt"
	"strings"
)

// qgen generates queries over a schema. It writes SQL text directly,
// tracking for every relation the columns it outputs and their types, and
// for every expression its type, so that what it writes is well typed: a
// query PostgreSQL rejects is a bug of the generator, not of the engine.
//
// Every generated query has a deterministic result as a multiset: ORDER BY
// under LIMIT, DISTINCT ON, row_number, lag and the ordered aggregates are
// always given a total order, by appending every column in scope (or every
// output column) as tie-breakers, so that rows still tied are identical
// and it does not matter which of them comes first.
type qgen struct {
	r      rng
	tables []*Table
	// next numbers aliases (a0, a1, …) and CTE names (w0, …) so that no
	// two relations in one query share a name.
	next int
	// ctes are the common table expressions in scope, innermost last.
	ctes []rel
	// maxDepth bounds query nesting: the view's query is depth 0, and
	// subqueries, derived tables, CTE bodies and LATERAL items sit one
	// level deeper than the query that holds them. At 0 a query has no
	// subqueries at all.
	maxDepth int
	// exprDepth bounds the operators above the leaves of the expressions
	// of select lists and WHERE clauses.
	exprDepth int
}

// view generates the query of one view. Views come in three sizes: most
// are small, exercising one or two features each, so that a failure
// points at its cause and a feature that is not supported yet does not
// take others down with it; a few nest subqueries two deep.
func (g *qgen) view() rel {
	level := g.r.weighted(45, 40, 15)
	g.maxDepth, g.exprDepth = level, 1+min(level, 1)
	return g.query(nil, 0, shape{top: true})
}

// col is a column visible to an expression.
type col struct {
	// ref is how SQL names it here: "a3.k", or "k" for the merged column
	// of a USING or NATURAL join.
	ref  string
	name string
	typ  typ
	// merged marks a USING/NATURAL column, referenced unqualified: it is
	// visible only at its own query level, never to subqueries, where an
	// inner column of the same name would shadow it.
	merged bool
	// stored marks a base table's column. A column of VALUES, a derived
	// table or a CTE may be a constant to PostgreSQL once it pulls the
	// item up into the query, and a constant is evaluated, errors and
	// all, when the query is planned.
	stored bool
}

// scope is what one query level sees: the columns of its FROM clause and,
// for correlated subqueries, the levels around it.
type scope struct {
	cols  []col
	outer *scope
}

// ofClass returns the columns of class c.
func (s *scope) ofClass(c class) []col {
	var out []col
	for _, x := range s.cols {
		if x.typ.class() == c {
			out = append(out, x)
		}
	}
	return out
}

// outerCols returns the columns of the enclosing levels a subquery may
// reference, of class c.
func (s *scope) outerCols(c class) []col {
	var out []col
	for o := s.outer; o != nil; o = o.outer {
		for _, x := range o.cols {
			if !x.merged && x.typ.class() == c {
				out = append(out, x)
			}
		}
	}
	return out
}

// qualified returns the columns named through their relation's alias:
// together they determine every row, so ordering by all of them is a
// total order up to identical rows.
func (s *scope) qualified() []col {
	var out []col
	for _, x := range s.cols {
		if !x.merged && x.typ != tOpaque {
			out = append(out, x)
		}
	}
	return out
}

// rel is a generated relation: its SQL and its output columns c0, c1, ….
type rel struct {
	sql  string
	cols []col
}

// classes returns the classes of the output columns.
func (r rel) classes() []class {
	out := make([]class, len(r.cols))
	for i, c := range r.cols {
		out[i] = c.typ.class()
	}
	return out
}

// shape constrains a query's output.
type shape struct {
	// want fixes the classes of the output columns; nil leaves them free.
	want []class
	// single asks for at most one row (a scalar subquery).
	single bool
	// top marks the view's own query, whose output may include the
	// opaque results of array_agg and jsonb_agg.
	top bool
	// correlate asks for a condition tying the query to its outer scope
	// (LATERAL items and subqueries in expressions).
	correlate bool
	// topk makes ORDER BY … LIMIT likely (LATERAL items: top-k per row).
	topk bool
}

func (g *qgen) alias() string {
	g.next++
	return fmt.Sprintf("a%d", g.next-1)
}

// outNames names n output columns.
func outNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("c%d", i)
	}
	return out
}

// query generates a query of any form: a SELECT, a set operation, or
// either under WITH.
func (g *qgen) query(outer *scope, depth int, sh shape) rel {
	if sh.single {
		return g.selectCore(outer, depth, sh)
	}
	switch g.r.weighted(70, 15, 10, 5, 4) {
	case 1:
		return g.setOp(outer, depth, sh)
	case 4:
		if sh.top {
			return g.recursive()
		}
	case 2:
		if depth < g.maxDepth && len(g.ctes) == 0 {
			return g.with(outer, depth, sh)
		}
	case 3:
		if sh.want == nil && depth < g.maxDepth {
			return g.topKPerGroup(outer, depth)
		}
	}
	return g.selectCore(outer, depth, sh)
}

// setOp combines two or three SELECTs with UNION, INTERSECT and EXCEPT,
// with or without ALL. Each operand is parenthesised so it may carry its
// own ORDER BY … LIMIT; the result may be ordered and limited again.
func (g *qgen) setOp(outer *scope, depth int, sh shape) rel {
	first := g.selectCore(outer, depth, shape{want: sh.want})
	cols := append([]col(nil), first.cols...)
	var b strings.Builder
	b.WriteString("(" + first.sql + ")")
	for range g.r.between(1, 2) {
		next := g.selectCore(outer, depth, shape{want: first.classes()})
		for i := range cols {
			cols[i].typ = unify(cols[i].typ, next.cols[i].typ)
		}
		op := pick(g.r, []string{"UNION", "UNION", "INTERSECT", "EXCEPT"})
		if g.r.chance(0.5) {
			op += " ALL"
		}
		b.WriteString(" " + op + " (" + next.sql + ")")
	}
	if g.r.chance(0.25) {
		b.WriteString(g.orderLimit(nil, cols))
	}
	return rel{sql: b.String(), cols: cols}
}

// with puts one or two CTEs in front of a SELECT; a later CTE may read an
// earlier one, and the main query reads them like tables (self-joins of a
// CTE included).
func (g *qgen) with(outer *scope, depth int, sh shape) rel {
	var defs []string
	saved := g.ctes
	for range g.r.between(1, 2) {
		body := g.query(outer, depth+1, shape{})
		name := fmt.Sprintf("w%d", g.next)
		g.next++
		defs = append(defs, name+" AS ("+body.sql+")")
		g.ctes = append(g.ctes, rel{sql: name, cols: body.cols})
	}
	main := g.selectCore(outer, depth, sh)
	g.ctes = saved
	return rel{sql: "WITH " + strings.Join(defs, ", ") + " " + main.sql, cols: main.cols}
}
