// Package server runs bin/streamdb as a child process for the benchmark
// harnesses under bench/ and reads what that process costs from /proc.
//
// The harnesses measure streamdb from the outside, as a user's deployment
// would run it: a separate process with a fresh data directory, reached
// over the PostgreSQL wire protocol. Running it out of process is what
// makes its CPU time and memory measurable on their own, apart from the
// harness's load generation, polling and result checks: Usage reads the
// child's user and system time from /proc/<pid>/stat and its peak resident
// set (VmHWM) from /proc/<pid>/status, so "events per CPU-second" counts
// every core the server used and nothing the harness did.
package server
