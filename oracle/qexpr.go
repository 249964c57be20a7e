package oracle

import "fmt"

// typed is a generated expression and its type.
type typed struct {
	sql string
	typ typ
}

// ectx says where an expression is generated and what it may contain.
type ectx struct {
	sc *scope
	// grp is set in the output of a grouped query: leaves are then group
	// keys and aggregates, never bare columns.
	grp *grouping
	// sub allows subqueries (not in aggregate arguments, windows, join
	// conditions, or at the deepest level).
	sub   bool
	depth int
	// outer allows leaves from enclosing query levels (correlation).
	outer bool
}

// grouping is the GROUP BY of a query: its keys, as written in the GROUP
// BY clause (an output expression repeats them verbatim, which is how
// PostgreSQL recognises them), and the context aggregate arguments are
// generated in.
type grouping struct {
	keys []col
	in   *ectx
}

// expr generates an expression of class cl with at most d levels of
// operators above the leaves. Nothing it generates can raise an error:
// divisors are non-zero literals, casts cannot overflow, scalar
// subqueries return at most one row.
func (g *qgen) expr(e *ectx, cl class, d int) typed {
	if d <= 0 || g.r.chance(0.3) {
		return g.leaf(e, cl)
	}
	switch cl {
	case cNum:
		return g.numExpr(e, d)
	case cText:
		return g.textExpr(e, d)
	case cBool:
		// Parenthesised: as an operand of =, IN or IS DISTINCT FROM a bare
		// comparison would not parse (= does not associate).
		return typed{"(" + g.boolExpr(e, d) + ")", tBool}
	}
	return g.timeExpr(e, d)
}

// leaf is a column, a literal, or in a grouped output a group key or an
// aggregate.
func (g *qgen) leaf(e *ectx, cl class) typed {
	if e.grp != nil {
		var keys []col
		for _, k := range e.grp.keys {
			if k.typ.class() == cl {
				keys = append(keys, k)
			}
		}
		switch {
		case len(keys) > 0 && g.r.chance(0.5):
			k := pick(g.r, keys)
			return typed{k.ref, k.typ}
		case g.r.chance(0.85):
			return g.enclosed(g.aggregate(e.grp.in, cl))
		}
		return g.literal(cl)
	}
	cols := e.sc.ofClass(cl)
	if e.outer && g.r.chance(0.2) {
		if out := e.sc.outerCols(cl); len(out) > 0 {
			cols = out
		}
	}
	switch {
	case g.r.chance(0.1):
	case len(cols) > 0:
		c := pick(g.r, cols)
		return typed{c.ref, c.typ}
	case len(e.sc.qualified()) > 0:
		return convert(pick(g.r, e.sc.qualified()), cl)
	}
	return g.literal(cl)
}

// numText casts a number to text. A numeric is rounded to a fixed scale
// first: equal numerics of different scales are interchangeable to
// DISTINCT and GROUP BY, and their text must not tell them apart (see
// normalizeScale).
func numText(x typed) typed {
	if x.typ == tNumeric {
		return typed{"CAST(round(" + x.sql + ", 2) AS text)", tText}
	}
	return typed{"CAST(" + x.sql + " AS text)", tText}
}

// convert derives a value of class cl from a column of another class, so
// that a scope without a column of the class still yields expressions
// over data rather than over literals.
func convert(c col, cl class) typed {
	from := c.typ.class()
	switch {
	case cl == cNum && from == cText:
		return typed{"length(" + c.ref + ")", tInt}
	case cl == cNum && from == cBool:
		return typed{"CASE WHEN " + c.ref + " THEN 1 ELSE 0 END", tInt}
	case cl == cNum && from == cTime:
		return typed{"EXTRACT(DAY FROM " + c.ref + ")", tNumeric}
	case cl == cText && c.typ == tNumeric:
		return numText(typed{c.ref, c.typ})
	case cl == cText:
		return typed{"CAST(" + c.ref + " AS text)", tText}
	case cl == cBool && from == cNum:
		return typed{"(" + c.ref + " > 2)", tBool}
	case cl == cBool && from == cText:
		return typed{"(" + c.ref + " LIKE 'a%')", tBool}
	case cl == cBool && from == cTime:
		return typed{"(" + c.ref + " > DATE '2024-01-04')", tBool}
	case cl == cTime && c.typ == tInt:
		return typed{"(DATE '2024-01-01' + " + c.ref + ")", tDate}
	case cl == cTime && from == cText:
		return typed{"(DATE '2024-01-01' + length(" + c.ref + "))", tDate}
	case cl == cTime:
		return typed{"CASE WHEN " + convert(c, cBool).sql + " THEN DATE '2024-01-02' END", tDate}
	}
	return typed{c.ref, c.typ}
}

