package oracle

// aggregate generates an aggregate call of class cl whose arguments come
// from in (the FROM columns of the grouped query: no subqueries, no outer
// columns, whose aggregation PostgreSQL would move to the outer query).
// A quarter of the calls carry FILTER (WHERE …).
func (g *qgen) aggregate(in *ectx, cl class) typed {
	arg := func(c class) typed { return g.expr(in, c, 1) }
	var x typed
	switch cl {
	case cNum:
		switch g.r.weighted(10, 8, 6, 10, 3, 8, 8, 6) {
		case 0:
			x = typed{"count(*)", tBigint}
		case 1:
			x = typed{"count(" + arg(pick(g.r, classes)).sql + ")", tBigint}
		case 2:
			x = typed{"count(DISTINCT " + arg(pick(g.r, classes)).sql + ")", tBigint}
		case 3, 4:
			a := arg(cNum)
			distinct := ""
			if g.r.chance(0.2) {
				distinct = "DISTINCT "
			}
			x = typed{"sum(" + distinct + a.sql + ")", sumType(a.typ)}
		case 5:
			x = typed{"avg(" + arg(cNum).sql + ")", tNumeric}
		case 6:
			a := arg(cNum)
			x = typed{pick(g.r, []string{"min", "max"}) + "(" + a.sql + ")", a.typ}
		default:
			fn := pick(g.r, []string{"stddev", "variance", "stddev_pop", "stddev_samp", "var_pop", "var_samp"})
			x = typed{fn + "(" + arg(cNum).sql + ")", tNumeric}
		}
	case cText:
		a := arg(cText)
		sep := pick(g.r, []string{"','", "' | '", "''"})
		switch g.r.weighted(6, 2, 3) {
		case 0:
			x = typed{"string_agg(" + a.sql + ", " + sep + " ORDER BY " + g.aggOrder(in, a.sql) + ")", tText}
		case 1:
			// A bare literal would be of unknown type in ORDER BY, and
			// then not the argument, which PostgreSQL refuses (42P10).
			if bareConstant.MatchString(a.sql) {
				a.sql = "CAST(" + a.sql + " AS text)"
			}
			x = typed{"string_agg(DISTINCT " + a.sql + ", " + sep + " ORDER BY " + a.sql + g.direction() + ")", tText}
		default:
			x = typed{pick(g.r, []string{"min", "max"}) + "(" + a.sql + ")", tText}
		}
	case cBool:
		x = typed{pick(g.r, []string{"bool_and", "bool_or", "every"}) + "(" + arg(cBool).sql + ")", tBool}
	default:
		a := arg(cTime)
		x = typed{pick(g.r, []string{"min", "max"}) + "(" + a.sql + ")", a.typ}
	}
	if g.r.chance(0.25) {
		x.sql += " FILTER (WHERE " + g.boolExpr(in, 1) + ")"
	}
	return x
}

// enclosed sometimes puts an aggregate of a grouped query in a subquery
// of its own, (SELECT agg): an aggregate whose arguments reference only
// the grouped query's columns is still the grouped query's, one that
// references none (count(*)) the subquery's.
func (g *qgen) enclosed(x typed) typed {
	if g.r.chance(0.1) {
		return typed{"(SELECT " + x.sql + ")", x.typ}
	}
	return x
}

// sumType is PostgreSQL's result type of sum.
func sumType(t typ) typ {
	if t == tInt {
		return tBigint
	}
	return tNumeric
}

// aggOrder is the ORDER BY of an ordered aggregate over arg: up to one
// other key, then arg itself, so that tied rows have equal arguments and
// the aggregated value does not depend on how ties are broken.
func (g *qgen) aggOrder(in *ectx, arg string) string {
	s := ""
	if g.r.chance(0.4) {
		s = g.expr(in, pick(g.r, classes), 1).sql + g.direction() + ", "
	}
	return s + arg + g.direction()
}

// opaqueAggregate is array_agg or jsonb_agg of any class, ordered.
func (g *qgen) opaqueAggregate(in *ectx) typed {
	a := g.expr(in, pick(g.r, classes), 1)
	if bareConstant.MatchString(a.sql) {
		// A bare literal is of unknown type, which array_agg refuses.
		a.sql = "CAST(" + a.sql + " AS " + a.typ.name() + ")"
	}
	fn := pick(g.r, []string{"array_agg", "jsonb_agg"})
	x := typed{fn + "(" + a.sql + " ORDER BY " + g.aggOrder(in, a.sql) + ")", tOpaque}
	if g.r.chance(0.2) {
		x.sql += " FILTER (WHERE " + g.boolExpr(in, 1) + ")"
	}
	return x
}
