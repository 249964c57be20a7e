// Package sql is streamdb's SQL front end and coordinator: it parses
// statements (pg_query for PostgreSQL's grammar), binds them against the
// catalog into logical plans, executes them, and runs the tick loop that
// turns committed writes into durable state and maintained views.
//
// Concurrency model. One goroutine, the coordinator, owns every mutable
// piece of engine state: table contents, the dataflow graphs of
// materialized views and indexes, the catalog, and the Pebble store. It
// gathers pending writes and DDL into a tick, applies them, commits one
// Pebble batch, steps every dataflow, and then publishes an immutable
// Snapshot (catalog + the contents of every object as of the tick's
// timestamp) through an atomic pointer. Sessions never lock engine state:
// they bind against the snapshot's catalog and read its copy-on-write
// collections, so a long ad-hoc query never stalls a tick and every read
// sees one timestamp across all objects. A write returns to the client only
// after the tick that contains it has been published, which gives
// read-your-writes in every view.
//
// Ad-hoc SELECTs run through the same dataflow operators as materialized
// views, as a one-tick dataflow over the snapshot (batch is the special case
// of stream), so incremental and batch results cannot drift apart. Their
// rows stream: the dataflow's final step runs in a coroutine that each
// Next of the result resumes for a chunk (query_result.go), reading
// tables and views lazily from the immutable snapshot. A statement's
// execution (stmt_run.go) lives until its result is closed, under the
// memory guard (memory_guard.go), which cancels the statement holding the
// memory before the heap reaches its limit, and statement_timeout.
package sql
