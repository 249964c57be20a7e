// Package engine is streamdb's coordinator: the tick loop, the durable
// collections on storage (tables, source relations, positions,
// sequences), view state that survives restarts, recovery, view
// maintenance and change feeds. It knows nothing of SQL text: the front
// end (package sql) binds statements into catalog objects and plans and
// calls the engine through the small API below. It builds and tests
// without cgo.
//
// # Concurrency
//
// One goroutine, the coordinator (Run), owns every piece of mutable
// state: the tables' overlays, the dataflow graphs of materialized
// views, indexes and subscriptions, the live catalog and the Pebble
// store's writes. Exported methods hand it work and wait (Commit, RunDDL,
// Subscribe), or read what it published (Snapshot). It gathers the
// pending transactions and source batches into a tick, applies them,
// writes one Pebble batch, steps every dataflow downstream of a change
// (on a long-lived maintainer goroutine), and then publishes an
// immutable Snapshot (the catalog and the contents of every object as of
// the tick's timestamp). Readers never lock engine state: a Snapshot's
// collections are copy-on-write, so a long query never stalls a tick and
// every read sees one timestamp across all objects. Commit returns only
// after its tick is published, which gives a writer its own writes in
// every view.
//
// # Time
//
// The engine's Clock (wall time, or a ManualClock that tests move) gives
// each tick its timestamp, which is mz_now() in views. A flow with a
// temporal filter has changes scheduled for later times
// (dataflow.Graph.NextWake): the loop waits for the earliest of them as
// for a request, and runs a tick without input when it comes
// (timeTick), stepping the flows that have something due. Tick runs one
// at once, for tests.
//
// A table or source relation with a WATERMARK keeps a watermark
// (watermark.go): the latest time seen minus the lag, moved by each row
// it accepts in order. A change to a row behind it is late: an
// insertion is counted and dropped or routed to the errors relation, a
// client's update or delete fails; the watermark and the count are
// stored with the tick that moves them. Flows read the watermark at each
// step (planner.LowerContext.Watermark) to forget what it has passed.
//
// # Durability and exactly-once
//
// Everything a tick changes is one Pebble batch: table rows, source
// relations' rows and the positions their sources read up to, the state
// changes of every view the tick maintained, and the tick's timestamp.
// A source therefore needs no transactions of its own: after a crash it
// is handed back the positions stored with the last rows it committed
// (sources.Source.Run's resume) and produces the rest, and the views are
// at exactly those positions. A batch the source can produce again from
// the position before it (sources.Batch.Replayable) is committed without
// waiting for the disk.
//
// A tick that changes no persisted view commits beside its maintenance,
// which needs only memory (see writeTick); one that changes a persisted
// view commits once maintenance has written the views' state into the
// batch.
//
// # Persisted view state
//
// Each materialized view and index persists the state of its dataflow:
// every operator writes the changes of its state (arranged rows, group
// accumulators, top-k and window inputs, the view's rows; see
// dataflow.Graph.Persist) into the tick's batch under the flow's id
// ('s' keys of storage), and the flow's header ('h') records the state's
// format and a digest of the dataflow's shape and of the plan it was
// lowered from. On start a flow whose header matches what this build
// lowers is restored (dataflow.Graph.Restore), reading its state and
// nothing else: the restart costs the size of the state, not the history
// that made it. A flow without a usable header is rebuilt from its
// inputs, and persisted as it goes: a new view, a store written before
// state was persisted, a build whose planner lowers the view another
// way, or a store whose state format (stateFormat, in the metadata) this
// build does not read, which it says in its log before dropping that
// state. Views whose operators cannot persist (none today) and servers
// run with RecomputeViews are rebuilt on every start, as all views were
// before.
//
// The state is laid out for data-parallel workers that shard every
// arrangement by key: within a flow and an operator's structure, every
// entry starts with a bucket, the top 16 bits of the CRC-32C of the key
// the operator partitions by (a join key, a group key, a partition key,
// a distinct row), so that a worker owning a range of buckets reads and
// writes one key range of each structure, and splitting the state among
// workers, or merging it back, moves no key. The hash is fixed for good,
// unlike the seeded hashes of the in-memory tables. A view's rows are
// kept in key order instead, one range a reader scans whole; workers
// would split them by key range. See dataflow/persist.go for each
// operator's layout.
//
// # Per tick, not checkpoints
//
// State could also be written by checkpoints, every second or so, with
// the durable inputs since the last checkpoint replayed on restart. The
// measurements decided against it. A checkpoint saves writing a key
// that several ticks change between two checkpoints; at saturation a
// tick holds thousands of events, so a second holds few ticks, and the
// keys they share are few. Counted on Nexmark (500,000 events per query,
// every state write of every tick against the distinct keys written
// within each second):
//
//	query   state written per event   saved by checkpoints every second
//	q0      56 B                        0%   (the view keeps every bid)
//	q4      43 B                        0.5%
//	q5      28 B                        8%
//	q7      101 B                       0%
//	q9      186 B                       0.9%
//	q15     17 B                       24%
//	q17     6 B                         9%
//	q18     161 B                       0%
//	q20     191 B                       0%   (a join arranges every bid)
//
// What costs is the bytes of append-only state, arranged rows and view
// rows written once each, which a checkpoint writes all the same. And a
// checkpoint would cost what per-tick writes do not: a changelog of
// table changes to replay (every table write twice), replay on restart
// proportional to the checkpoint interval, and for a source that is not
// stored a second read of its external log from the checkpoint's
// position, kept apart from the stored relations of the same source,
// which are ahead of it. Written per tick, the state is always the
// state of the tick on disk, and exactly-once needs nothing more.
//
// Per tick, persisting costs Nexmark queries with aggregates little and
// those whose state is every event most. Profiled (BenchmarkNexmarkIngest
// in package sql, 1M events, persisted against --view-state recomputed),
// the difference is Pebble taking the state's bytes, not the dataflow
// encoding them: for q20, Pebble's flushes took 0.64 s, its compactions
// 1.17 s and the memtable 0.37 s of 3.62 s CPU, against 0.21, 0.23 and
// 0.05 s of 1.48 s without state, while the dataflow's steps took 0.69 s
// against 0.50 s. Three things cut it:
//
//   - Fewer bytes: an Output persists a row without its stored form when
//     the row's key determines it (q0's state was 1.5 times as large, q20's
//     output 1.8 times), and the rows a tick appends to a hot key's bucket
//     are one entry instead of one each (q20's arranged bids: 465,000
//     entries for 920,000 bids). q20 writes 152 bytes of state per event
//     where it wrote 200, q9 176 where it wrote 220.
//   - Keys in order: operators write their keys in the order of their hash
//     buckets, and each one searched the memtable's skiplist from the top;
//     the storage batch sorts a tick's state writes first (storage
//     state_sort.go), which took q0's memtable from 0.68 s to 0.29 s.
//   - Compactions that rewrite them less: tuned in storage.Open, which cut
//     q20's cost by a fifth.
//
// Measured (events per CPU-second, persisted ÷ recomputed, 1M events, on
// the loaded two-core machine at load 11–15; before → after): in
// BenchmarkNexmarkIngest, alternating the two builds, two rounds, q0
// 0.72× → 0.69× (no change beyond the noise), q1 0.66× → 0.71×, q9
// 0.48× → 0.55×, q20 0.49× → 0.57× (persisted, q9 and q20 ingest 13%
// and 20% more events per CPU-second); in bench/nexmark (two runs of
// each mode, the best kept; load 8 before, 4–9 after), q0 0.67× →
// 0.67×, q1 0.70× → 0.76×, q9 0.45× → 0.60×, q20 0.40× → 0.59×, and q3
// 0.88×, q8 0.83× after. What was left for q9 and q20 was physical:
// their state is every bid (the join's arrangement) and, for q20, the
// joined rows, about 150 bytes per event beside the 120 the stored event
// takes, and Pebble's cost goes with the bytes it logs, flushes and
// compacts.
//
// So state that repeats a stored table is not written at all: it is
// derived (dataflow/derive.go). A join's arrangement of a stored table
// reached through projections only (no filter: a filtered view's state
// can be far smaller than its table), and a view or index that projects
// a stored table, are rebuilt at restore from the table's rows
// (derive, in hydrate.go, feeds them through the graph's Derive), which
// are those of the restored tick because a tick writes the table and the
// state in one batch and every change that would reach a hydrating flow
// waits. Nexmark q9 no longer writes its arranged bids and auctions
// (123 of its 167 MB of state at 1M events), q20 its arranged bids (99
// of 144 MB), q0 and q1 nothing. Persisted ÷ recomputed, in
// bench/nexmark at 1M events (bench/results/derived-state.md), went from
// q1 0.67×, q9 0.54×, q20 0.64× to 1.06×, 0.92×, 0.85×. A restore reads
// those tables instead: as many rows as the derived state holds, so a
// restart still follows the state, not the history, but reads a table
// once for each flow deriving from it: after kill -9 with 1 GB of state
// (2M events) every view was back in 4.6 s where it took 3.3 s, the
// first in 0.8 s. A source that is not stored has no table to derive
// from, and writes each event once, as state.
//
// # Restart: serving while views hydrate
//
// Open replays the catalog and opens every table without reading a row
// (see Tables below); it does not hydrate. The store opens in the time
// Pebble takes to replay and flush its log, which the memtables bound;
// compactions, which a crash under load leaves due and whose size grows
// with the history the store holds, wait until it has opened and then
// run beside the hydration (storage.Open). After kill -9 over 1M to 10M
// Nexmark events the store opened in 0.1–0.3 s, where waiting for the
// first compaction took 0.5–4.8 s (bench/results/restart-history.md).
// Run serves at once and hydrates the flows in the background, one per
// processor at a time (hydrate.go): restored from their state, smallest
// first, or rebuilt from their inputs once the flows they read are back.
// Tables and ready views answer meanwhile. A read of a view still hydrating gets a *HydrationError
// and waits for it (the front end waits as long as its statement may);
// a write or source batch whose changes would reach such a view waits in
// the coordinator, so that the view's inputs stay as its state was
// computed from; catalog changes wait for all hydrations. SHOW
// MATERIALIZED VIEWS tells each view's hydration (restoring, rebuilding,
// failed) and how far it is, and the log shows progress every ten
// seconds. A restore allocates the state it builds and little else:
// after kill -9 with ~1 GB of state (Nexmark q9, q20 and a count per
// auction over 2M events) the restarted server's peak resident set was
// the steady state's, where recomputing took 1.58× it (bench/restart).
//
// # Tables
//
// Tables live in the store, not in memory. A table's contents at a tick
// are a base snapshot of the store, shared by every table, with the rows
// changed since laid over it in a small copy-on-write tree per table
// (table_base.go); a new base is taken, and the overlays emptied, every
// 65,536 overlaid rows or ten seconds. A snapshot's rows into a
// relation it truncated (sources.Batch.Fresh) skip the overlay and the
// lookup of the row each would replace, the tick taking a new base
// instead (bulk.go). Reads go through Pebble's block
// cache (Config.CacheSize); a restart reads where each table's row ids
// end and its row count, not its rows. Memory holds views' and indexes'
// state, which must be in memory to maintain them, and recent writes.
//
// # Streams that are not stored
//
// A source created WITH (STORED = false) keeps no rows (catalog.Object
// .NotStored): each batch becomes a delta of its relations that feeds
// the views reading them, whose persisted state holds what they need,
// and the positions commit with that state as with stored rows, so
// exactly-once holds across crashes. Its external log (a Kafka topic) is
// the only record of its events. Such a source waits for its first view
// before it reads (a view made after it ingested could not be hydrated);
// a read of its relations fails with 0A000, and so does a new view over
// it once it has ingested, naming how many events the view would lack.
// Only append-only outputs can be not stored: an upsert's or a
// retraction's previous row is kept nowhere. A Kafka source is not
// re-read to hydrate a late view: what the topic still retains is not
// what the views saw, after retention or compaction.
//
// Nothing keeps such a relation's rows after its tick (it has no
// SUBSCRIBE … AS OF history either: there are no contents to replay it
// from) unless a view does; nor a cold relation's, whose rows are
// encoded into the store and whose history holds their ids. When every
// flow reading the relation lets go of its rows within the step
// (dataflow.Input.KeepsRows: filters and projections that build rows of
// their own), and no change feed or sink reads the relation itself, the
// tick hands the batch's memory back to its source
// (sources.Batch.Release, source_release.go), which builds its next
// batches in it. For Nexmark q2 (a filter) over a saturated
// generator that removed the allocation of every event's row and the
// collector's scanning of it: 4.7M events per CPU-second became 7.4–13M
// at 10M events on the shared machine (load 7–10; the hand-written Go
// loop does ~25M on one core).
//
// # API
//
// A table is created by a catalog change and written by transactions:
//
//	err := e.RunDDL(ctx, func(ctx context.Context, tx *engine.DDL) error {
//		t := &catalog.Object{ID: tx.NextID(), Kind: catalog.KindTable, Name: "t", …}
//		return tx.Create(ctx, t)
//	})
//	err = e.Commit(ctx, &engine.WriteSet{Tables: map[uint64][]engine.RowChange{t.ID: {{Row: row}}}})
//
// A source (sources.Source) is created by DDL.CreateSource and hands the
// engine batches through sources.Sink.Emit: the changes of each output
// with the positions they read up to, committed atomically in one tick
// (see ExampleDDL_CreateSource).
//
// A consumer of changes follows a relation or a plan's result tick by
// tick through a change feed (see "Change feeds" below): Subscribe
// returns a Subscription whose Next yields Ticks (a timestamp and rows
// with weights, +1 an insert and -1 a delete, consolidated) and progress;
// a sink created by DDL.CreateSink gets its ticks through the
// sinks.Engine the engine implements for it.
//
// A reader takes a consistent snapshot: Snapshot, then its Catalog, a
// table's rows (Table) or a materialized view's or index's arrangement
// (View), all as of one tick; ViewErr says why a view the catalog holds
// is not there (hydrating, or failed).
//
// # Views in error
//
// A view keeps evaluation errors as data and reads as its first error
// while rows that fail are present. The engine records each distinct
// error of each view with when it appeared and one input row that fails
// so, found by running the view's plan again over the rows of the tick
// that brought the error (view_errors.go), and the record of the source
// that carried the row (sources.Batch.Origins); ViewErrors reads it.
//
// # Change feeds
//
// SUBSCRIBE and sinks read the same thing, a relation's consolidated
// changes per tick, but want different guarantees, so one feed has two
// backings.
//
// A Subscription serves a client that is there now. The coordinator
// pushes each durable tick's changes into the subscription's queue (a
// subscription of a whole table or view takes the object's own changes,
// shared with the object's other subscriptions; one of a query has a
// dataflow of its own, hydrated like a view's). The queue is bounded in
// bytes (Config.FeedBufferBytes): a client that stops reading loses its
// subscription, with an error, and the queue is freed at once, instead
// of the server holding every change since (a paused COPY (SUBSCRIBE)
// reader once grew the server by 8 GB). Every heartbeatInterval the
// coordinator tells each feed how far the clock has come, with an empty
// tick of its own when nothing ticked (clock.go): progress reaches idle
// subscriptions at least once a second. Dropping an object a feed reads
// ends the feed with an error.
//
// A subscription may start in the past (AS OF). Keeping every view's
// history would cost every tick of every view, for a feature few use;
// keeping the stored collections' recent changes (history.go) costs
// only the references to batches the tick built anyway, and a feed that
// starts in the past computes its query, views inlined, from the
// collections as they were: their current contents less the retained
// changes since, then each retained tick in order. Cold relations, whose
// rows never stay in memory, retain only the row ids each tick appended,
// and a replay reads those rows back from the store. The history is
// bounded by age and bytes (Config.RetainHistory, RetainHistoryBytes)
// and starts empty with the process; HistorySince says how far back each
// collection reaches, and an older AS OF is refused.
//
// A sink needs more: its consumer is Kafka, which commits in its own
// time, and it must resume exactly after what it committed across a
// crash of either side (package sinks). So a sink's history is durable:
// from CREATE SINK on, every tick writes the sink's relation's changes
// into the tick's own Pebble batch, under the sink's id (sink_feed.go),
// and the feed reads them back. Writing them
// in the tick's batch is what makes resuming exact: the history holds
// exactly the ticks whose data committed, so after kill -9 the sink,
// which reads its last committed time from Kafka, finds every tick after
// it. The sink reports each time it commits (sinks.Feed.Committed), and
// the next tick deletes the history up to there, in its batch too: the
// history holds what Kafka has not acknowledged, usually a tick or two,
// and a sink that falls behind (a broker outage) holds disk, not memory.
// A sink that resumes before its history (its progress topic lost, or
// a sink new to the data directory) gets a snapshot, which it compares
// with the topic. A sink of a view needs the view's changes before the
// tick commits, so a tick that may change such a view maintains it first
// and commits after, instead of beside it. This state is separate from
// any persisted view state: a sink's history is the log of one
// relation's output, keyed by the sink, and is dropped with it.
//
// # The path of one row
//
// A Kafka record is decoded by sources/kafka into a sources.Change of a
// sources.Batch and emitted; the coordinator appends it to the source's
// relation in the tick's Pebble batch, with the partition's new offset,
// and pushes it as a Z-set update (+1) into the input of every dataflow
// that reads the relation; each dataflow's operators turn it into
// changes of their outputs (a GROUP BY view's group row, -old +new) and
// write their state's changes (the group's accumulators) into the same
// batch; after the commit the tick is published, and a SELECT of the view
// reads the new group row from the Snapshot.
package engine
