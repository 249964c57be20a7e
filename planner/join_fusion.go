package planner

import (
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/planner/scalar"
)

// An inner join's output rows are built once per match, and the
// operator right above often rebuilds or drops them at once: a
// projection of plain columns copies the columns it keeps into a new row
// (Nexmark q20's column list over its join), a monotonic top-k drops
// every match that does not beat its group's window (q6, q9; see
// topk_gate.go). When such a consumer alone reads the join, the join
// builds the projected row itself, or asks the top-k's gate before
// building one.
//
// The join's residual is then tested before the row is built (see
// join_prefilter.go), so it must be one that cannot fail; and the join
// is lowered directly, not through Lower, so that no equal subplan
// elsewhere reuses its output, which only its one consumer can read.

// joinFusion is what the consumer of a join takes over: the gate of a
// top-k, or the columns of a projection (output row positions, left
// then right), or neither.
type joinFusion struct {
	gate    *joinGate
	project []int
}

// fusable reports whether j is an inner join that one consumer alone
// reads, with a residual that cannot fail.
func (p *physical) fusable(j *Join) bool {
	if j.Kind != InnerJoin || p.count[j] != 1 {
		return false
	}
	if _, _, constant := constantJoin(j); constant {
		return false
	}
	_, rest := splitJoinCondition(j.On, len(j.Left.Columns()), j.NullSafe)
	return allCannotFail(rest)
}

// lowerJoinProject lowers a projection of plain columns that Physical
// fused with the join below it as the join building the projected rows.
func lowerJoinProject(lc *LowerContext, p *Project) (dataflow.Node, error) {
	cols, _ := columnIndexes(p.Exprs)
	return lowerJoin(lc, p.Input.(*Join), joinFusion{project: cols})
}

// columnIndexes returns the positions of exprs when every one is a plain
// column.
func columnIndexes(exprs []scalar.Expr) ([]int, bool) {
	cols := make([]int, len(exprs))
	for i, e := range exprs {
		c, ok := e.(*scalar.ColRef)
		if !ok {
			return nil, false
		}
		cols[i] = c.Idx
	}
	return cols, true
}

// countRefs counts the references to each node of the plan under root
// (root itself has none): a node reached by two paths has two.
func countRefs(root Node) map[Node]int {
	refs := map[Node]int{}
	seen := map[Node]bool{}
	var visit func(n Node)
	visit = func(n Node) {
		if seen[n] {
			return
		}
		seen[n] = true
		for _, in := range n.Inputs() {
			refs[in]++
			visit(in)
		}
	}
	visit(root)
	return refs
}
