package planner

import (
	"slices"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// limitWindows puts a TopK below each Window whose row_number() a filter
// bounds: WHERE rn <= k (or rn < k+1, rn = k) over row_number() OVER
// (PARTITION BY p ORDER BY o) keeps only rows among the first k of their
// partition in that order, and the numbers of those rows depend on no
// other row. So the Window may number the output of a TopK keeping the
// first k rows of each partition (group p, order o, limit k) instead of
// its whole input: the top-N-per-group idiom, Nexmark q6 and q9, then
// keeps k rows per group in the Window, and the TopK can keep k rows
// per group too when its input is append-only (see lowerTopK). The
// filter stays, so the rewrite never changes the result.
//
// Every call of the Window must be one whose value for a row of the
// first k depends only on the rows before it: row_number, rank and
// dense_rank. The window's ORDER BY must be non-empty and of types
// whose sort key orders exactly as the comparator does: then the TopK
// and the Window break ties alike (sort key, then the row's key
// encoding), so the TopK keeps exactly the rows the Window numbers 1 to
// k.
func limitWindows(n Node) Node {
	return RewriteNodes(n, func(n Node) Node {
		f, ok := n.(*Filter)
		if !ok {
			return n
		}
		w, ok := f.Input.(*Window)
		if !ok || !windowLimitable(w) {
			return n
		}
		width := len(w.Input.Columns())
		limit := int64(-1)
		for i, c := range w.Calls {
			if c.Func.Kind != scalar.WinRowNumber {
				continue
			}
			for _, p := range scalar.Conjuncts(f.Pred) {
				if k, ok := rowNumberBound(width+i, p); ok && (limit < 0 || k < limit) {
					limit = k
				}
			}
		}
		if limit < 0 {
			return n
		}
		top := &TopK{Input: w.Input, Group: w.PartitionBy, Order: w.Order, Limit: scalar.NewConst(types.NewInt8(limit), types.TypeInt8)}
		lw := *w
		lw.Input = top
		return &Filter{Input: &lw, Pred: f.Pred}
	})
}

// windowLimitable reports whether a Window's calls and order allow a
// TopK below it (see limitWindows), and that it has none yet.
func windowLimitable(w *Window) bool {
	if _, ok := w.Input.(*TopK); ok || len(w.Order) == 0 {
		return false
	}
	for _, c := range w.Calls {
		if c.Func == nil {
			return false
		}
		switch c.Func.Kind {
		case scalar.WinRowNumber, scalar.WinRank, scalar.WinDenseRank:
		default:
			return false
		}
	}
	for _, k := range w.Order {
		if _, ok := k.Expr.(*scalar.ColRef); !ok || !dataflow.SortKeyExact(k.Expr.Type().Family) {
			return false
		}
	}
	return true
}

// rowNumberBound returns k when p keeps only rows whose column col (a
// row number, from 1) is at most k: col <= c, col < c, col = c for an
// integer constant c. A bound below 1 keeps no row: k is then 0.
func rowNumberBound(col int, p scalar.Expr) (int64, bool) {
	op, v, ok := keyComparison(col, p)
	if !ok {
		return 0, false
	}
	c, ok := v.(*scalar.Const)
	if !ok || c.Val.IsNull() || !c.Typ.Family.IsInteger() {
		return 0, false
	}
	k := c.Val.Int()
	switch op {
	case "<=", "=":
	case "<":
		k = max(k, 1) - 1
	default:
		return 0, false
	}
	return max(k, 0), true
}

// numbered reports whether a Window is row_number() alone over the
// top-k limitWindows put below it, in the same groups and order, which
// it alone reads, and whose input is append-only: the top-k, a
// MonotonicTopK, then numbers its window's rows itself
// (dataflow.TopKSpec.Number), in the order the Window would, and the
// Window's state, a second copy of the top-k's rows, is not kept. The
// top-k is lowered directly, not through Lower, so that no equal subplan
// reuses its numbered output.
func (p *physical) numbered(w *Window) bool {
	t, ok := w.Input.(*TopK)
	if !ok || !t.Monotonic || p.count[t] != 1 || t.Limit == nil || t.Offset != nil || len(w.Calls) != 1 || len(w.Cols) != 1 {
		return false
	}
	if c := w.Calls[0]; c.Func == nil || c.Func.Kind != scalar.WinRowNumber || w.Cols[0].Type != types.TypeInt8 {
		return false
	}
	if !slices.Equal(t.Group, w.PartitionBy) || len(t.Order) != len(w.Order) {
		return false
	}
	for i, k := range t.Order {
		a, okA := k.Expr.(*scalar.ColRef)
		b, okB := w.Order[i].Expr.(*scalar.ColRef)
		if !okA || !okB || a.Idx != b.Idx || k.Desc != w.Order[i].Desc || k.NullsFirst != w.Order[i].NullsFirst ||
			!dataflow.SortKeyExact(a.Typ.Family) {
			return false
		}
	}
	return true
}
