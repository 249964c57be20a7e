package planner

import (
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// pushFilters moves every filter predicate as close to the data as its
// columns allow: into the inputs of joins (so that the cross joins that
// decorrelation and comma-joins produce become equi-joins), through
// projections, DISTINCT, set operations, and below aggregates when it
// reads only group keys. Volatile predicates stay where they are.
func pushFilters(n Node) Node { return push(n, nil) }

// push returns n filtered by preds (conjuncts over n's columns), with the
// predicates placed as deep as possible and n's inputs optimised likewise.
func push(n Node, preds []scalar.Expr) Node {
	var stay []scalar.Expr
	var movable []scalar.Expr
	for _, p := range preds {
		if scalar.MaxVolatility(p) == scalar.Volatile {
			stay = append(stay, p)
		} else {
			movable = append(movable, p)
		}
	}
	var out Node
	switch x := n.(type) {
	case *Filter:
		// The filter's own conjuncts first: the predicates from above
		// only ever saw the rows it let through, and must fail on no
		// other (a guarded subquery's domain, x <> 0 before 10 / x).
		return push(x.Input, append(scalar.Conjuncts(x.Pred), preds...))
	case *Join:
		out, movable = pushJoin(x, movable)
	case *Project:
		var below []scalar.Expr
		var keep []scalar.Expr
		for _, p := range movable {
			if cheapSubstitution(p, x.Exprs) {
				below = append(below, substitute(p, x.Exprs))
			} else {
				keep = append(keep, p)
			}
		}
		out = &Project{Input: push(x.Input, below), Exprs: x.Exprs, Cols: x.Cols}
		movable = keep
	case *Distinct:
		out = &Distinct{Input: push(x.Input, movable)}
		movable = nil
	case *SetOp:
		if x.Kind == Union || x.Kind == Intersect || x.Kind == Except {
			out = &SetOp{Kind: x.Kind, All: x.All, Left: push(x.Left, movable), Right: push(x.Right, movable)}
			movable = nil
		}
	case *Aggregate:
		var below, keep []scalar.Expr
		for _, p := range movable {
			// Without keys the aggregate has its one row whatever its
			// input: HAVING false must stay above it.
			if len(x.Keys) > 0 && onlyKeys(p, len(x.Keys)) {
				below = append(below, substitute(p, x.Keys))
			} else {
				keep = append(keep, p)
			}
		}
		out = &Aggregate{Input: push(x.Input, below), Keys: x.Keys, Aggs: x.Aggs, Cols: x.Cols}
		movable = keep
	}
	if out == nil {
		ins := n.Inputs()
		if len(ins) > 0 {
			newIns := make([]Node, len(ins))
			for i, in := range ins {
				newIns[i] = push(in, nil)
			}
			n = n.withInputs(newIns)
		}
		out = n
	}
	rest := append(movable, stay...)
	if len(rest) == 0 {
		return out
	}
	return &Filter{Input: out, Pred: scalar.NewAnd(rest)}
}

// cheapSubstitution reports whether p can be rewritten over a projection's
// input without duplicating volatile work.
func cheapSubstitution(p scalar.Expr, exprs []scalar.Expr) bool {
	for _, c := range scalar.ColumnsUsed(p) {
		if scalar.MaxVolatility(exprs[c]) == scalar.Volatile {
			return false
		}
	}
	return true
}

// onlyKeys reports whether p reads only the first nkeys columns.
func onlyKeys(p scalar.Expr, nkeys int) bool {
	for _, c := range scalar.ColumnsUsed(p) {
		if c >= nkeys {
			return false
		}
	}
	return true
}

// pushJoin distributes predicates above a join and the join's own
// condition to the inputs where the join's semantics allow. It returns the
// predicates that must stay above the join.
func pushJoin(j *Join, above []scalar.Expr) (Node, []scalar.Expr) {
	lw := len(j.Left.Columns())
	var toLeft, toRight, on, stay []scalar.Expr
	classify := func(p scalar.Expr, fromWhere bool) {
		s := side(p, lw)
		switch j.Kind {
		case InnerJoin:
			switch s {
			case sideLeft, sideNone:
				toLeft = append(toLeft, p)
			case sideRight:
				toRight = append(toRight, scalar.ShiftColumns(p, -lw))
			default:
				on = append(on, p)
			}
		case LeftJoin:
			switch {
			case fromWhere && (s == sideLeft || s == sideNone):
				toLeft = append(toLeft, p)
			case fromWhere:
				stay = append(stay, p)
			case s == sideRight:
				toRight = append(toRight, scalar.ShiftColumns(p, -lw))
			default:
				on = append(on, p)
			}
		case RightJoin:
			switch {
			case fromWhere && s == sideRight:
				toRight = append(toRight, scalar.ShiftColumns(p, -lw))
			case fromWhere:
				stay = append(stay, p)
			case s == sideLeft:
				toLeft = append(toLeft, p)
			default:
				on = append(on, p)
			}
		case SemiJoin, AntiJoin:
			switch {
			case fromWhere:
				toLeft = append(toLeft, p)
			case s == sideRight:
				toRight = append(toRight, scalar.ShiftColumns(p, -lw))
			case j.Kind == SemiJoin && (s == sideLeft || s == sideNone):
				toLeft = append(toLeft, p)
			default:
				on = append(on, p)
			}
		default:
			if fromWhere {
				stay = append(stay, p)
			} else {
				on = append(on, p)
			}
		}
	}
	for _, p := range above {
		classify(p, true)
	}
	if j.On != nil {
		for _, p := range scalar.Conjuncts(j.On) {
			if isTrue(p) {
				continue
			}
			if scalar.MaxVolatility(p) == scalar.Volatile {
				on = append(on, p)
				continue
			}
			classify(p, false)
		}
	}
	var cond scalar.Expr = trueExpr()
	if len(on) > 0 {
		cond = scalar.NewAnd(on)
	}
	return &Join{Kind: j.Kind, Left: push(j.Left, toLeft), Right: push(j.Right, toRight), On: cond, NullSafe: j.NullSafe}, stay
}

func isTrue(e scalar.Expr) bool {
	c, ok := e.(*scalar.Const)
	return ok && c.Val.Kind() == types.Bool && c.Val.Bool()
}
