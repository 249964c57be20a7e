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
// The rewrites keep PostgreSQL's answer, errors included. Constants are
// folded first, as PostgreSQL's planner folds them (const_quals.go): a
// constant's error fails the statement, a strict call of NULL is NULL
// without evaluating its other arguments, and a filter no row passes
// reads nothing. A subquery is computed only for the rows that reach it
// (subquery_guard.go), and pushdown keeps a filter's own conjuncts ahead
// of those pushed into it, so that no rewrite evaluates an expression on
// a row PostgreSQL would not.
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
