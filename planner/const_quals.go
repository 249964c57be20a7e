package planner

import (
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// simplifyConstants simplifies every expression of the plan, and of the
// subqueries its expressions reach (scalar.Simplify: constants are
// evaluated, and their errors fail the statement as PostgreSQL's planner
// does; strict calls of a NULL constant are NULL), and then does what
// PostgreSQL does with a qualification that is constant false or NULL: it
// gates the plan below it, which is then never run. A Filter (WHERE, or
// HAVING) with such a conjunct, and an inner or semi join with one in its
// condition, become the empty relation, so that the other conjuncts, the
// aggregates below a HAVING and the join's inputs are never evaluated and
// none of their errors surfaces: WHERE NOT -x / 0 < NULL returns no rows.
// Any other join keeps its rows with a condition that is simply false.
//
// It runs first in Optimize, so that decorrelation and pushdown never see
// a conjunct that no row passes.
func simplifyConstants(n Node) (Node, error) {
	var err error
	out := RewriteNodes(n, func(n Node) Node {
		if err != nil {
			return n
		}
		n = MapExprs(n, func(e scalar.Expr) scalar.Expr {
			if err != nil {
				return e
			}
			var s scalar.Expr
			if s, err = scalar.Simplify(e, simplifySubquery); err != nil {
				return e
			}
			return s
		})
		switch x := n.(type) {
		case *Filter:
			if anyFalseConjunct(x.Pred) {
				return emptyOf(x)
			}
		case *Join:
			if x.On == nil || !anyFalseConjunct(x.On) {
				break
			}
			if x.Kind == InnerJoin || x.Kind == SemiJoin {
				return emptyOf(x)
			}
			c := *x
			c.On = scalar.NewConst(types.DFalse, types.TypeBool)
			return &c
		}
		return n
	})
	return out, err
}

// simplifySubquery simplifies the plan of a subquery that an expression
// reaches.
func simplifySubquery(e scalar.Expr) (scalar.Expr, error) {
	s, ok := e.(*Subquery)
	if !ok {
		return e, nil
	}
	plan, err := simplifyConstants(s.Plan)
	if err != nil {
		return nil, err
	}
	c := *s
	c.Plan = plan
	return &c, nil
}

func anyFalseConjunct(e scalar.Expr) bool {
	for _, c := range scalar.Conjuncts(e) {
		if scalar.IsFalseOrNull(c) {
			return true
		}
	}
	return false
}

// emptyOf is the empty relation with n's columns.
func emptyOf(n Node) Node { return &Values{Cols: n.Columns()} }
