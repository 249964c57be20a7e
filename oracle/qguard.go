package oracle

import "fmt"

// guardedCase is a CASE whose branch holds a subquery that divides by a
// column of the enclosing row, taken only where that column is not zero:
// CASE WHEN a1.k <> 0 THEN (SELECT sum(a2.j / a1.k) FROM t0 AS a2 …)
// ELSE … END. PostgreSQL evaluates a subquery only when its branch is
// reached, so the query never divides by zero; streamdb, which computes
// a decorrelated subquery for many rows at once, must compute it for the
// rows that take the branch only. The data holds zeros often (integers
// run from -3 to 12), so a subquery computed for every row would fail.
// cl is cNum or cBool; ok is false when the scope has no integer column
// or the level may not nest a subquery.
func (g *qgen) guardedCase(e *ectx, cl class, d int) (typed, bool) {
	if !e.sub || e.grp != nil {
		return typed{}, false
	}
	var divisors []col
	for _, c := range e.sc.qualified() {
		if c.stored && (c.typ == tInt || c.typ == tBigint) {
			divisors = append(divisors, c)
		}
	}
	if len(divisors) == 0 {
		return typed{}, false
	}
	c := pick(g.r, divisors)
	sub, subT := g.dividingSubquery(c, cl)
	alt := g.expr(e, cl, d-1)
	t := unify(subT, alt.typ)
	switch g.r.weighted(4, 3, 2, 2, 1) {
	case 0:
		return typed{"CASE WHEN " + c.ref + " <> 0 THEN " + sub + " ELSE " + alt.sql + " END", t}, true
	case 1:
		return typed{"CASE WHEN " + c.ref + " = 0 THEN " + alt.sql + " ELSE " + sub + " END", t}, true
	case 2:
		cond := g.boolExpr(&ectx{sc: e.sc, depth: e.depth}, 1)
		return typed{"CASE WHEN " + c.ref + " IS NULL OR " + c.ref + " = 0 THEN " + alt.sql + " WHEN " + cond + " THEN " + sub + " END", t}, true
	case 3:
		// The CASE must not be NULL where the column is zero, or the
		// COALESCE would reach the subquery there.
		alt := "COALESCE(" + alt.sql + ", " + g.r.randomValue(alt.typ, false).literal(alt.typ) + ")"
		return typed{"COALESCE(CASE WHEN " + c.ref + " = 0 THEN " + alt + " END, " + sub + ")", t}, true
	}
	if cl == cBool {
		return typed{"(" + c.ref + " <> 0 AND " + sub + ")", tBool}, true
	}
	return typed{"CASE WHEN " + c.ref + " = 0 OR " + c.ref + " IS NULL THEN " + alt.sql + " ELSE " + sub + " END", t}, true
}

// dividingSubquery is a subquery over a base table that divides by the
// enclosing row's integer column c: an aggregate of quotients (cNum), or
// EXISTS with a quotient in its condition (cBool).
func (g *qgen) dividingSubquery(c col, cl class) (string, typ) {
	t := pick(g.r, g.tables)
	a := g.alias()
	var ints []string
	for _, tc := range t.Cols {
		if tc.Type == tInt || tc.Type == tBigint {
			ints = append(ints, a+"."+tc.Name)
		}
	}
	// The dividend is the subquery's own column where there is one: an
	// aggregate of the enclosing row's columns alone would be the
	// enclosing query's.
	num, numT := "100", tInt
	if len(ints) > 0 {
		num = pick(g.r, ints)
		for _, tc := range t.Cols {
			if a+"."+tc.Name == num {
				numT = tc.Type
			}
		}
	}
	quot := "(" + num + " / " + c.ref + ")"
	quotT := max(numT, c.typ)
	from := t.Name + " AS " + a
	where := ""
	if len(ints) > 0 && g.r.chance(0.5) {
		where = " WHERE " + pick(g.r, ints) + " <> " + c.ref
	}
	if cl == cBool {
		col := "1"
		if len(ints) > 0 {
			col = pick(g.r, ints)
		}
		return fmt.Sprintf("EXISTS (SELECT 1 FROM %s WHERE %s %s %s)", from, col, pick(g.r, []string{"=", "<", ">="}), quot), tBool
	}
	form := g.r.weighted(3, 3, 2, 1)
	if len(ints) == 0 && form < 2 {
		form = 2
	}
	switch form {
	case 0:
		return "(SELECT sum" + quot + " FROM " + from + where + ")", sumType(quotT)
	case 1:
		return "(SELECT " + pick(g.r, []string{"min", "max"}) + quot + " FROM " + from + where + ")", quotT
	case 2:
		return "(SELECT count(*) FROM " + from + " WHERE " + num + " > " + quot + ")", tBigint
	}
	// Without FROM: the binder reads it as the expression itself.
	return "(SELECT " + fmt.Sprint(g.r.between(1, 50)) + " / " + c.ref + ")", c.typ
}
