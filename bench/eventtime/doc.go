// Command eventtime benchmarks streamdb's event-time features over NEXMARK
// bids: windowed aggregations that forget closed windows behind a
// watermark, and a temporal filter that keeps the last minute, each
// against the same query without a watermark or filter, in the same run.
// It writes bench/results/eventtime.json and eventtime.md.
//
// # What it measures
//
// For each query and each variant (with cleanup, without), a fresh
// in-process streamdb (internal/testserver, an engine.ManualClock) gets
// one table of bids, APPEND ONLY (kept in the store only, as a source's
// relation is), with or without WATERMARK FOR date_time AS date_time -
// INTERVAL '2 seconds', and the query as a materialized view. The bids of
// NEXMARK events 0 to n-1 (loadgen.NexmarkGenerator, the generator behind
// CREATE SOURCE … LOAD GENERATOR NEXMARK: event times advance 0.1 ms per
// event, so 10M events span 1,000 seconds) are committed through the
// engine in batches of 10,000 events, the clock set to the last event's
// time before each commit: the engine's time follows event time, which
// is what a temporal filter compares with (mz_now()), and a run of 1,000
// seconds of events takes as long as the engine needs. Writing through
// engine.Commit rather than SQL keeps the client's encoding and the
// server's parsing out of the measure.
//
// Events per CPU-second divide the events by the process's user+system
// time (getrusage) over the run: the generator's, the table's writes and
// the view's maintenance. A run of the bare table, without a view, gives
// the cost of everything but the view, and the view's own cost is the
// difference (maintenance per CPU-second). Every million events the run
// samples the view's state_bytes (SHOW MATERIALIZED VIEWS) and its
// working state, state_bytes minus the bytes of the view's own rows
// (engine.ViewStat.OutputBytes): a windowed aggregation keeps every
// window it has emitted, watermark or not, since that is its result; what
// the watermark lets it forget is the state behind it. At the end the
// view is checked against the variant without cleanup: the windows that
// closed are the same rows; before it the clock moves a second on and
// the engine ticks at that time, so that both variants read mz_now() at
// the same time.
package main
