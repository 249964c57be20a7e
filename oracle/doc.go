// Package oracle is streamdb's defining property test: incremental equals
// batch. It generates random tables, random materialized views over them
// and random changes, and after every tick checks that each view holds
// exactly what its query returns when run from scratch. Since an ad hoc
// query runs the same operators as a one-tick dataflow over a snapshot,
// a disagreement means an operator's incremental contract is broken: its
// state after many small deltas differs from its state after one big one.
//
// # What a run does
//
// A Scenario is tables, views and steps. Run creates the tables, then
// every view, before any data exists, so that all data reaches the views
// as changes. Each step is a tick (one committed transaction of INSERT,
// UPDATE and DELETE statements) or a restart of the server on its data
// directory, after which the views must come back, rehydrated from the
// durable tables, with the same contents. After the views are created and
// after every step, each view is read (SELECT * FROM v) and its query run
// ad hoc; the two must be equal as multisets of rows. An internal error
// (XX000) from any statement, a view's creation, a tick, a read or an
// ad hoc query, is a failure of its own: only a bug raises one. Numbers compare by
// value with a relative tolerance (incremental sums may add in another
// order), and equal numerics written with different scales count as equal
// (see normalizeScale). A view whose expression fails must fail when
// read, with the query's SQLSTATE.
//
// A real PostgreSQL 15 runs the same statements as a third opinion when
// one is available. Its disagreements are reported, not failures:
// PostgreSQL has features streamdb lacks and the reverse. A view refused
// with SQLSTATE 0A000 is a feature not implemented yet: counted by
// message, never a failure.
//
// # Generating
//
// Everything a scenario holds is drawn from its seed up front (schema,
// views and changes from three streams), so a seed reproduces a run; the
// script of a scenario is plain SQL that psql runs as it is, and that
// ParseScript reads back. The schema has two to four tables over a pool
// of column names with fixed types (int, bigint, numeric, text, bool,
// date, timestamp), so that joins find common columns; about half the
// tables have a primary key. The change generator models every table's
// contents: updates and deletes mostly hit existing rows, tables without
// key receive exact duplicates, keys are updated without ever clashing,
// and tables are emptied now and then. Scenarios come in two modes: many
// ticks of one to three statements, or a few ticks of many.
//
// The query generator covers the relational surface of issue 3: joins of
// every kind with equi and non-equi conditions, USING and NATURAL,
// self-joins, LATERAL, IN and NOT IN with NULLs, EXISTS, quantified and
// scalar subqueries (mostly correlated), CTEs, derived tables, VALUES,
// grouping with every aggregate (ordered ones included) and FILTER,
// DISTINCT, DISTINCT ON, set operations with and without ALL, ORDER BY …
// LIMIT/OFFSET, per-group top-k through row_number and LATERAL, and window
// functions with ROWS, RANGE (with offsets over numbers, dates and
// timestamps) and GROUPS frames, EXCLUDE and FILTER; and from issue 28
// row values (ROW(…), (a, b), a FROM item's whole row, jsonb_agg of
// records) and WITH RECURSIVE in forms that end whatever the data (a
// closure with UNION, a walk of bounded depth, a counter bounded by a
// subquery). It tracks types, so every query
// is valid, and it keeps every query's answer deterministic: nothing can
// raise an error, and whatever picks rows by position (LIMIT, DISTINCT ON,
// row_number, lag, ordered aggregates) sorts on a total order that leaves
// only identical rows tied. Most views are small, so that a failure points
// at its cause and one unsupported construct does not hide the others.
//
// # Failures
//
// Minimize shrinks a failing scenario to the failing view and the fewest
// steps, statements and rows that still fail. Minimised scripts are
// committed in testdata/regress and replayed by TestRegressions; a script
// of an open bug is marked "-- known failure: <bug>" and skipped, naming
// the bug, until it is fixed. The failures the open bugs cause in
// TestOracle's fixed seeds are listed in testdata/known.txt.
//
// # Running
//
//	go test ./oracle                                  fixed seeds, both modes, regressions
//	go test ./oracle -run 'TestOracle$' -seed 42       one seed (-oracle.mode small|big)
//	go test ./oracle -run Soak -oracle.duration 10m    random seeds for ten minutes
//	go test ./oracle -run Regressions -oracle.known    also the scripts of open bugs
//
// The end-to-end tests start streamdb in process (internal/testserver),
// which links pg_query, so they build only with cgo; the generator,
// scripts, comparison and minimiser build and test without it.
package oracle
