// Package planner holds streamdb's logical plans: relational algebra over
// typed scalar expressions (package planner/scalar), the rewrites that make
// plans efficient to maintain incrementally (subquery decorrelation,
// predicate pushdown, equi-join key extraction), EXPLAIN, and the lowering of
// a plan onto a dataflow graph.
//
// The planner knows nothing of SQL syntax: package sql binds statements into
// plans and hands them here. Every rewrite is a pure function from plan to
// plan with no catalog access and no I/O, so plans can be golden-tested as
// text.
//
// A plan describes a multiset of rows. Ordering exists only at the top of a
// query (Query.Order) or inside TopK, which keeps the first rows of each
// group; this is what lets one plan serve both a one-tick batch read and a
// maintained materialized view.
package planner
