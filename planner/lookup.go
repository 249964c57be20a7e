package planner

import (
	"github.com/streamdb/streamdb/planner/scalar"
)

// UseLookups turns a filter that fixes every key column of a Get to a
// constant or parameter into a key lookup, so that a point query reads one
// row instead of scanning. It applies to one-tick reads only: a
// maintained view must see every change of its inputs.
func UseLookups(n Node) Node {
	return RewriteNodes(n, func(n Node) Node {
		f, ok := n.(*Filter)
		if !ok {
			return n
		}
		g, ok := f.Input.(*Get)
		if !ok || len(g.KeyCols) == 0 || g.Lookup != nil {
			return n
		}
		vals := make([]scalar.Expr, len(g.KeyCols))
		var rest []scalar.Expr
		for _, c := range scalar.Conjuncts(f.Pred) {
			col, val, ok := keyEquality(c)
			pos := -1
			if ok {
				for i, kc := range g.KeyCols {
					if kc == col && vals[i] == nil {
						pos = i
						break
					}
				}
			}
			if pos < 0 {
				rest = append(rest, c)
				continue
			}
			vals[pos] = val
		}
		for i, v := range vals {
			if v == nil {
				return n
			}
			if t := g.Cols[g.KeyCols[i]].Type; v.Type() != t {
				vals[i] = &scalar.Cast{Arg: v, To: t}
			}
		}
		lookup := *g
		lookup.Lookup = vals
		if len(rest) == 0 {
			return &lookup
		}
		return &Filter{Input: &lookup, Pred: scalar.NewAnd(rest)}
	})
}

// keyEquality matches "column = value" (either way round) where value
// reads no columns and the operator compares values of the same family,
// so that equality means equal keys.
func keyEquality(e scalar.Expr) (int, scalar.Expr, bool) {
	call, ok := e.(*scalar.Call)
	if !ok || call.Fn.Name != "=" || len(call.Args) != 2 {
		return 0, nil, false
	}
	a, b := call.Args[0], call.Args[1]
	if _, ok := b.(*scalar.ColRef); ok {
		a, b = b, a
	}
	col, ok := a.(*scalar.ColRef)
	if !ok || len(scalar.ColumnsUsed(b)) > 0 || scalar.MaxVolatility(b) == scalar.Volatile {
		return 0, nil, false
	}
	if a.Type().Family != b.Type().Family {
		return 0, nil, false
	}
	return col.Idx, b, true
}
