package oracle

import (
	"fmt"
	"slices"
	"strings"
)

// item is one FROM item.
type item struct {
	sql  string
	cols []col
	// base marks a table reference: only base tables take part in USING
	// and NATURAL, whose columns have schema names shared across tables.
	base bool
}

// from generates a FROM clause of one to three items joined left-deep:
// inner, LEFT, RIGHT, FULL and CROSS joins on equi and non-equi
// conditions, USING, NATURAL, a comma join whose condition goes to WHERE,
// and LATERAL subqueries. It returns the clause, the scope it opens, and
// conditions the caller must add to WHERE.
//
// The scope lists every column qualified by its item's alias, plus the
// merged column of each USING/NATURAL join under its bare name when that
// name is unambiguous in the whole clause, the way PostgreSQL resolves it.
func (g *qgen) from(outer *scope, depth int) (string, *scope, []string) {
	n := 1 + g.r.weighted(45, 40, 15)
	sc := &scope{outer: outer}
	first := g.fromItem(outer, depth)
	var b strings.Builder
	b.WriteString(first.sql)
	sc.cols = append(sc.cols, first.cols...)
	names := slices.Clone(first.cols)
	var where []string
	for i := 1; i < n; i++ {
		last := i == n-1
		kind := g.r.weighted(25, 15, 8, 8, 6, 8, 12)
		if kind == 6 && depth < g.maxDepth {
			lat := g.lateralItem(sc, outer, depth)
			switch g.r.weighted(3, 4, 3, 4) {
			case 0:
				if last {
					b.WriteString(", LATERAL " + lat.sql)
					break
				}
				fallthrough
			case 1:
				b.WriteString(" CROSS JOIN LATERAL " + lat.sql)
			case 2:
				b.WriteString(" JOIN LATERAL " + lat.sql + " ON " + g.onCond(sc.qualified(), lat.cols, false))
			default:
				cond := "true"
				if g.r.chance(0.2) {
					cond = g.onCond(sc.qualified(), lat.cols, false)
				}
				b.WriteString(" LEFT JOIN LATERAL " + lat.sql + " ON " + cond)
			}
			sc.cols = append(sc.cols, lat.cols...)
			names = append(names, lat.cols...)
			continue
		}
		right := g.fromItem(outer, depth)
		if kind == 5 && last && depth < g.maxDepth && g.r.chance(0.3) {
			// A JOIN after a comma whose LATERAL item reads the items
			// before the comma as well as the JOIN's left side.
			lat := g.lateralItem(&scope{cols: append(slices.Clone(sc.cols), right.cols...)}, outer, depth)
			b.WriteString(", " + right.sql + " JOIN LATERAL " + lat.sql + " ON true")
			sc.cols = append(append(sc.cols, right.cols...), lat.cols...)
			names = append(append(names, right.cols...), lat.cols...)
			continue
		}
		switch {
		case kind == 4 && n == 2:
			b.WriteString(" CROSS JOIN " + right.sql)
			names = append(names, right.cols...)
		case kind == 5 && last:
			b.WriteString(", " + right.sql)
			if g.r.chance(0.8) {
				if c := g.equiCond(sc.qualified(), right.cols); c != "" {
					where = append(where, c)
				}
			}
			names = append(names, right.cols...)
		default:
			join := []string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "JOIN", "JOIN", "JOIN"}[kind]
			if kind == 0 && g.r.chance(0.3) {
				join = pick(g.r, []string{"INNER JOIN", "LEFT OUTER JOIN", "FULL OUTER JOIN"})
			}
			using := g.usable(names, right)
			switch w := g.r.weighted(80, 12, 8); {
			case w == 1 && len(using) > 0:
				pickN := using[:g.r.between(1, min(2, len(using)))]
				b.WriteString(" " + join + " " + right.sql + " USING (" + strings.Join(colNames(pickN), ", ") + ")")
				names = mergeNames(names, right.cols, pickN)
			case w == 2 && len(using) > 0 && len(using) == len(common(names, right.cols)):
				b.WriteString(" NATURAL " + join + " " + right.sql)
				names = mergeNames(names, right.cols, using)
			default:
				b.WriteString(" " + join + " " + right.sql + " ON " + g.onCond(sc.qualified(), right.cols, strings.HasPrefix(join, "FULL")))
				names = append(names, right.cols...)
			}
		}
		sc.cols = append(sc.cols, right.cols...)
	}
	for _, c := range names {
		if c.merged && len(common(names, []col{c})) == 1 {
			sc.cols = append(sc.cols, c)
		}
	}
	return b.String(), sc, where
}

// fromItem generates a table reference, a derived table, a VALUES list
// or a reference to a CTE in scope, under a fresh alias.
func (g *qgen) fromItem(outer *scope, depth int) item {
	w := g.r.weighted(70, 12, 5, 13)
	a := g.alias()
	switch {
	case w == 1 && depth < g.maxDepth:
		q := g.query(outer, depth+1, shape{})
		return item{sql: "(" + q.sql + ") AS " + a, cols: qualify(a, q.cols)}
	case w == 2:
		return g.valuesItem(a)
	case w == 3 && len(g.ctes) > 0:
		c := pick(g.r, g.ctes)
		return item{sql: c.sql + " AS " + a, cols: qualify(a, c.cols)}
	}
	t := pick(g.r, g.tables)
	it := item{sql: t.Name + " AS " + a, base: true}
	for _, c := range t.Cols {
		it.cols = append(it.cols, col{ref: a + "." + c.Name, name: c.Name, typ: c.Type, stored: true})
	}
	return it
}

