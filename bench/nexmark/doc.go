// Command nexmark is streamdb's benchmark harness (make bench): the
// Nexmark queries q0–q9, q15, q17–q20 under bench/nexmark/*.sql, each run
// as a materialized view over the NEXMARK load generator, measured against
// PostgreSQL 15 doing what a user would do instead and, for q0–q2,
// against a hand-written Go loop. It writes bench/results/latest.json,
// latest.md (the table, the targets of issue 5 and how each number was
// measured) and latest.png (throughput per query), with a progress bar on
// stderr while it runs.
//
// # What one query costs
//
// For every query the harness runs, in order:
//
//  1. streamdb at saturation: a fresh bin/streamdb process and data
//     directory (bench/internal/server), the NEXMARK source with MAX EVENTS
//     n and no rate, then the query as a materialized view. The run ends
//     when the source's progress relation shows all n events: a tick
//     commits a source batch, the view's update and the new progress
//     together, and every read sees one tick, so that is the moment the
//     view reflects every event. Events per second use the wall clock;
//     events per CPU-second use the server's user+system time from /proc,
//     which the harness's own work does not touch. The view is then checked
//     against the same query run ad hoc, the engine's one-tick
//     recomputation, as multisets of rows in text form.
//  2. streamdb paced, for freshness: another fresh server with the source
//     at half the measured saturation rate. Event k of a paced source is
//     generated k/rate seconds after the source starts; a poller reads the
//     progress relation every 5ms and an event is visible from the first
//     poll that returns an offset beyond it (freshness.go has the details
//     and the bounds).
//  3. PostgreSQL 15 (internal/pgtest, one cluster per run): the same
//     events, COPYed in batches of 10,000 with REFRESH MATERIALIZED VIEW
//     after each, and its final view compared with streamdb's.
//  4. For q0–q2, a Go loop over loadgen.NexmarkEvents computing the same
//     rows: the physical limit.
//
// A query that fails (an unsupported feature, a timeout) is recorded with
// its error and the run goes on. The default of 100,000 events per query
// takes about five minutes on the project's 2-core machine; BENCH_EVENTS
// (or -events) scales it and BENCH_QUERIES (or -queries) picks queries.
//
// # The queries
//
// Each .sql file is one SELECT, the standard Nexmark query in the
// PostgreSQL dialect that streamdb and PostgreSQL both accept, preceded by
// a comment saying what it computes and every change from the Flink and
// RisingWave versions (no TUMBLE/HOP table functions: date_bin and a
// cross join instead; deterministic tie-breaks wherever ROW_NUMBER picks
// a winner, so a view can be compared with a recomputation).
package main
