package planner

// The optimizer pipeline has two stages. Optimize rewrites the logical
// plan, whatever runs it; a view's plan is kept in this form, since it is
// also read inline by other queries. Physical then decides, for how the
// plan runs (Mode), the operators that run it: lookups, monotonic top-k
// and aggregates, and the fusions of a join with its consumer. Plan runs
// both, for a query about to run; the engine runs Physical on a
// materialized view's plan when it builds the view's dataflow. EXPLAIN
// shows a plan after both stages.

// Plan optimises a query to run in mode: Optimize, then Physical.
func Plan(q *Query, mode Mode) (*Query, error) {
	q, err := OptimizeQuery(q)
	if err != nil {
		return nil, err
	}
	return PhysicalQuery(q, mode), nil
}

// Optimize runs the logical rewrites over a relation: constant folding
// first (strict calls of NULL, filters no row passes), then decorrelation
// (every subquery and Apply becomes joins), then predicate pushdown (which
// turns the cross joins decorrelation leaves into equi-joins), then join
// ordering (so that no join forms a needless cross product), and last
// the top-k below windows whose row numbers a filter bounds (which
// needs the filters pushed onto the windows).
func Optimize(n Node) (Node, error) {
	if err := checkSize(n); err != nil {
		return nil, err
	}
	n, err := simplifyConstants(n)
	if err != nil {
		return nil, err
	}
	if n, err = Decorrelate(n); err != nil {
		return nil, err
	}
	return limitWindows(orderJoins(pushFilters(n))), nil
}

// Decorrelate removes every subquery and Apply, the first stage of
// Optimize (EXPLAIN DECORRELATED PLAN shows its result).
func Decorrelate(n Node) (Node, error) {
	n, err := subqueriesToApply(n)
	if err != nil {
		return nil, err
	}
	return removeApplies(n)
}

// OptimizeQuery optimises a query's relation.
func OptimizeQuery(q *Query) (*Query, error) {
	root, err := Optimize(q.Root)
	if err != nil {
		return nil, err
	}
	c := *q
	c.Root = root
	return &c, nil
}
