// Command restart is issue 31's benchmark: how long a restart after
// kill -9 takes until a view can be read again, with views restored from
// their persisted state and, side by side in the same run, recomputed
// from their inputs as every restart did before (--view-state
// recomputed), and how much memory either takes.
//
// Run it from the repository root with `go run ./bench/restart` after
// make build; it writes bench/results/restart.json and restart.md.
//
// # Scenarios
//
//   - nexmark: the views of the measurement, Nexmark q9 and q20
//     and a count per auction, over a stored NEXMARK source of -events
//     events (2M by default, ~1 GB of state_bytes). Their state grows
//     with the events, as their queries make it.
//   - history: about -state-mb of view state that does not grow with
//     history, over a source that does. A table of -dim-rows rows feeds
//     views whose state holds the table several times (groups keeping
//     every value for min and max, a self-join), and the NEXMARK bids
//     feed views of bounded groups; the scenario runs once per size of
//     -histories (1M and 10M events by default). Restored, the restart
//     should take as long at 10M events as at 1M; recomputed, it reads
//     all of them.
//
// # What is timed
//
// For each scenario the harness builds the state on a fresh server,
// waits until the source has committed every event, reads the server's
// resident set (the steady state) and the views' state_bytes, and kills
// it with SIGKILL. It then starts the server on the same data directory
// and times, from the start of the process: its first accepted
// connection; a point read of a table (SELECT … WHERE primary key = …);
// the first read of each view (SELECT count(*) FROM it, which waits
// while the view hydrates); and the moment every view is ready. Peak RSS
// is the restarted process's VmHWM once every view is ready, against
// the steady state before the kill. The server is killed again and the
// same restart is timed with --view-state recomputed.
package main
