package planner

import (
	"reflect"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/planner/scalar"
)

// Lowering shares equal subplans: a CTE referenced twice (Nexmark q5's
// windowed counts, joined with their own maximum) reaches the lowering as
// two copies, since the rewrites rebuild each path of the plan, and
// lowering each would compute the same collection twice. A subplan that
// is structurally identical to one already lowered, and that calls no
// volatile function, reuses its operators' output if it holds every
// column this one's consumers read (see lower_need.go); PostgreSQL likewise
// evaluates a CTE referenced more than once only once.

// lowered is one subplan lowered so far.
type lowered struct {
	n Node
	d dataflow.Node
}

// shared returns the dataflow node of a lowered subplan equal to n.
func (lc *LowerContext) shared(n Node) (dataflow.Node, bool) {
	switch n.(type) {
	case *Get, *Values:
		// Leaves are cheap, or deduplicated by the caller's Get.
		return dataflow.Node{}, false
	}
	t := reflect.TypeOf(n)
	for _, l := range lc.lowered {
		if reflect.TypeOf(l.n) == t && lc.need.covers(l.n, n) && reflect.DeepEqual(l.n, n) && deterministic(n) {
			return l.d, true
		}
	}
	return dataflow.Node{}, false
}

// deterministic reports whether a subplan calls no volatile function, so
// that two evaluations of it yield the same rows.
func deterministic(n Node) bool {
	ok := true
	Walk(n, func(x Node) bool {
		for _, e := range NodeExprs(x) {
			if scalar.MaxVolatility(e) == scalar.Volatile {
				ok = false
			}
		}
		return ok
	})
	return ok
}
