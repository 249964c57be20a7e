package planner

import (
	"github.com/streamdb/streamdb/planner/scalar"
)

// orderJoins reorders trees of inner joins so that each join adds an input
// connected to the ones before it by a join condition, instead of
// following the FROM clause's order: FROM a, b, c WHERE a.x = c.x AND
// c.y = b.y then joins a with c first rather than forming the cross
// product a × b. There are no statistics, so the greedy order starts from
// an input with its own filter (likely small) and prefers, among connected
// inputs, the one written first. A final projection restores the original
// column order.
func orderJoins(n Node) Node {
	if j, ok := n.(*Join); ok && j.Kind == InnerJoin {
		var leaves []Node
		var conds []scalar.Expr
		flattenInner(j, &leaves, &conds, 0)
		if len(leaves) >= 3 {
			for i, l := range leaves {
				leaves[i] = orderJoins(l)
			}
			return reorder(leaves, conds, n.Columns())
		}
	}
	ins := n.Inputs()
	if len(ins) == 0 {
		return n
	}
	newIns := make([]Node, len(ins))
	changed := false
	for i, in := range ins {
		newIns[i] = orderJoins(in)
		changed = changed || newIns[i] != in
	}
	if !changed {
		return n
	}
	return n.withInputs(newIns)
}

// flattenInner collects the inputs and conditions of a tree of inner joins;
// conditions are rewritten over the concatenation of all inputs.
func flattenInner(n Node, leaves *[]Node, conds *[]scalar.Expr, offset int) int {
	j, ok := n.(*Join)
	if !ok || j.Kind != InnerJoin {
		*leaves = append(*leaves, n)
		return len(n.Columns())
	}
	lw := flattenInner(j.Left, leaves, conds, offset)
	rw := flattenInner(j.Right, leaves, conds, offset+lw)
	if j.On != nil {
		for _, c := range scalar.Conjuncts(j.On) {
			if isTrue(c) {
				continue
			}
			*conds = append(*conds, scalar.ShiftColumns(c, offset))
		}
	}
	return lw + rw
}

func reorder(leaves []Node, conds []scalar.Expr, cols []Column) Node {
	// start[i] is leaf i's first column in the original layout.
	start := make([]int, len(leaves)+1)
	for i, l := range leaves {
		start[i+1] = start[i] + len(l.Columns())
	}
	leafOf := func(col int) int {
		for i := range leaves {
			if col < start[i+1] {
				return i
			}
		}
		return len(leaves) - 1
	}
	condLeaves := make([][]int, len(conds))
	for i, c := range conds {
		seen := map[int]bool{}
		for _, col := range scalar.ColumnsUsed(c) {
			l := leafOf(col)
			if !seen[l] {
				seen[l] = true
				condLeaves[i] = append(condLeaves[i], l)
			}
		}
	}
	joined := make([]bool, len(leaves))
	var order []int
	first := 0
	for i, l := range leaves {
		if _, ok := l.(*Filter); ok {
			first = i
			break
		}
	}
	order = append(order, first)
	joined[first] = true
	for len(order) < len(leaves) {
		next := -1
		for cand := range leaves {
			if joined[cand] {
				continue
			}
			if connected(cand, joined, condLeaves) {
				next = cand
				break
			}
		}
		if next < 0 {
			for cand := range leaves {
				if !joined[cand] {
					next = cand
					break
				}
			}
		}
		order = append(order, next)
		joined[next] = true
	}
	// newPos maps an original column position to the new layout.
	newPos := make([]int, start[len(leaves)])
	pos := 0
	for _, l := range order {
		for c := start[l]; c < start[l+1]; c++ {
			newPos[c] = pos
			pos++
		}
	}
	used := make([]bool, len(conds))
	inSet := make([]bool, len(leaves))
	var tree Node
	for _, l := range order {
		inSet[l] = true
		if tree == nil {
			tree = leaves[l]
			continue
		}
		var on []scalar.Expr
		for i, c := range conds {
			if used[i] || !allIn(condLeaves[i], inSet) {
				continue
			}
			used[i] = true
			on = append(on, scalar.RemapColumns(c, newPos))
		}
		var cond scalar.Expr = trueExpr()
		if len(on) > 0 {
			cond = scalar.NewAnd(on)
		}
		tree = &Join{Kind: InnerJoin, Left: tree, Right: leaves[l], On: cond}
	}
	exprs := make([]scalar.Expr, len(cols))
	for i, c := range cols {
		exprs[i] = &scalar.ColRef{Idx: newPos[i], Typ: c.Type}
	}
	return &Project{Input: tree, Exprs: exprs, Cols: cols}
}

func connected(cand int, joined []bool, condLeaves [][]int) bool {
	for _, ls := range condLeaves {
		hasCand, hasJoined := false, false
		for _, l := range ls {
			if l == cand {
				hasCand = true
			} else if joined[l] {
				hasJoined = true
			}
		}
		if hasCand && hasJoined {
			return true
		}
	}
	return false
}

func allIn(ls []int, set []bool) bool {
	for _, l := range ls {
		if !set[l] {
			return false
		}
	}
	return true
}
