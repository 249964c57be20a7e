package planner

import (
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner/scalar"
)

// MaxRelations is PostgreSQL's limit on the relations one query reads,
// counted once per reference (its range table entries).
const MaxRelations = 65535

// checkSize refuses a plan that reads more than MaxRelations relations
// once every shared subplan is counted at each of its references. A view
// is bound once and shared by every query that reads it, so a chain of
// views that each read the one before twice is a small graph of plans
// but an exponential tree, 2^20 reads for twenty views, which the rewrite
// rules would copy out until the server ran out of memory. checkSize
// counts the tree in time proportional to the graph, with PostgreSQL's
// error.
func checkSize(n Node) error {
	memo := map[Node]int{}
	if relations(n, memo) > MaxRelations {
		return pgerr.New(pgerr.ProgramLimitExceeded, "too many range table entries")
	}
	return nil
}

// relations counts the relations (tables, views, VALUES lists) read below
// n, subqueries in its expressions included, saturating past
// MaxRelations.
func relations(n Node, memo map[Node]int) int {
	if c, ok := memo[n]; ok {
		return c
	}
	c := 0
	switch n.(type) {
	case *Get, *Values:
		c = 1
	}
	for _, in := range n.Inputs() {
		c = min(c+relations(in, memo), MaxRelations+1)
	}
	for _, e := range NodeExprs(n) {
		scalar.Walk(e, func(x scalar.Expr) bool {
			if s, ok := x.(*Subquery); ok {
				c = min(c+relations(s.Plan, memo), MaxRelations+1)
			}
			return true
		})
	}
	memo[n] = c
	return c
}
