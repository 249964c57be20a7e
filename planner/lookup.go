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
		if !ok || g.Lookup != nil {
			return n
		}
		conjuncts := scalar.Conjuncts(f.Pred)
		candidates := []IndexRef{{KeyCols: g.KeyCols}}
		candidates = append(candidates, g.Indexes...)
		for _, idx := range candidates {
			if len(idx.KeyCols) == 0 {
				continue
			}
			vals, rest, ok := matchKey(g, idx.KeyCols, conjuncts, idx.ID != 0)
			if !ok {
				continue
			}
			lookup := *g
			lookup.Lookup, lookup.Index, lookup.IndexName, lookup.KeyCols = vals, idx.ID, idx.Name, idx.KeyCols[:len(vals)]
			if len(rest) == 0 {
				return &lookup
			}
			return &Filter{Input: &lookup, Pred: scalar.NewAnd(rest)}
		}
		return n
	})
}

// matchKey finds an equality conjunct for every key column (or, with
// prefix, for a leading part of the key); it returns the key values in key
// order and the other conjuncts.
func matchKey(g *Get, keyCols []int, conjuncts []scalar.Expr, prefix bool) ([]scalar.Expr, []scalar.Expr, bool) {
	vals := make([]scalar.Expr, len(keyCols))
	from := make([]scalar.Expr, len(keyCols))
	var rest []scalar.Expr
	for _, c := range conjuncts {
		col, val, ok := keyEquality(c)
		pos := -1
		if ok {
			for i, kc := range keyCols {
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
		vals[pos], from[pos] = val, c
	}
	n := len(vals)
	if prefix {
		n = 0
		for n < len(vals) && vals[n] != nil {
			n++
		}
		// Equalities on key columns after the prefix stay filters.
		for i := n; i < len(vals); i++ {
			if from[i] != nil {
				rest = append(rest, from[i])
			}
		}
	}
	if n == 0 {
		return nil, nil, false
	}
	vals = vals[:n]
	for i, v := range vals {
		if v == nil {
			return nil, nil, false
		}
		if t := g.Cols[keyCols[i]].Type; v.Type() != t {
			vals[i] = &scalar.Cast{Arg: v, To: t}
		}
	}
	return vals, rest, true
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
