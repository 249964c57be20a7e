package planner

import "github.com/streamdb/streamdb/planner/scalar"

// Lowering knows which columns of each subplan its consumers read, so that
// an inner join can build its output rows from those columns alone: a
// join's output is often the largest collection of a dataflow (every
// match, each the width of both inputs), and copying columns that nothing
// reads (a bid's url and extra on the way to a count per auction) was most
// of its cost. The rows keep their width, so no expression is re-targeted;
// the columns nothing reads are left NULL.

// neededColumns maps each node of a plan to the columns its consumers
// read; a node missing from it is read whole.
type neededColumns map[Node]scalar.ColSet

// computeNeeded fills in what root's subplans need; root is read whole.
func computeNeeded(root Node) neededColumns {
	need := neededColumns{}
	need.add(root, allColumns(root))
	return need
}

// allColumns is every column of n.
func allColumns(n Node) scalar.ColSet {
	var s scalar.ColSet
	for i := range n.Columns() {
		s.Add(i)
	}
	return s
}

// add records that cols of n are read and passes what n reads itself on
// to its inputs. The sets only grow, so a node reached by several paths
// ends with the union of its consumers' needs.
func (need neededColumns) add(n Node, cols scalar.ColSet) {
	cur, seen := need[n]
	merged := union(cur, cols)
	if seen && merged.Len() == cur.Len() {
		return
	}
	need[n] = merged
	switch x := n.(type) {
	case *Filter:
		s := union(merged, exprColumns(x.Pred))
		need.add(x.Input, s)
	case *Project:
		var s scalar.ColSet
		for _, e := range x.Exprs {
			s = union(s, exprColumns(e))
		}
		need.add(x.Input, s)
	case *Aggregate:
		var s scalar.ColSet
		for _, e := range NodeExprs(x) {
			s = union(s, exprColumns(e))
		}
		need.add(x.Input, s)
	case *TopK:
		// A top-k passes rows through: it reads what its consumers
		// do, its groups and its ordering.
		var own scalar.ColSet
		for _, g := range x.Group {
			own.Add(g)
		}
		for _, e := range NodeExprs(x) {
			own = union(own, exprColumns(e))
		}
		need.add(x.Input, union(merged, own))
	case *Window:
		// A window appends its calls' results to the input row: it
		// reads the input columns its consumers do, its partitions,
		// its ordering and its calls' arguments.
		w := len(x.Input.Columns())
		var s scalar.ColSet
		for _, c := range merged.Ordered() {
			if c < w {
				s.Add(c)
			}
		}
		for _, p := range x.PartitionBy {
			s.Add(p)
		}
		for _, e := range NodeExprs(x) {
			s = union(s, exprColumns(e))
		}
		need.add(x.Input, s)
	case *Join:
		if x.Kind != InnerJoin {
			need.addAll(x)
			return
		}
		// The output rows hold what the consumers and the condition
		// (its residual is evaluated on them) read.
		s := union(merged, exprColumns(x.On))
		lw := len(x.Left.Columns())
		var l, r scalar.ColSet
		for _, c := range s.Ordered() {
			if c < lw {
				l.Add(c)
			} else {
				r.Add(c - lw)
			}
		}
		need.add(x.Left, l)
		need.add(x.Right, r)
	default:
		need.addAll(n)
	}
}

// addAll records that n reads its inputs whole.
func (need neededColumns) addAll(n Node) {
	for _, in := range n.Inputs() {
		need.add(in, allColumns(in))
	}
}

// joinOutput returns the columns an inner join's output rows must hold,
// as positions of the left and the right row, or ok false when all of
// them are read.
func (need neededColumns) joinOutput(j *Join, lw, rw int) (left, right []int, ok bool) {
	cols, known := need[j]
	if !known {
		return nil, nil, false
	}
	cols = union(cols, exprColumns(j.On))
	if cols.Len() == lw+rw {
		return nil, nil, false
	}
	for _, c := range cols.Ordered() {
		if c < lw {
			left = append(left, c)
		} else {
			right = append(right, c-lw)
		}
	}
	return left, right, true
}

// covers reports whether the columns needed of a include those of b, so
// that a lowering of a serves b.
func (need neededColumns) covers(a, b Node) bool {
	ca, okA := need[a]
	cb, okB := need[b]
	switch {
	case !okA:
		return true // a was lowered whole
	case !okB:
		return false
	}
	return union(ca, cb).Len() == ca.Len()
}

func union(a, b scalar.ColSet) scalar.ColSet {
	var s scalar.ColSet
	for _, c := range a.Ordered() {
		s.Add(c)
	}
	for _, c := range b.Ordered() {
		s.Add(c)
	}
	return s
}

// exprColumns is scalar.Columns of an optional expression.
func exprColumns(e scalar.Expr) scalar.ColSet {
	if e == nil {
		return scalar.ColSet{}
	}
	return scalar.Columns(e)
}
