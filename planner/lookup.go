package planner

import (
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// maxSpans bounds the spans a cross product of IN lists may produce; past
// it the remaining key columns stay filters.
const maxSpans = 1024

// lookupFilter turns a filter that constrains leading key columns of a Get
// into key spans, so that a read touches only the rows it can match
// instead of scanning: "=" and IN on leading key columns give point
// lookups (or prefix scans), and <, <=, >, >= and BETWEEN on the next key
// column of the primary key give a bounded range scan. It applies to
// one-tick reads only: a maintained view must see every change of its
// inputs. It returns a Get with key spans, under the conjuncts the spans
// do not stand for, or f unchanged.
func lookupFilter(f *Filter) Node {
	g, ok := f.Input.(*Get)
	if !ok || g.Spans != nil {
		return f
	}
	conjuncts := scalar.Conjuncts(f.Pred)
	candidates := []IndexRef{{KeyCols: g.KeyCols}}
	candidates = append(candidates, g.Indexes...)
	var best *Get
	var bestRest []scalar.Expr
	bestScore := 0
	for _, idx := range candidates {
		if len(idx.KeyCols) == 0 {
			continue
		}
		spans, keyCols, rest, ok := matchSpans(idx.KeyCols, conjuncts, idx.ID == 0)
		if !ok {
			continue
		}
		// The whole primary key fixed finds at most one row per span;
		// otherwise more columns fixed by equality narrow more, and
		// the primary key wins ties (its spans need no index).
		score := 1 + len(spans[0].Prefix)
		if idx.ID == 0 && len(spans[0].Prefix) == len(idx.KeyCols) {
			score = 1 << 20
		}
		if score <= bestScore {
			continue
		}
		lookup := *g
		lookup.Spans, lookup.Index, lookup.IndexName, lookup.KeyCols = spans, idx.ID, idx.Name, keyCols
		best, bestRest, bestScore = &lookup, rest, score
	}
	switch {
	case best == nil:
		return f
	case len(bestRest) == 0:
		return best
	}
	return &Filter{Input: best, Pred: scalar.NewAnd(bestRest)}
}

// matchSpans finds equality (or IN) conjuncts for a leading part of the
// key and, with ranges, bounds on the key column after it. It returns the
// spans, the key columns they constrain and the conjuncts they do not
// replace.
func matchSpans(keyCols []int, conjuncts []scalar.Expr, ranges bool) ([]KeySpan, []int, []scalar.Expr, bool) {
	used := make([]bool, len(conjuncts))
	var alts [][]scalar.Expr // per constrained key column, its values
	product := 1
	for _, kc := range keyCols {
		j, vals := keyValues(kc, conjuncts, used)
		if j < 0 || product*len(vals) > maxSpans {
			break
		}
		used[j] = true
		alts = append(alts, vals)
		product *= len(vals)
	}
	var lo, hi *KeyBound
	if ranges && len(alts) < len(keyCols) {
		lo, hi = keyBounds(keyCols[len(alts)], conjuncts, used)
	}
	if len(alts) == 0 && lo == nil && hi == nil {
		return nil, nil, nil, false
	}
	n := len(alts)
	if lo != nil || hi != nil {
		n++
	}
	spans := []KeySpan{{}}
	for _, vals := range alts {
		next := make([]KeySpan, 0, len(spans)*len(vals))
		for _, s := range spans {
			for _, v := range vals {
				p := append(append(make([]scalar.Expr, 0, len(s.Prefix)+1), s.Prefix...), v)
				next = append(next, KeySpan{Prefix: p})
			}
		}
		spans = next
	}
	for i := range spans {
		spans[i].Lo, spans[i].Hi = lo, hi
	}
	var rest []scalar.Expr
	for i, c := range conjuncts {
		if !used[i] {
			rest = append(rest, c)
		}
	}
	return spans, keyCols[:n:n], rest, true
}

// keyValues finds an unused conjunct fixing column col: "col = v" gives
// one value, "col IN (v, …)" several. It returns the conjunct's position,
// or -1.
func keyValues(col int, conjuncts []scalar.Expr, used []bool) (int, []scalar.Expr) {
	for j, c := range conjuncts {
		if used[j] {
			continue
		}
		if op, v, ok := keyComparison(col, c); ok && op == "=" {
			return j, []scalar.Expr{v}
		}
	}
	for j, c := range conjuncts {
		if used[j] {
			continue
		}
		in, ok := c.(*scalar.In)
		if !ok || in.Not || !isCol(in.Arg, col) || len(in.List) == 0 {
			continue
		}
		if !keyValue(in.Arg.Type(), in.List...) {
			continue
		}
		return j, in.List
	}
	return -1, nil
}

// keyBounds finds unused conjuncts bounding column col from below and
// from above and marks them used. Further bounds stay filters.
func keyBounds(col int, conjuncts []scalar.Expr, used []bool) (lo, hi *KeyBound) {
	for j, c := range conjuncts {
		if used[j] {
			continue
		}
		op, v, ok := keyComparison(col, c)
		if !ok {
			continue
		}
		switch {
		case (op == ">" || op == ">=") && lo == nil:
			lo = &KeyBound{Value: v, Inclusive: op == ">="}
		case (op == "<" || op == "<=") && hi == nil:
			hi = &KeyBound{Value: v, Inclusive: op == "<="}
		default:
			continue
		}
		used[j] = true
	}
	return lo, hi
}

// flipped is the comparison with its operands swapped.
var flipped = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// keyComparison matches "col op value" (either way round; op is returned
// as if col were on the left) for op one of = < <= > >=.
func keyComparison(col int, e scalar.Expr) (string, scalar.Expr, bool) {
	call, ok := e.(*scalar.Call)
	if !ok || len(call.Args) != 2 {
		return "", nil, false
	}
	op, ok := flipped[call.Fn.Name]
	if !ok {
		return "", nil, false
	}
	a, b := call.Args[0], call.Args[1]
	switch {
	case isCol(a, col):
		op = call.Fn.Name
	case isCol(b, col):
		a, b = b, a
	default:
		return "", nil, false
	}
	if !keyValue(a.Type(), b) {
		return "", nil, false
	}
	return op, b, true
}

func isCol(e scalar.Expr, col int) bool {
	c, ok := e.(*scalar.ColRef)
	return ok && c.Idx == col
}

// keyValue reports whether values can stand for a key column of type t
// in a span: they read no columns, are evaluated once per statement, and
// compare with the column by the key encoding's order, which holds when
// they are of the column's family (modifiers aside) or, being integers,
// of another width.
func keyValue(t types.Type, values ...scalar.Expr) bool {
	for _, v := range values {
		vt := v.Type()
		if vt.Family != t.Family && !(vt.Family.IsInteger() && t.Family.IsInteger()) {
			return false
		}
		if len(scalar.ColumnsUsed(v)) > 0 || scalar.MaxVolatility(v) == scalar.Volatile {
			return false
		}
	}
	return true
}