// literal draws a typed literal of class cl, now and then a typed NULL.
func (g *qgen) literal(cl class) typed {
	var t typ
	switch cl {
	case cNum:
		t = []typ{tInt, tBigint, tNumeric}[g.r.weighted(60, 15, 25)]
	case cText:
		t = tText
	case cBool:
		t = tBool
	default:
		t = pick(g.r, []typ{tDate, tTimestamp})
	}
	v := g.r.randomValue(t, false)
	if g.r.chance(0.08) {
		v = null
	}
	return typed{v.literal(t), t}
}

func (g *qgen) numExpr(e *ectx, d int) typed {
	sub := func() typed { return g.expr(e, cNum, d-1) }
	switch g.r.weighted(12, 8, 6, 3, 3, 8, 6, 4, 4, 3, 3, 4, 3, 3, 2, 6, 3, 2) {
	case 16:
		if x, ok := g.guardedCase(e, cNum, d); ok {
			return x
		}
		return g.leaf(e, cNum)
	case 17:
		if x, ok := g.nullFoldedNum(e); ok {
			return x
		}
		return g.leaf(e, cNum)
	case 0:
		a, b := sub(), sub()
		return typed{"(" + a.sql + " + " + b.sql + ")", unify(a.typ, b.typ)}
	case 1:
		a, b := sub(), sub()
		return typed{"(" + a.sql + " - " + b.sql + ")", unify(a.typ, b.typ)}
	case 2:
		a := sub()
		return typed{fmt.Sprintf("(%s * %s)", a.sql, paren(fmt.Sprint(g.r.between(-2, 3)))), a.typ}
	case 3:
		a := sub()
		return typed{"(-(" + a.sql + "))", a.typ}
	case 4:
		a := sub()
		return typed{"abs(" + a.sql + ")", a.typ}
	case 5:
		return g.caseExpr(e, cNum, d)
	case 6:
		a, b := sub(), sub()
		return typed{"COALESCE(" + a.sql + ", " + b.sql + ")", unify(a.typ, b.typ)}
	case 7:
		a := sub()
		return typed{"NULLIF(" + a.sql + ", " + g.r.randomValue(a.typ, false).literal(a.typ) + ")", a.typ}
	case 8:
		a, b := sub(), sub()
		return typed{pick(g.r, []string{"GREATEST", "LEAST"}) + "(" + a.sql + ", " + b.sql + ")", unify(a.typ, b.typ)}
	case 9:
		a := sub()
		return typed{fmt.Sprintf("(%s %% %d)", a.sql, g.r.between(2, 5)), a.typ}
	case 10:
		a := sub()
		return typed{fmt.Sprintf("(%s / %d)", a.sql, g.r.between(2, 4)), a.typ}
	case 11:
		a := g.expr(e, cText, d-1)
		return typed{"length(" + a.sql + ")", tInt}
	case 12:
		a := sub()
		return typed{"round(" + a.sql + ", 1)", tNumeric}
	case 13:
		a := sub()
		if a.typ == tNumeric {
			return typed{"CAST(" + a.sql + " AS bigint)", tBigint}
		}
		return typed{"CAST(" + a.sql + " AS numeric)", tNumeric}
	case 14:
		a := g.expr(e, cTime, d-1)
		units := []string{"DAY", "MONTH", "DOW"}
		if a.typ == tTimestamp {
			units = append(units, "HOUR") // PostgreSQL refuses time units for dates
		}
		return typed{"EXTRACT(" + pick(g.r, units) + " FROM " + a.sql + ")", tNumeric}
	}
	if e.sub {
		return g.scalarSubquery(e, cNum)
	}
	return g.leaf(e, cNum)
}

func (g *qgen) textExpr(e *ectx, d int) typed {
	sub := func() typed { return g.expr(e, cText, d-1) }
	switch g.r.weighted(6, 8, 5, 6, 6, 4, 3, 5) {
	case 0:
		return typed{pick(g.r, []string{"upper", "lower"}) + "(" + sub().sql + ")", tText}
	case 1:
		return typed{"(" + sub().sql + " || " + sub().sql + ")", tText}
	case 2:
		return typed{fmt.Sprintf("substr(%s, %d, %d)", sub().sql, g.r.between(1, 2), g.r.between(1, 2)), tText}
	case 3:
		return typed{"COALESCE(" + sub().sql + ", " + sub().sql + ")", tText}
	case 4:
		return g.caseExpr(e, cText, d)
	case 5:
		// In a grouped output the number may be an average whose last
		// digit depends on summation order; text would compare it exactly.
		if e.grp == nil {
			return numText(g.expr(e, cNum, d-1))
		}
		return sub()
	case 6:
		return typed{"replace(" + sub().sql + ", 'a', 'A')", tText}
	}
	if e.sub {
		return g.scalarSubquery(e, cText)
	}
	return g.leaf(e, cText)
}

