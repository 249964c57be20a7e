package planner

// Optimize runs the rewrite pipeline over a relation: constant folding
// first (strict calls of NULL, filters no row passes), then decorrelation
// (every subquery and Apply becomes joins), then predicate pushdown (which
// turns the cross joins decorrelation leaves into equi-joins), then join
// ordering (so that no join forms a needless cross product), and last
// the top-k below windows whose row numbers a filter bounds (which
// needs the filters pushed onto the windows).
func Optimize(n Node) (Node, error) {
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
