package oracle

// PostgreSQL folds a strict operator, function or cast with a NULL
// constant argument to NULL when it plans the query, whatever its other
// arguments, and a WHERE conjunct that folds to NULL or false lets no row
// through without evaluating the others. The expressions here divide a
// column by zero under such a NULL: the division must never run. The
// dividend is always a base table's column, never what could be a
// constant, since PostgreSQL evaluates a constant division, and fails on
// it, before it looks at the NULL.

// zeroDivision is a stored column of class cNum divided by zero, or ok
// false when the scope has none.
func (g *qgen) zeroDivision(e *ectx) (typed, bool) {
	var cols []col
	for _, c := range e.sc.ofClass(cNum) {
		if c.stored {
			cols = append(cols, c)
		}
	}
	if e.grp != nil || len(cols) == 0 {
		return typed{}, false
	}
	c := pick(g.r, cols)
	return typed{"(" + c.ref + " / 0)", c.typ}, true
}

// nullFoldedNum is a number that is NULL by folding: a division by zero
// times, plus or through abs() of a NULL.
func (g *qgen) nullFoldedNum(e *ectx) (typed, bool) {
	z, ok := g.zeroDivision(e)
	if !ok {
		return typed{}, false
	}
	switch g.r.IntN(3) {
	case 0:
		return typed{"(" + z.sql + " * CAST(NULL AS int))", z.typ}, true
	case 1:
		return typed{"abs(" + z.sql + " + NULL)", z.typ}, true
	}
	return typed{"(" + z.sql + " - CAST(NULL AS " + z.typ.name() + "))", z.typ}, true
}

// nullFoldedBool is a comparison that is NULL by folding.
func (g *qgen) nullFoldedBool(e *ectx) (string, bool) {
	z, ok := g.zeroDivision(e)
	if !ok {
		return "", false
	}
	op := pick(g.r, []string{"=", "<>", "<", ">="})
	switch g.r.IntN(4) {
	case 0:
		return "NOT (" + z.sql + " " + op + " NULL)", true
	case 1:
		return z.sql + " IN (NULL)", true
	case 2:
		return z.sql + " " + op + " CAST(NULL AS int)", true
	}
	return "(" + z.sql + " " + op + " NULL) IS NULL", true
}

// nullGate is a WHERE conjunct that folds to NULL, the condition of
// BETWEEN NULL AND …, so that the query reads nothing; rarely drawn, as
// it empties the view.
func (g *qgen) nullGate(e *ectx) (string, bool) {
	z, ok := g.zeroDivision(e)
	if !ok {
		return "", false
	}
	if g.r.chance(0.5) {
		return z.sql + " BETWEEN NULL AND " + g.literal(cNum).sql, true
	}
	return z.sql + " > NULL", true
}
