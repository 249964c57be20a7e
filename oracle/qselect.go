package oracle

import (
	"fmt"
	"regexp"
	"strings"
)

// selectCore generates one SELECT … FROM … WHERE …, grouped or not, with
// DISTINCT or DISTINCT ON, windows, and ORDER BY … LIMIT as chance has it.
func (g *qgen) selectCore(outer *scope, depth int, sh shape) rel {
	from, sc, where := g.from(outer, depth)
	e := &ectx{sc: sc, sub: depth < g.maxDepth, depth: depth, outer: true}
	if sh.correlate || (outer != nil && g.r.chance(0.3)) {
		if c := g.correlation(sc); c != "" {
			where = append(where, c)
		}
	}
	if g.r.chance(0.6) {
		where = append(where, g.expr(e, cBool, g.exprDepth).sql)
	}
	if g.r.chance(0.02) {
		if c, ok := g.nullGate(e); ok {
			where = append(where, c)
		}
	}
	whereSQL := ""
	if len(where) > 0 {
		whereSQL = " WHERE " + strings.Join(where, " AND ")
	}
	if g.r.chance(0.3) || (sh.single && g.r.chance(0.6)) {
		return g.grouped(e, from, whereSQL, sh)
	}
	n := len(sh.want)
	if n == 0 {
		n = g.r.between(1, 4)
	}
	items := make([]string, n)
	cols := make([]col, n)
	names := outNames(n)
	for i := range items {
		cl := g.outClass(sh, i, e.sc)
		var x typed
		switch {
		case sh.top && sh.want == nil && g.r.chance(0.06):
			x = g.recordExpr(e)
		case sh.top && sh.want == nil && g.r.chance(0.04):
			x = g.orderedWindowAgg(e)
		case !sh.single && g.r.chance(0.15):
			x = g.windowCall(e, cl)
		default:
			x = g.expr(e, cl, g.exprDepth)
		}
		items[i] = x.sql + " AS " + names[i]
		cols[i] = col{ref: names[i], name: names[i], typ: x.typ}
	}
	head := "SELECT "
	var onKeys []string
	switch g.r.weighted(82, 12, 6) {
	case 1:
		head = "SELECT DISTINCT "
	case 2:
		if !sh.single {
			onKeys = g.distinctOn(sc)
			head = "SELECT DISTINCT ON (" + strings.Join(onKeys, ", ") + ") "
		}
	}
	q := head + strings.Join(items, ", ") + " FROM " + from + whereSQL
	switch {
	case sh.single:
		var extra []string
		if head == "SELECT " {
			extra = g.extraKeys(e)
		}
		q += g.orderLimit(extra, cols) + " LIMIT 1"
	case onKeys != nil:
		q += " ORDER BY " + strings.Join(onKeys, ", ") + ", " + g.orderKeys(g.extraKeys(e), cols)
		if g.r.chance(0.3) {
			q += g.limit()
		}
	case g.r.chance(0.2) || (sh.topk && g.r.chance(0.5)):
		var extra []string
		if head == "SELECT " {
			extra = g.extraKeys(e)
		}
		q += g.orderLimit(extra, cols) + g.limit()
	}
	return rel{sql: q, cols: cols}
}

// outClass is the class of output column i: the one asked for, or
// mostly one that some column in scope has.
func (g *qgen) outClass(sh shape, i int, sc *scope) class {
	if sh.want != nil {
		return sh.want[i]
	}
	if g.r.chance(0.85) {
		return pick(g.r, sc.qualified()).typ.class()
	}
	return pick(g.r, classes)
}

