package oracle

import (
	"fmt"
	"slices"
	"strings"
)

// WITH RECURSIVE (issue 28), in forms whose recursion ends whatever the
// data: the closure of a pair of columns of one type (UNION, which ranges
// over the values the table holds), a walk of bounded depth over such a
// pair (UNION ALL), and a counter bounded by a subquery over a table.
// The main query reads the recursive query whole, filtered or counted.

// recursive generates a view's query over a recursive WITH query.
func (g *qgen) recursive() rel {
	name := fmt.Sprintf("w%d", g.next)
	g.next++
	var body string
	var cols []col
	t, x, y, ok := g.columnPair()
	switch {
	case ok && g.r.chance(0.5):
		a, b := g.alias(), g.alias()
		body = fmt.Sprintf("SELECT %[1]s.%[2]s, %[1]s.%[3]s FROM %[4]s AS %[1]s UNION SELECT %[5]s.c0, %[6]s.%[3]s FROM %[5]s JOIN %[4]s AS %[6]s ON %[6]s.%[2]s = %[5]s.c1",
			a, x.Name, y.Name, t.Name, name, b)
		cols = []col{{ref: "c0", name: "c0", typ: x.Type}, {ref: "c1", name: "c1", typ: x.Type}}
	case ok:
		a, b := g.alias(), g.alias()
		depth := g.r.between(1, 2)
		body = fmt.Sprintf("SELECT %[1]s.%[2]s, 0 FROM %[4]s AS %[1]s UNION ALL SELECT %[6]s.%[3]s, %[5]s.c1 + 1 FROM %[5]s JOIN %[4]s AS %[6]s ON %[6]s.%[2]s = %[5]s.c0 WHERE %[5]s.c1 < %[7]d",
			a, x.Name, y.Name, t.Name, name, b, depth)
		cols = []col{{ref: "c0", name: "c0", typ: x.Type}, {ref: "c1", name: "c1", typ: tInt}}
	default:
		t := pick(g.r, g.tables)
		body = fmt.Sprintf("SELECT 1 UNION ALL SELECT c0 + 1 FROM %s WHERE c0 < (SELECT count(*) FROM %s)", name, t.Name)
		cols = []col{{ref: "c0", name: "c0", typ: tInt}}
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	with := fmt.Sprintf("WITH RECURSIVE %s(%s) AS (%s) ", name, strings.Join(names, ", "), body)
	sc := &scope{cols: qualify(name, cols)}
	if g.r.chance(0.3) {
		e := &ectx{sc: sc}
		k := pick(g.r, sc.cols)
		x := g.expr(e, pick(g.r, classes), 1)
		q := fmt.Sprintf("%sSELECT %s AS c0, count(*) AS c1, %s AS c2 FROM %s GROUP BY %s, %s", with, k.ref, x.sql, name, k.ref, x.sql)
		if bareConstant.MatchString(x.sql) {
			q = fmt.Sprintf("%sSELECT %s AS c0, count(*) AS c1 FROM %s GROUP BY %s", with, k.ref, name, k.ref)
			return rel{sql: q, cols: []col{{ref: "c0", name: "c0", typ: k.typ}, {ref: "c1", name: "c1", typ: tBigint}}}
		}
		return rel{sql: q, cols: []col{{ref: "c0", name: "c0", typ: k.typ}, {ref: "c1", name: "c1", typ: tBigint}, {ref: "c2", name: "c2", typ: x.typ}}}
	}
	q := with + "SELECT " + strings.Join(refs(sc.cols), ", ") + " FROM " + name
	if g.r.chance(0.5) {
		q += " WHERE " + g.boolExpr(&ectx{sc: sc}, 1)
	}
	return rel{sql: q, cols: cols}
}

// columnPair picks a table with two columns of one type (they may be one
// column), for a recursion that follows rows from one to the other.
func (g *qgen) columnPair() (*Table, Column, Column, bool) {
	for _, i := range g.r.Perm(len(g.tables)) {
		t := g.tables[i]
		var pairs [][2]Column
		for _, x := range t.Cols {
			for _, y := range t.Cols {
				if x.Type == y.Type && x.Type != tBool && !slices.Contains([]typ{tDate, tTimestamp}, x.Type) {
					pairs = append(pairs, [2]Column{x, y})
				}
			}
		}
		if len(pairs) > 0 {
			p := pick(g.r, pairs)
			return t, p[0], p[1], true
		}
	}
	return nil, Column{}, Column{}, false
}

func refs(cols []col) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.ref
	}
	return out
}
