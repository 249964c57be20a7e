package scalar

import "github.com/streamdb/streamdb/types"

// Fold replaces constant subexpressions with their values. Only nodes that
// are constant (no columns, no parameters, only immutable functions) are
// folded, and a subexpression whose evaluation fails is kept as it is, so
// the error surfaces at run time and only if the row reaches it, as in
// PostgreSQL (CASE WHEN false THEN 1/0 END must not fail). ctx supplies the
// session settings some immutable-looking conversions read; nil means the
// defaults.
func Fold(e Expr, ctx *EvalContext) Expr {
	return Rewrite(e, func(n Expr) Expr {
		if _, ok := n.(*Const); ok || !foldable(n) {
			return n
		}
		d, err := Eval(ctx, n, nil)
		if err != nil {
			return n
		}
		return &Const{Val: d, Typ: n.Type()}
	})
}

// foldable reports whether n is constant and every cast in it gives the
// same result in every session.
func foldable(n Expr) bool {
	if !IsConstant(n) {
		return false
	}
	ok := true
	Walk(n, func(x Expr) bool {
		if p, isPinned := x.(*Pinned); isPinned {
			for _, a := range p.Arg.Children() {
				ok = ok && foldable(a)
			}
			return false
		}
		if c, isCast := x.(*Cast); isCast && !castFoldable(c) {
			ok = false
		}
		return ok
	})
	return ok
}

// CastDependsOnSettings reports whether a cast's result depends on the
// session's settings (TimeZone, DateStyle, IntervalStyle).
func CastDependsOnSettings(c *Cast) bool { return !castFoldable(c) }

// castFoldable reports whether a cast gives the same result in every
// session. Casts to or from text of date/time values depend on DateStyle
// and TimeZone, and timestamp to timestamptz conversions on TimeZone, so
// they are stable, not immutable.
func castFoldable(c *Cast) bool {
	from, to := c.Arg.Type().Family, c.To.Family
	timeish := func(f types.Family) bool {
		return f == types.Date || f == types.Timestamp || f == types.TimestampTZ || f == types.Time || f == types.Interval
	}
	if from == to {
		return true
	}
	if (from.IsString() || from == types.Unknown) && timeish(to) || timeish(from) && to.IsString() {
		return false
	}
	return from != types.TimestampTZ && to != types.TimestampTZ
}