// grouped finishes a SELECT with GROUP BY (or a global aggregate) and
// HAVING. Output expressions are built from group keys and aggregates
// only; a global aggregate's first output is always an aggregate, so the
// query returns exactly one row even over an empty input.
func (g *qgen) grouped(e *ectx, from, whereSQL string, sh shape) rel {
	nkeys := g.r.weighted(20, 50, 30)
	if sh.single {
		nkeys = 0
	}
	in := &ectx{sc: e.sc, depth: e.depth}
	grp := &grouping{in: in}
	var keyTexts []string
	for range nkeys {
		var k typed
		if g.r.chance(0.8) {
			c := pick(g.r, e.sc.cols)
			k = typed{c.ref, c.typ}
		} else {
			k = g.expr(in, pick(g.r, classes), 1)
		}
		if k.typ == tOpaque || bareConstant.MatchString(k.sql) {
			continue
		}
		grp.keys = append(grp.keys, col{ref: k.sql, typ: k.typ})
		keyTexts = append(keyTexts, k.sql)
	}
	ge := &ectx{sc: e.sc, grp: grp, depth: e.depth}
	n := len(sh.want)
	if n == 0 {
		n = g.r.between(1, 4)
	}
	items := make([]string, n)
	cols := make([]col, n)
	names := outNames(n)
	for i := range items {
		cl := g.outClass(sh, i, e.sc)
		var x typed
		switch {
		case sh.top && sh.want == nil && g.r.chance(0.12):
			x = g.opaqueAggregate(in)
			if g.r.chance(0.25) {
				x = g.recordAggregate(in)
			}
		case i == 0 && len(grp.keys) == 0:
			x = g.aggregate(in, cl)
		default:
			x = g.expr(ge, cl, 1)
		}
		items[i] = x.sql + " AS " + names[i]
		cols[i] = col{ref: names[i], name: names[i], typ: x.typ}
	}
	q := "SELECT " + strings.Join(items, ", ") + " FROM " + from + whereSQL
	if len(keyTexts) > 0 {
		q += " GROUP BY " + strings.Join(keyTexts, ", ")
	}
	if !sh.single && g.r.chance(0.3) {
		q += " HAVING " + g.expr(ge, cBool, 1).sql
	}
	if !sh.single && g.r.chance(0.2) {
		q += g.orderLimit(nil, cols) + g.limit()
	}
	return rel{sql: q, cols: cols}
}

// distinctOn picks the DISTINCT ON expressions: one or two columns.
func (g *qgen) distinctOn(sc *scope) []string {
	qs := sc.qualified()
	var out []string
	for range g.r.between(1, 2) {
		out = append(out, pick(g.r, qs).ref)
	}
	return out
}

// extraKeys draws up to two sort keys over the FROM columns, placed
// before the output columns in an ORDER BY so that the order is not
// always the output order.
func (g *qgen) extraKeys(e *ectx) []string {
	var out []string
	for range g.r.weighted(40, 40, 20) {
		x := g.expr(&ectx{sc: e.sc, depth: e.depth}, pick(g.r, classes), 1)
		if bareConstant.MatchString(x.sql) {
			continue
		}
		out = append(out, x.sql+g.direction())
	}
	return out
}

// bareConstant matches a literal number (negated too: (-(6.4))), string
// or boolean, which PostgreSQL does not take as a sort or grouping key:
// it reads an integer as an output column's position and refuses the
// others (42601).
var bareConstant = regexp.MustCompile(`^\(*(-?\(*-?[0-9.]+|'([^']|'')*'|true|false)\)*$`)

// orderLimit renders " ORDER BY extra…, every output column".
func (g *qgen) orderLimit(extra []string, cols []col) string {
	return " ORDER BY " + g.orderKeys(extra, cols)
}

// orderKeys lists extra followed by every output column, in random order
// and directions: a total order up to identical output rows.
func (g *qgen) orderKeys(extra []string, cols []col) string {
	keys := append([]string(nil), extra...)
	for _, i := range g.r.Perm(len(cols)) {
		keys = append(keys, cols[i].ref+g.direction())
	}
	return strings.Join(keys, ", ")
}

// direction draws ASC/DESC and NULLS FIRST/LAST.
func (g *qgen) direction() string {
	d := pick(g.r, []string{"", "", " ASC", " DESC"})
	if g.r.chance(0.25) {
		d += pick(g.r, []string{" NULLS FIRST", " NULLS LAST"})
	}
	return d
}

// limit renders LIMIT and OFFSET; LIMIT 0 and a bare OFFSET are rare.
func (g *qgen) limit() string {
	switch g.r.weighted(70, 20, 5, 5) {
	case 1:
		return fmt.Sprintf(" LIMIT %d OFFSET %d", g.r.between(1, 4), g.r.between(1, 3))
	case 2:
		return " LIMIT 0"
	case 3:
		return fmt.Sprintf(" OFFSET %d", g.r.between(1, 3))
	}
	return fmt.Sprintf(" LIMIT %d", g.r.between(1, 5))
}

// correlation returns a condition tying a column of this level to one of
// an enclosing level, or "" when no pair of one class exists.
func (g *qgen) correlation(sc *scope) string {
	for range 4 {
		c := pick(g.r, classes)
		in, out := sc.ofClass(c), sc.outerCols(c)
		if len(in) == 0 || len(out) == 0 {
			continue
		}
		x, y := pick(g.r, in), pick(g.r, out)
		switch g.r.weighted(70, 15, 15) {
		case 1:
			if c != cBool {
				return x.ref + " < " + y.ref
			}
		case 2:
			return x.ref + " IS NOT DISTINCT FROM " + y.ref
		}
		return x.ref + " = " + y.ref
	}
	return ""
}