func (g *qgen) timeExpr(e *ectx, d int) typed {
	sub := func() typed { return g.expr(e, cTime, d-1) }
	switch g.r.weighted(8, 6, 6, 6, 4, 4, 3, 5) {
	case 7:
		// A date plus an interval is a timestamp.
		return typed{"(" + sub().sql + pick(g.r, []string{" + ", " - "}) + g.intervalQualified() + ")", tTimestamp}
	case 0:
		a := sub()
		if a.typ == tDate {
			return typed{fmt.Sprintf("(%s + %d)", a.sql, g.r.between(-3, 5)), tDate}
		}
		return typed{fmt.Sprintf("(%s + interval '%d hours')", a.sql, g.r.between(-30, 30)), tTimestamp}
	case 1:
		a, b := sub(), sub()
		return typed{"COALESCE(" + a.sql + ", " + b.sql + ")", unify(a.typ, b.typ)}
	case 2:
		return g.caseExpr(e, cTime, d)
	case 3:
		a, b := sub(), sub()
		return typed{pick(g.r, []string{"GREATEST", "LEAST"}) + "(" + a.sql + ", " + b.sql + ")", unify(a.typ, b.typ)}
	case 4:
		return typed{"date_trunc('" + pick(g.r, []string{"day", "month"}) + "', CAST(" + sub().sql + " AS timestamp))", tTimestamp}
	case 5:
		return typed{"CAST(" + sub().sql + " AS date)", tDate}
	}
	if e.sub {
		return g.scalarSubquery(e, cTime)
	}
	return g.leaf(e, cTime)
}

// caseExpr is a searched CASE with one or two branches, sometimes without
// ELSE (NULL).
func (g *qgen) caseExpr(e *ectx, cl class, d int) typed {
	a := g.expr(e, cl, d-1)
	s := "CASE WHEN " + g.boolExpr(e, d-1) + " THEN " + a.sql
	t := a.typ
	if g.r.chance(0.4) {
		b := g.expr(e, cl, d-1)
		s += " WHEN " + g.boolExpr(e, d-1) + " THEN " + b.sql
		t = unify(t, b.typ)
	}
	if g.r.chance(0.8) {
		c := g.expr(e, cl, d-1)
		s += " ELSE " + c.sql
		t = unify(t, c.typ)
	}
	return typed{s + " END", t}
}

// likePatterns exercise %, _, an escaped metacharacter and a quote.
var likePatterns = []string{"'a%'", "'%b'", "'_'", "'%a%'", "'a_'", "''", "'x\\_y'", "'%''%'", "'%'"}

// boolExpr generates a predicate; NULL operands make it three-valued.
func (g *qgen) boolExpr(e *ectx, d int) string {
	if d <= 0 || g.r.chance(0.15) {
		return g.leaf(e, cBool).sql
	}
	any := func() typed { return g.expr(e, pick(g.r, classes), d-1) }
	switch g.r.weighted(20, 8, 10, 8, 5, 5, 6, 7, 5, 4, 12, 3, 3) {
	case 11:
		if x, ok := g.guardedCase(e, cBool, d); ok {
			return x.sql
		}
	case 12:
		if x, ok := g.nullFoldedBool(e); ok {
			return x
		}
	case 0:
		cl := pick(g.r, classes)
		a, b := g.expr(e, cl, d-1), g.expr(e, cl, d-1)
		return a.sql + " " + pick(g.r, []string{"=", "<>", "<", "<=", ">", ">="}) + " " + b.sql
	case 1:
		return any().sql + pick(g.r, []string{" IS NULL", " IS NOT NULL"})
	case 2:
		return "(" + g.boolExpr(e, d-1) + " AND " + g.boolExpr(e, d-1) + ")"
	case 3:
		return "(" + g.boolExpr(e, d-1) + " OR " + g.boolExpr(e, d-1) + ")"
	case 4:
		return "NOT (" + g.boolExpr(e, d-1) + ")"
	case 5:
		cl := pick(g.r, classes)
		return g.expr(e, cl, d-1).sql + pick(g.r, []string{" IS DISTINCT FROM ", " IS NOT DISTINCT FROM "}) + g.expr(e, cl, d-1).sql
	case 6:
		cl := pick(g.r, []class{cNum, cText, cTime})
		return g.expr(e, cl, d-1).sql + pick(g.r, []string{" BETWEEN ", " NOT BETWEEN ", " BETWEEN SYMMETRIC "}) +
			g.literal(cl).sql + " AND " + g.literal(cl).sql
	case 7:
		cl := pick(g.r, classes)
		s := g.expr(e, cl, d-1).sql + pick(g.r, []string{" IN (", " NOT IN ("})
		for i := range g.r.between(1, 3) {
			if i > 0 {
				s += ", "
			}
			s += g.literal(cl).sql
		}
		return s + ")"
	case 8:
		return g.expr(e, cText, d-1).sql + pick(g.r, []string{" LIKE ", " NOT LIKE ", " ILIKE "}) + pick(g.r, likePatterns)
	case 9:
		return "(" + g.boolExpr(e, d-1) + ")" + pick(g.r, []string{" IS TRUE", " IS NOT TRUE", " IS FALSE", " IS NOT FALSE", " IS UNKNOWN"})
	case 10:
		if e.sub {
			return g.subqueryPred(e)
		}
	}
	return g.leaf(e, cBool).sql
}
