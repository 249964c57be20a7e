// Package sinks defines how changes leave streamdb: the contract between
// the engine, which maintains a relation (a table, source or
// materialized view) tick by tick, and a sink, which writes the
// relation's changes to an external system exactly once. The packages
// below sinks (one per kind: kafka/) depend only on types, pgerr and this
// package; sinkstest/ is a scripted engine for their tests.
//
// # Ticks
//
// The engine delivers a relation's changes as Ticks: a logical
// timestamp (milliseconds, strictly increasing) and the tick's
// consolidated changes, each a row with a weight (+1 inserted, -1
// deleted; an update is the old row -1 and the new +1 in one tick). A
// Feed hands them to the sink in order; Pending lets the sink write the
// ticks already waiting in one external transaction, and Committed tells
// the engine how far the sink has committed, so that it keeps only the
// history a restart may still need.
//
// # Resuming exactly once
//
// A sink records its progress externally, atomically with its output
// (for Kafka, a progress record in the same transaction as the data),
// so only the sink knows what it has written. It therefore starts by
// reading that progress back and then opens its feed with a Start:
//
//   - First start (Resume unset). With Snapshot, the first tick is the
//     relation at the current time, flagged Snapshot, every row
//     inserted; without it (WITH (SNAPSHOT = false)) the first tick is
//     empty and not a snapshot, and only marks the time the sink starts
//     from: its creation, when the engine has kept the changes since
//     (streamdb's does), so that none made while the sink was
//     connecting is missed. Either way the sink commits that first tick at once, so a
//     restart resumes after it.
//   - Restart (Resume set, After = the last committed tick's time). If
//     the engine still holds the relation's history since After, it
//     delivers exactly the ticks after After: the sink continues as if
//     it had never stopped. If it does not, it delivers a snapshot at
//     the current time instead (flagged Snapshot), then the ticks after
//     that. The sink cannot write a snapshot as inserts (every row would
//     appear twice), so it reads back what it committed (the data topic
//     up to its committed progress), and writes only the difference
//     between that and the snapshot: new and changed rows, and
//     deletions for rows the snapshot lacks. Either way every change
//     reaches the external system once.
//
// # A worked example
//
// A sink exports balances(id, owner, balance) with KEY (id), ENVELOPE
// UPSERT, WITH (SNAPSHOT = true):
//
//	Open(Start{Snapshot: true})
//	tick 100 snapshot  +(1, ada, 10) +(2, bob, 5)
//	  → {"id":1} {"id":1,"owner":"ada","balance":10}
//	    {"id":2} {"id":2,"owner":"bob","balance":5}      progress 100
//	tick 130           -(1, ada, 10) +(1, ada, 12)
//	  → {"id":1} {"id":1,"owner":"ada","balance":12}     progress 130
//	tick 140           -(2, bob, 5)  +(3, cy, 7)
//	  … the process dies before this transaction commits.
//
// On restart the sink reads progress 130 and calls Open(Start{Resume:
// true, After: 130, Snapshot: true}). An engine that kept its history
// replays tick 140 (and later ones), which the sink writes as a tombstone
// for {"id":2} and a value for {"id":3}. An engine that did not sends
//
//	tick 200 snapshot  +(1, ada, 12) +(3, cy, 7)
//
// and the sink compares it with the topic as committed ({"id":1} at 12,
// {"id":2} at 5): it writes a tombstone for {"id":2} and a value for
// {"id":3}, and nothing for {"id":1}, with progress 200. A consumer
// reading committed records ends with the relation either way.
//
// # What the engine provides
//
// The engine implements Engine for each running sink: Open as above,
// feeds whose buffered ticks it bounds (a sink writes as fast as its
// external system allows), and Status, which SHOW SINKS reports. It may
// deliver ticks without changes: a sink commits one from time to time,
// so that a restart has less history to replay. At CREATE SINK it
// refuses a KEY that is not unique in the relation unless it is NOT
// ENFORCED, using CheckUniqueKey on a snapshot. streamdb's engine keeps
// the history in its store, written with each tick (engine/doc.go,
// "Change feeds"). It runs each sink's Run
// under the server's supervision and passes it the sink's durable id
// (the catalog id), which names the sink's external state.
package sinks
