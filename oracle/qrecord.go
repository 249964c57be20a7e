package oracle

import (
	"fmt"
	"strings"
)

// Row values (issue 28): records as output values of a view's query —
// ROW(…), (…, …), a FROM item's whole row — and aggregated into jsonb.
// They are opaque to the generator: output, compared, sorted and made
// DISTINCT, never fed into other expressions.

// recordExpr generates a record over the FROM columns of e.
func (g *qgen) recordExpr(e *ectx) typed {
	in := &ectx{sc: e.sc, depth: e.depth}
	if aliases := fromAliases(e.sc); len(aliases) > 0 && g.r.chance(0.35) {
		return typed{pick(g.r, aliases), tOpaque}
	}
	n := g.r.between(1, 3)
	if g.r.chance(0.5) {
		n = max(n, 2) // the short form needs two fields
		return typed{"(" + g.recordFields(in, n) + ")", tOpaque}
	}
	return typed{"ROW(" + g.recordFields(in, n) + ")", tOpaque}
}

// recordFields generates n field expressions. A bare literal would be of
// type unknown, which PostgreSQL cannot compare inside a record: it gets
// a cast.
func (g *qgen) recordFields(in *ectx, n int) string {
	fields := make([]string, n)
	for i := range fields {
		x := g.expr(in, pick(g.r, classes), 1)
		if bareConstant.MatchString(x.sql) {
			x.sql = "CAST(" + x.sql + " AS " + x.typ.name() + ")"
		}
		fields[i] = x.sql
	}
	return strings.Join(fields, ", ")
}

// recordAggregate is jsonb_agg of a record, ordered by the record itself.
func (g *qgen) recordAggregate(in *ectx) typed {
	r := "ROW(" + g.recordFields(in, g.r.between(1, 3)) + ")"
	return typed{fmt.Sprintf("jsonb_agg(%s ORDER BY %s%s)", r, r, g.direction()), tOpaque}
}

// fromAliases returns the aliases of the FROM items whose columns e sees
// qualified.
func fromAliases(sc *scope) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range sc.qualified() {
		a, _, ok := strings.Cut(c.ref, ".")
		if ok && !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}
