// Command refresh is issue 3's comparison with what a PostgreSQL user
// would do instead of an incrementally maintained view: a 1,000-row change
// under `SELECT k, count(*), sum(v) FROM r GROUP BY k` (1,000 groups) over
// 1,000,000 rows, reflected in the view by streamdb's update of it and by
// PostgreSQL 15's REFRESH MATERIALIZED VIEW of the same view on the same
// data, both measured in one run. Target: streamdb's update ≥ 1,000×
// faster than REFRESH. It also times each change until a SELECT on the
// view shows it, on both servers.
//
// Run it from the repository root with `go run ./bench/refresh` after
// make build; it writes bench/results/refresh.json and refresh.md.
//
// # What is timed
//
// Each round makes four 1,000-row changes and a one-row change on both
// servers, one after the other: an INSERT of 1,000 new rows (one multi-row VALUES statement), an
// UPDATE of those rows by a primary-key range, a DELETE of them by the
// same range, and an INSERT … SELECT of the next 1,000 ids from
// generate_series, which makes the same kind of change as the first with
// a statement of constant size, so parsing does not hide the maintenance;
// then a one-row INSERT, the floor under every change: one durable commit
// (a synced write on both servers) and one read.
// A change is timed from sending it to the return of the first SELECT on
// the view whose totals (sum of the counts, sum of the sums) equal the
// values the harness expects after the change. For streamdb that is the statement's commit
// (every view is current when COMMIT returns) plus one read; for
// PostgreSQL it is the statement, REFRESH MATERIALIZED VIEW and one read.
// The report gives the median of each kind over the rounds and, to show
// where the time goes, the median of the change statement alone and of
// PostgreSQL's REFRESH alone.
//
// The target compares the two ways of reflecting the change in the view
// apart from writing the change itself, which both servers must make
// durable first (a synced commit of a millisecond or more here, which
// alone keeps the end-to-end ratio below a hundred): PostgreSQL's REFRESH
// against streamdb's update of the view, as the engine times the view's
// maintenance step of the change's tick (last_tick_us of SHOW MATERIALIZED
// VIEWS).
package main
