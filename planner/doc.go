// Package planner holds streamdb's logical plans: relational algebra over
// typed scalar expressions (package planner/scalar), the optimizer
// pipeline (optimize.go): the logical rewrites that make plans efficient
// to maintain incrementally (subquery decorrelation, predicate pushdown,
// equi-join key extraction, join ordering), then Physical, which decides
// for how a plan runs (a maintained view or a one-tick read) the
// operators that run it (lookups, monotonic top-k, join fusions); EXPLAIN,
// which shows a plan after both; and the lowering of a plan onto a
// dataflow graph, which obeys Physical's decisions and makes none.
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
