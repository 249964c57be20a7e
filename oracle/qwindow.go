package oracle

import (
	"fmt"
	"strings"
)

// windowCall generates a window function call of class cl over the FROM
// columns of e. Functions whose value depends on the order of peers
// (row_number, lag, lead, first_value, last_value, ROWS frames) get a
// total order: the window's own keys followed by every column in scope.
// rank, dense_rank and RANGE frames include peers by definition and keep
// a partial order.
func (g *qgen) windowCall(e *ectx, cl class) typed {
	in := &ectx{sc: e.sc, depth: e.depth}
	part := g.partition(in)
	total := func() string { return part + "ORDER BY " + g.totalOrder(in) }
	partial := func() string { return part + "ORDER BY " + strings.Join(g.windowKeys(in), ", ") }
	// A bare string literal is of unknown type, which the polymorphic
	// lag, lead, first_value and last_value refuse (42804).
	arg := func() typed {
		a := g.expr(in, cl, 1)
		if bareConstant.MatchString(a.sql) {
			a.sql = "CAST(" + a.sql + " AS " + a.typ.name() + ")"
		}
		return a
	}
	if cl == cNum {
		switch g.r.weighted(3, 2, 2) {
		case 0:
			return typed{"row_number() OVER (" + total() + ")", tBigint}
		case 1:
			return typed{pick(g.r, []string{"rank", "dense_rank"}) + "() OVER (" + partial() + ")", tBigint}
		}
	}
	switch g.r.weighted(4, 3, 2, 6) {
	case 0:
		a := arg()
		fn := pick(g.r, []string{"lag", "lead"})
		args := a.sql
		switch g.r.IntN(3) {
		case 1:
			args += fmt.Sprintf(", %d", g.r.between(1, 2))
		case 2:
			args += fmt.Sprintf(", %d, %s", g.r.between(1, 2), g.r.randomValue(a.typ, false).literal(a.typ))
		}
		return typed{fn + "(" + args + ") OVER (" + total() + ")", a.typ}
	case 1:
		a := arg()
		return typed{"first_value(" + a.sql + ") OVER (" + total() + ")", a.typ}
	case 2:
		a := arg()
		return typed{"last_value(" + a.sql + ") OVER (" + total() + " ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)", a.typ}
	}
	var call typed
	switch {
	case cl == cNum:
		a := g.expr(in, cNum, 1)
		switch g.r.IntN(5) {
		case 0:
			call = typed{"count(" + a.sql + ")", tBigint}
		case 1:
			call = typed{"sum(" + a.sql + ")", sumType(a.typ)}
		case 2:
			call = typed{"avg(" + a.sql + ")", tNumeric}
		default:
			call = typed{pick(g.r, []string{"min", "max"}) + "(" + a.sql + ")", a.typ}
		}
	case cl == cBool:
		call = typed{pick(g.r, []string{"bool_and", "bool_or"}) + "(" + arg().sql + ")", tBool}
	case cl == cText && g.r.chance(0.4):
		// string_agg lists the frame's rows in the window's order, which
		// is then total (see orderedWindowAgg).
		sep := pick(g.r, []string{"','", "' | '", "''"})
		return typed{"string_agg(" + arg().sql + ", " + sep + ") OVER (" + g.orderedFrame(in) + ")", tText}
	default:
		a := arg()
		call = typed{pick(g.r, []string{"min", "max"}) + "(" + a.sql + ")", a.typ}
	}
	if g.r.chance(0.15) {
		call.sql += " FILTER (WHERE " + g.boolExpr(in, 1) + ")"
	}
	var over string
	switch g.r.weighted(2, 3, 2, 1, 4, 6) {
	case 0:
		over = strings.TrimSuffix(part, " ")
	case 1:
		over = partial()
	case 2:
		over = partial() + " RANGE BETWEEN " + pick(g.r, []string{"CURRENT ROW", "UNBOUNDED PRECEDING"}) + " AND UNBOUNDED FOLLOWING"
	case 3:
		over = partial() + " RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
	case 5:
		over = g.frameOver(in, part)
	default:
		start := pick(g.r, []string{"UNBOUNDED PRECEDING", "2 PRECEDING", "1 PRECEDING", "CURRENT ROW"})
		end := pick(g.r, []string{"CURRENT ROW", "1 FOLLOWING", "UNBOUNDED FOLLOWING"})
		over = total() + " ROWS BETWEEN " + start + " AND " + end
	}
	return typed{call.sql + " OVER (" + over + ")", call.typ}
}

// partition renders "PARTITION BY … " (with its trailing space) or "".
func (g *qgen) partition(in *ectx) string {
	n := g.r.weighted(35, 45, 20)
	if n == 0 {
		return ""
	}
	keys := make([]string, n)
	for i := range keys {
		if g.r.chance(0.8) {
			keys[i] = pick(g.r, in.sc.qualified()).ref
		} else {
			keys[i] = g.expr(in, pick(g.r, classes), 1).sql
		}
	}
	return "PARTITION BY " + strings.Join(keys, ", ") + " "
}

