// Package sql is streamdb's SQL front end. It parses statements
// (pg_query for PostgreSQL's grammar, sql/parser for streamdb's own
// statements such as CREATE SOURCE), binds them against a catalog
// snapshot into logical plans (names and types resolved), and runs them
// for sessions: it implements the wire server's session interface
// (pgwire.Engine) with Frontend. It is the only package that links cgo.
//
// Statements run on the engine (package engine): a query is planned for
// one tick (planner.Plan with planner.OneTick) and runs as a one-tick
// dataflow over the engine's latest Snapshot, through the same operators
// as materialized views (batch is the special case of stream), so that
// incremental and batch results cannot drift apart. A transaction
// buffers its writes over the snapshot it read (txn.go) and hands them to
// engine.Commit, which validates them against the current contents and
// applies them in the next tick. DDL binds the statement into catalog
// objects and runs them through engine.RunDDL. SUBSCRIBE reads an
// engine.Subscription and shapes its ticks as Materialize does
// (subscribe_shape.go), streamed (a pgwire.LiveResult, also as COPY data)
// or through a cursor that FETCH reads with a timeout
// (cursor_subscribe.go); AS OF a past time inlines materialized views,
// whose history the engine does not keep. CREATE SINK builds a
// sinks/kafka sink from the statement and hands it to DDL.CreateSink
// (sink_bind.go).
//
// Ad-hoc queries' rows stream: the one-tick dataflow's final step runs
// in a coroutine that each Next of the result resumes for a chunk
// (query_result.go), reading tables and views lazily from the immutable
// snapshot.
//
// On start the engine rebuilds, through binderHooks (engine.Binder), the
// plans of views, the sources and the sinks, from the SQL that created
// them. Start serves before the store has opened: sessions connect at
// once and wait for the engine at their first statement that needs it
// (starting.go).
//
// A statement's execution (stmt_run.go) lives until its result is
// closed, under the memory guard (memory_guard.go), which cancels the
// statement holding the memory before the heap reaches its limit and
// returns the memory after it, and under statement_timeout.
//
// Event time: mz_now() binds in views only in WHERE and HAVING, where the
// planner makes it a temporal filter (now() and the other clocks are
// refused there, with a hint). TUMBLE, HOP and SESSION in FROM bind as
// their formulations (bind_window_tvf.go). CREATE TABLE and CREATE
// SOURCE take WATERMARK FOR, APPEND ONLY and LATE DATA, and CREATE
// MATERIALIZED VIEW EMIT ON WINDOW CLOSE (exec_eventtime.go; sql/parser
// recognises the clauses, which PostgreSQL's grammar lacks). A view is
// bound with its creator's TimeZone and other settings, which its stored
// statement spells out (view_settings.go).
package sql
