package planner

import (
	"slices"

	"github.com/streamdb/streamdb/planner/scalar"
)

// PostgreSQL evaluates a subquery only when the expression holding it
// reaches it: a CASE branch when its condition is the first true one, a
// COALESCE argument when those before it are NULL, an AND (OR) operand
// when none before it is false (true). Decorrelation computes a subquery
// for a set of outer rows at once, and errors travel as data, so one
// computed for every row would raise the error of a branch no row takes
// (CASE WHEN x = 0 THEN NULL ELSE (SELECT 1 / x) END). guardedApplies
// gives each subquery's Apply the condition under which it is reached,
// built from the conditions that decide it, and removeApply computes the
// subquery only for the rows that meet it.
//
// Example: in CASE WHEN c1 THEN s1 WHEN c2 THEN s2 ELSE s3 END, s1 is
// guarded by c1 IS TRUE, s2 by c1 IS NOT TRUE AND c2 IS TRUE, s3 by
// c1 IS NOT TRUE AND c2 IS NOT TRUE (and every one by the guard of the
// CASE itself).
type guardedApplies struct {
	input Node
	err   error
}

// rewrite replaces the subqueries of e, reached when every expression of
// reach is true, by the columns of guarded Applies over g.input.
func (g *guardedApplies) rewrite(e scalar.Expr, reach []scalar.Expr) scalar.Expr {
	if g.err != nil || !exprHasSubquery(e) {
		return e
	}
	switch x := e.(type) {
	case *Subquery:
		c := *x
		c.Args = g.all(x.Args, reach)
		if g.err != nil {
			return e
		}
		var repl scalar.Expr
		g.input, repl, g.err = applyOne(g.input, &c, guardOf(reach))
		return repl
	case *scalar.Case:
		c := *x
		c.Whens = make([]scalar.When, len(x.Whens))
		for i, w := range x.Whens {
			cond := g.rewrite(w.Cond, reach)
			c.Whens[i] = scalar.When{Cond: cond, Result: g.rewrite(w.Result, with(reach, &scalar.IsTruth{Arg: cond, Want: true}))}
			reach = with(reach, &scalar.IsTruth{Arg: cond, Want: true, Not: true})
		}
		if x.Else != nil {
			c.Else = g.rewrite(x.Else, reach)
		}
		return &c
	case *scalar.Coalesce:
		c := *x
		c.Args = make([]scalar.Expr, len(x.Args))
		for i, a := range x.Args {
			c.Args[i] = g.rewrite(a, reach)
			reach = with(reach, &scalar.IsNull{Arg: c.Args[i]})
		}
		return &c
	case *scalar.And:
		args := make([]scalar.Expr, len(x.Args))
		for i, a := range x.Args {
			args[i] = g.rewrite(a, reach)
			reach = with(reach, &scalar.IsTruth{Arg: args[i], Want: false, Not: true})
		}
		return &scalar.And{Args: args}
	case *scalar.Or:
		args := make([]scalar.Expr, len(x.Args))
		for i, a := range x.Args {
			args[i] = g.rewrite(a, reach)
			reach = with(reach, &scalar.IsTruth{Arg: args[i], Want: true, Not: true})
		}
		return &scalar.Or{Args: args}
	}
	return e.WithChildren(g.all(e.Children(), reach))
}

func (g *guardedApplies) all(es []scalar.Expr, reach []scalar.Expr) []scalar.Expr {
	out := make([]scalar.Expr, len(es))
	for i, e := range es {
		out[i] = g.rewrite(e, reach)
	}
	return out
}

// with returns reach and one more condition, leaving reach as it was.
func with(reach []scalar.Expr, c scalar.Expr) []scalar.Expr {
	return append(slices.Clip(reach), c)
}

// guardOf is the guard of a subquery reached under reach: nil when every
// row reaches it, and nil as well when a condition is volatile, since a
// second evaluation of it could disagree with the one the expression
// makes (the subquery is then computed for every row, as before).
func guardOf(reach []scalar.Expr) scalar.Expr {
	if len(reach) == 0 {
		return nil
	}
	g := scalar.NewAnd(reach)
	if scalar.MaxVolatility(g) == scalar.Volatile {
		return nil
	}
	return g
}

// subqueriesLast orders a filter's conjuncts as PostgreSQL's qual
// ordering by cost does: those without a subquery first, so that a
// subquery is reached only by the rows the others let through.
func subqueriesLast(conjuncts []scalar.Expr) []scalar.Expr {
	out := make([]scalar.Expr, 0, len(conjuncts))
	for _, c := range conjuncts {
		if !exprHasSubquery(c) {
			out = append(out, c)
		}
	}
	for _, c := range conjuncts {
		if exprHasSubquery(c) {
			out = append(out, c)
		}
	}
	return out
}