// lateralItem is a subquery that reads the columns to its left.
func (g *qgen) lateralItem(left *scope, outer *scope, depth int) item {
	lo := &scope{cols: left.qualified(), outer: outer}
	q := g.query(lo, depth+1, shape{correlate: true, topk: true})
	a := g.alias()
	return item{sql: "(" + q.sql + ") AS " + a, cols: qualify(a, q.cols)}
}

// valuesItem is a VALUES list of one to four rows of typed literals.
func (g *qgen) valuesItem(a string) item {
	ncols := g.r.between(1, 3)
	types := make([]typ, ncols)
	for i := range types {
		types[i] = []typ{tInt, tBigint, tNumeric, tText, tBool, tDate, tTimestamp}[g.r.IntN(7)]
	}
	rows := make([]string, g.r.between(1, 4))
	for i := range rows {
		lits := make([]string, ncols)
		for j, t := range types {
			lits[j] = g.r.randomValue(t, true).literal(t)
		}
		rows[i] = "(" + strings.Join(lits, ", ") + ")"
	}
	names := outNames(ncols)
	cols := make([]col, ncols)
	for i, t := range types {
		cols[i] = col{name: names[i], typ: t}
	}
	return item{
		sql:  fmt.Sprintf("(VALUES %s) AS %s(%s)", strings.Join(rows, ", "), a, strings.Join(names, ", ")),
		cols: qualify(a, cols),
	}
}

// qualify names a relation's output columns through alias a.
func qualify(a string, cols []col) []col {
	out := make([]col, len(cols))
	for i, c := range cols {
		out[i] = col{ref: a + "." + c.name, name: c.name, typ: c.typ}
	}
	return out
}

func colNames(cols []col) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.name
	}
	return out
}

// common returns the columns of left whose names occur in right.
func common(left, right []col) []col {
	var out []col
	for _, l := range left {
		for _, r := range right {
			if l.name == r.name {
				out = append(out, l)
				break
			}
		}
	}
	return out
}

// usable returns the columns a USING or NATURAL join of right may merge:
// names right shares with the left side's visible names, occurring once
// on each side (PostgreSQL refuses an ambiguous common column), with
// types of one class.
func (g *qgen) usable(names []col, right item) []col {
	if !right.base {
		return nil
	}
	var out []col
	for _, r := range right.cols {
		var hits []col
		for _, l := range names {
			if l.name == r.name {
				hits = append(hits, l)
			}
		}
		if len(hits) == 1 && hits[0].typ.class() == r.typ.class() {
			out = append(out, col{ref: r.name, name: r.name, typ: unify(hits[0].typ, r.typ), merged: true})
		}
	}
	return out
}

// mergeNames computes the visible names after a USING join on merged:
// the merged columns first, then the others of each side, as PostgreSQL
// orders a join's output.
func mergeNames(left, right, merged []col) []col {
	out := slices.Clone(merged)
	skip := func(c col) bool {
		for _, m := range merged {
			if m.name == c.name {
				return true
			}
		}
		return false
	}
	for _, c := range append(slices.Clone(left), right...) {
		if !skip(c) {
			out = append(out, c)
		}
	}
	return out
}

// equiCond returns an equality between a left and a right column of one
// class, preferring columns of the same name; "" when there is none.
func (g *qgen) equiCond(left, right []col) string {
	var same, any [][2]col
	for _, l := range left {
		for _, r := range right {
			if l.typ.class() == r.typ.class() && l.typ != tOpaque {
				any = append(any, [2]col{l, r})
				if l.name == r.name {
					same = append(same, [2]col{l, r})
				}
			}
		}
	}
	pairs := any
	if len(same) > 0 && g.r.chance(0.6) {
		pairs = same
	}
	if len(pairs) == 0 {
		return ""
	}
	p := pick(g.r, pairs)
	return p[0].ref + " = " + p[1].ref
}

// onCond generates a join condition: mostly equi-joins (one or two
// equalities, sometimes with a residual predicate), otherwise non-equi
// ones. A FULL JOIN keeps an equality almost always: PostgreSQL, the third
// opinion, only runs FULL JOIN on hashable or mergeable conditions.
func (g *qgen) onCond(left, right []col, full bool) string {
	both := &ectx{sc: &scope{cols: append(slices.Clone(left), right...)}}
	eq := g.equiCond(left, right)
	nonEqui := 18
	if full {
		nonEqui = 2
	}
	switch w := g.r.weighted(50, 20, 12, nonEqui); {
	case eq == "" || w == 3:
		if eq != "" && g.r.chance(0.5) {
			return strings.Replace(eq, " = ", pick(g.r, []string{" < ", " <> ", " >= "}), 1)
		}
		return g.boolExpr(both, g.exprDepth)
	case w == 1:
		return eq + " AND " + g.boolExpr(both, 1)
	case w == 2:
		if eq2 := g.equiCond(left, right); eq2 != "" {
			return eq + " AND " + eq2
		}
	}
	return eq
}
