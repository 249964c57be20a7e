package planner

// appendOnly reports whether the dataflow n lowers to only ever inserts
// rows: every delta it produces carries positive weights, whatever its
// inputs do over time. Operators over such a collection may forget what
// only a retraction would need (MonotonicTopK keeps each group's first
// rows only).
//
// A Get is append-only when its object is (Get.AppendOnly: a source's
// append-only output) or when the graph is one-tick (oneTick: an ad hoc
// query reads its snapshot as insertions in its only tick); constant rows
// are inserted once. The linear operators keep the property: a filter,
// projection or flat-map turns an insertion into insertions, and so does
// an inner join (its delta ΔA⋈B + A⋈ΔB + ΔA⋈ΔB is a sum of products of
// positive weights) and a UNION ALL. Everything else may retract a row
// it emitted: an aggregate replaces a group's row, outer joins retract
// the NULL-padded row when a match arrives, a top-k or window evicts or
// renumbers, EXCEPT and anti-joins subtract. (A filter whose predicate
// changes with time, a temporal filter, retracts too: a maintained
// plan's filter that compares mz_now() is not append-only.)
func appendOnly(n Node, oneTick bool) bool {
	switch x := n.(type) {
	case *Get:
		return oneTick || x.AppendOnly
	case *Values:
		return true
	case *Filter:
		return !x.Temporal && appendOnly(x.Input, oneTick)
	case *Project:
		return appendOnly(x.Input, oneTick)
	case *FlatMap:
		return appendOnly(x.Input, oneTick)
	case *Join:
		return x.Kind == InnerJoin && appendOnly(x.Left, oneTick) && appendOnly(x.Right, oneTick)
	case *SetOp:
		return x.Kind == Union && x.All && appendOnly(x.Left, oneTick) && appendOnly(x.Right, oneTick)
	}
	return false
}
