package oracle

// subqueryPred generates a predicate over a subquery: EXISTS, NOT EXISTS,
// IN, NOT IN (whose NULL semantics are the classic trap of decorrelation),
// a quantified comparison, or a comparison with a scalar subquery. Most
// are correlated with the current level.
func (g *qgen) subqueryPred(e *ectx) string {
	d := e.depth + 1
	switch g.r.weighted(5, 4, 5, 5, 2, 4) {
	case 0, 1:
		q := g.query(e.sc, d, shape{correlate: g.r.chance(0.75)})
		return []string{"EXISTS (", "NOT EXISTS ("}[g.r.IntN(2)] + q.sql + ")"
	case 2, 3:
		cl := pick(g.r, classes)
		x := g.expr(e, cl, 1)
		q := g.query(e.sc, d, shape{want: []class{cl}, correlate: g.r.chance(0.5)})
		return x.sql + []string{" IN (", " NOT IN ("}[g.r.IntN(2)] + q.sql + ")"
	case 4:
		cl := pick(g.r, []class{cNum, cText, cTime})
		x := g.expr(e, cl, 1)
		q := g.query(e.sc, d, shape{want: []class{cl}, correlate: g.r.chance(0.5)})
		op := pick(g.r, []string{"=", "<>", "<", ">="})
		return x.sql + " " + op + pick(g.r, []string{" ANY (", " ALL (", " SOME ("}) + q.sql + ")"
	}
	cl := pick(g.r, classes)
	x := g.expr(e, cl, 1)
	s := g.scalarSubquery(e, cl)
	return x.sql + " " + pick(g.r, []string{"=", "<>", "<", ">="}) + " " + s.sql
}

// scalarSubquery generates a subquery returning at most one row of one
// column of class cl: a global aggregate, or ORDER BY … LIMIT 1.
func (g *qgen) scalarSubquery(e *ectx, cl class) typed {
	q := g.query(e.sc, e.depth+1, shape{want: []class{cl}, single: true, correlate: g.r.chance(0.7)})
	return typed{"(" + q.sql + ")", q.cols[0].typ}
}
