package planner

import "github.com/streamdb/streamdb/planner/scalar"

// MapExprs returns n with fn applied to each of its own scalar
// expressions (not those of its inputs). fn receives whole expressions, not
// sub-expressions. Nodes without expressions are returned unchanged.
func MapExprs(n Node, fn func(scalar.Expr) scalar.Expr) Node {
	mapAll := func(es []scalar.Expr) []scalar.Expr {
		if es == nil {
			return nil
		}
		out := make([]scalar.Expr, len(es))
		for i, e := range es {
			out[i] = fn(e)
		}
		return out
	}
	mapOpt := func(e scalar.Expr) scalar.Expr {
		if e == nil {
			return nil
		}
		return fn(e)
	}
	mapKeys := func(ks []SortKey) []SortKey {
		if ks == nil {
			return nil
		}
		out := make([]SortKey, len(ks))
		for i, k := range ks {
			k.Expr = fn(k.Expr)
			out[i] = k
		}
		return out
	}
	switch x := n.(type) {
	case *Get:
		if x.Spans == nil {
			return x
		}
		c := *x
		c.Spans = make([]KeySpan, len(x.Spans))
		mapBound := func(b *KeyBound) *KeyBound {
			if b == nil {
				return nil
			}
			return &KeyBound{Value: fn(b.Value), Inclusive: b.Inclusive}
		}
		for i, s := range x.Spans {
			c.Spans[i] = KeySpan{Prefix: mapAll(s.Prefix), Lo: mapBound(s.Lo), Hi: mapBound(s.Hi)}
		}
		return &c
	case *Values:
		c := *x
		c.Rows = make([][]scalar.Expr, len(x.Rows))
		for i, r := range x.Rows {
			c.Rows[i] = mapAll(r)
		}
		return &c
	case *Filter:
		return &Filter{Input: x.Input, Pred: fn(x.Pred)}
	case *Project:
		c := *x
		c.Exprs = mapAll(x.Exprs)
		return &c
	case *Join:
		c := *x
		c.On = mapOpt(x.On)
		return &c
	case *Aggregate:
		c := *x
		c.Keys = mapAll(x.Keys)
		c.Aggs = make([]AggCall, len(x.Aggs))
		for i, a := range x.Aggs {
			a.Args = mapAll(a.Args)
			a.Filter = mapOpt(a.Filter)
			a.Order = mapKeys(a.Order)
			c.Aggs[i] = a
		}
		return &c
	case *TopK:
		c := *x
		c.Order = mapKeys(x.Order)
		c.Limit = mapOpt(x.Limit)
		c.Offset = mapOpt(x.Offset)
		return &c
	case *FlatMap:
		c := *x
		c.Args = mapAll(x.Args)
		return &c
	case *Apply:
		if x.Guard == nil {
			return x
		}
		c := *x
		c.Guard = fn(x.Guard)
		return &c
	case *Window:
		c := *x
		c.Order = mapKeys(x.Order)
		c.Calls = make([]WindowCall, len(x.Calls))
		for i, wc := range x.Calls {
			wc.Args = mapAll(wc.Args)
			wc.Filter = mapOpt(wc.Filter)
			wc.Frame.Start.Offset = mapOpt(wc.Frame.Start.Offset)
			wc.Frame.End.Offset = mapOpt(wc.Frame.End.Offset)
			c.Calls[i] = wc
		}
		return &c
	}
	return n
}

// NodeExprs returns n's own scalar expressions.
func NodeExprs(n Node) []scalar.Expr {
	var out []scalar.Expr
	MapExprs(n, func(e scalar.Expr) scalar.Expr {
		out = append(out, e)
		return e
	})
	return out
}

// MapOuterRefs rebuilds the plan with fn applied to every outer reference,
// however deeply nested: level is the number of query levels between n and
// the reference (0 for n's own expressions, 1 inside a subquery of n or
// the right side of an Apply). A reference with Depth > level points above
// n, Depth-level levels up.
func MapOuterRefs(n Node, fn func(o *OuterRef, level int) scalar.Expr) Node {
	return MapPlanExprs(n, func(x scalar.Expr, level int) scalar.Expr {
		if o, ok := x.(*OuterRef); ok {
			return fn(o, level)
		}
		return x
	})
}

// MapPlanExprs rebuilds the plan with fn applied, bottom up, to every
// node of every scalar expression, however deeply nested, with its level
// as MapOuterRefs counts it.
func MapPlanExprs(n Node, fn func(x scalar.Expr, level int) scalar.Expr) Node {
	var rw func(n Node, level int) Node
	rwExpr := func(e scalar.Expr, level int) scalar.Expr {
		return scalar.Rewrite(e, func(x scalar.Expr) scalar.Expr {
			if s, ok := x.(*Subquery); ok {
				c := *s
				c.Plan = rw(s.Plan, level+1)
				x = &c
			}
			return fn(x, level)
		})
	}
	rw = func(n Node, level int) Node {
		ins := n.Inputs()
		if len(ins) > 0 {
			newIns := make([]Node, len(ins))
			for i, in := range ins {
				l := level
				if _, ok := n.(*Apply); ok && i == 1 {
					l++
				}
				newIns[i] = rw(in, l)
			}
			n = n.withInputs(newIns)
		}
		return MapExprs(n, func(e scalar.Expr) scalar.Expr { return rwExpr(e, level) })
	}
	return rw(n, 0)
}

// RewriteOuterRefs replaces the outer references that point depth query
// levels above n with fn's result, which must be valid where the reference
// stands (o.Depth counts the levels from there).
func RewriteOuterRefs(n Node, depth int, fn func(*OuterRef) scalar.Expr) Node {
	return MapOuterRefs(n, func(o *OuterRef, level int) scalar.Expr {
		if o.Depth-level == depth {
			return fn(o)
		}
		return o
	})
}

// HasOuterRefs reports whether the plan references the query depth levels
// above n.
func HasOuterRefs(n Node, depth int) bool {
	found := false
	MapOuterRefs(n, func(o *OuterRef, level int) scalar.Expr {
		if o.Depth-level == depth {
			found = true
		}
		return o
	})
	return found
}

// decrementDepth removes one query level between n and the levels above
// it: every reference pointing above n moves one level closer.
func decrementDepth(n Node) Node { return ShiftDepth(n, -1) }

// ShiftDepth puts by query levels more between n and the levels above it
// (fewer when by is negative): every reference pointing above n moves by
// levels further out. A plan bound at one level and used by levels deeper,
// as a WITH query referenced from within a subquery, needs its references
// to the rows around its definition shifted so.
func ShiftDepth(n Node, by int) Node {
	if by == 0 {
		return n
	}
	return MapOuterRefs(n, func(o *OuterRef, level int) scalar.Expr {
		if o.Depth-level >= 1 {
			return &OuterRef{Depth: o.Depth + by, Idx: o.Idx, Typ: o.Typ}
		}
		return o
	})
}