// windowKeys draws one or two sort keys with directions.
func (g *qgen) windowKeys(in *ectx) []string {
	keys := make([]string, g.r.between(1, 2))
	for i := range keys {
		if g.r.chance(0.7) {
			keys[i] = pick(g.r, in.sc.qualified()).ref + g.direction()
		} else {
			keys[i] = g.expr(in, pick(g.r, classes), 1).sql + g.direction()
		}
	}
	return keys
}

// totalOrder is a window ORDER BY that leaves only identical rows tied.
func (g *qgen) totalOrder(in *ectx) string {
	keys := g.windowKeys(in)
	for _, i := range g.r.Perm(len(in.sc.qualified())) {
		keys = append(keys, in.sc.qualified()[i].ref+g.direction())
	}
	return strings.Join(keys, ", ")
}

// topKPerGroup generates the per-group top-k idiom: a derived table that
// numbers (or ranks) rows within a partition, filtered on that number.
func (g *qgen) topKPerGroup(outer *scope, depth int) rel {
	from, sc, where := g.from(outer, depth+1)
	e := &ectx{sc: sc, depth: depth + 1, sub: depth+1 < g.maxDepth, outer: true}
	if g.r.chance(0.5) {
		where = append(where, g.expr(e, cBool, g.exprDepth).sql)
	}
	n := g.r.between(1, 3)
	names := outNames(n)
	items := make([]string, n)
	var cols []col
	for i := range items {
		x := g.expr(e, pick(g.r, classes), 1)
		items[i] = x.sql + " AS " + names[i]
		cols = append(cols, col{ref: names[i], name: names[i], typ: x.typ})
	}
	in := &ectx{sc: sc, depth: depth + 1}
	part := g.partition(in)
	fn := "row_number() OVER (" + part + "ORDER BY " + g.totalOrder(in) + ")"
	if g.r.chance(0.35) {
		fn = pick(g.r, []string{"rank", "dense_rank"}) + "() OVER (" + part + "ORDER BY " + strings.Join(g.windowKeys(in), ", ") + ")"
	}
	inner := "SELECT " + strings.Join(items, ", ") + ", " + fn + " AS rn FROM " + from
	if len(where) > 0 {
		inner += " WHERE " + strings.Join(where, " AND ")
	}
	x := g.alias()
	outItems := make([]string, n)
	for i := range outItems {
		outItems[i] = x + "." + names[i] + " AS " + names[i]
	}
	if g.r.chance(0.5) {
		name := fmt.Sprintf("c%d", n)
		outItems = append(outItems, x+".rn AS "+name)
		cols = append(cols, col{ref: name, name: name, typ: tBigint})
	}
	cmp := pick(g.r, []string{"<=", "<", "="})
	q := fmt.Sprintf("SELECT %s FROM (%s) AS %s WHERE %s.rn %s %d", strings.Join(outItems, ", "), inner, x, x, cmp, g.r.between(1, 3))
	return rel{sql: q, cols: cols}
}

// orderedWindowAgg is array_agg, jsonb_agg or jsonb_object_agg as a
// window function: the frame's rows in the window's order, which must
// then be total (rows still tied are identical and list alike). A
// numeric is rounded first, so that equal values tied in the order print
// alike too. The result is opaque: output, never computed on.
func (g *qgen) orderedWindowAgg(e *ectx) typed {
	in := &ectx{sc: e.sc, depth: e.depth}
	a := g.expr(in, pick(g.r, classes), 1)
	if a.typ == tNumeric {
		a.sql = "round(" + a.sql + ", 2)"
	}
	if bareConstant.MatchString(a.sql) {
		a.sql = "CAST(" + a.sql + " AS " + a.typ.name() + ")"
	}
	var call string
	switch g.r.weighted(4, 3, 2) {
	case 0:
		call = "array_agg(" + a.sql + ")"
	case 1:
		call = "jsonb_agg(" + a.sql + ")"
	default:
		// A later duplicate key replaces an earlier one: the order
		// decides the value.
		key := g.expr(in, cText, 1)
		call = "jsonb_object_agg(COALESCE(" + key.sql + ", '-'), " + a.sql + ")"
	}
	return typed{call + " OVER (" + g.orderedFrame(in) + ")", tOpaque}
}

// orderedFrame is a window with a total order and, half the time, a ROWS
// frame; otherwise the default frame, whose peers are identical rows.
func (g *qgen) orderedFrame(in *ectx) string {
	over := g.partition(in) + "ORDER BY " + g.totalOrder(in)
	if g.r.chance(0.5) {
		start := pick(g.r, []string{"UNBOUNDED PRECEDING", "2 PRECEDING", "1 PRECEDING", "CURRENT ROW"})
		end := pick(g.r, []string{"CURRENT ROW", "1 FOLLOWING", "UNBOUNDED FOLLOWING"})
		over += " ROWS BETWEEN " + start + " AND " + end
	}
	return over
}
