// Package engine is streamdb's coordinator: the tick loop, the durable
// collections on storage (tables, source relations, positions,
// sequences), recovery, view maintenance and change feeds. It knows
// nothing of SQL text: the front end (package sql) binds statements into
// catalog objects and plans and calls the engine through the small API
// below. It builds and tests without cgo.
//
// # Concurrency
//
// One goroutine, the coordinator (Run), owns every piece of mutable
// state: table contents, the dataflow graphs of materialized views,
// indexes and subscriptions, the live catalog and the Pebble store.
// Exported methods hand it work and wait (Commit, RunDDL, Subscribe),
// or read what it published (Snapshot). It gathers the pending
// transactions and source batches into a tick, applies them, writes one
// Pebble batch, steps every dataflow downstream of a change (on a
// long-lived maintainer goroutine, beside the commit's fsync), and then
// publishes an immutable Snapshot (the catalog and the contents of every
// object as of the tick's timestamp). Readers never lock engine state: a
// Snapshot's collections are copy-on-write, so a long query never stalls
// a tick and every read sees one timestamp across all objects. Commit
// returns only after its tick is published, which gives a writer its own
// writes in every view.
//
// # Durability and exactly-once
//
// Everything a tick changes is one Pebble batch: table rows, source
// relations' rows and the positions their sources read up to, and the
// tick's timestamp. A source therefore needs no transactions of its own:
// after a crash it is handed back the positions stored with the last rows
// it committed (sources.Source.Run's resume) and produces the rest. A
// batch the source can produce again from the position before it
// (sources.Batch.Replayable) is committed without waiting for the disk.
//
// On Open the engine replays the catalog in id order (every object after
// the objects it reads), loads tables, rebuilds each view's dataflow and
// hydrates it from its inputs, and starts each source from its stored
// positions. A view's plan and a source's runtime come from the SQL that
// created them, which only the front end can read: it passes a Binder
// in Config.
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
// (View), all as of one tick.
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
// changes of their outputs (a GROUP BY view's group row, -old +new);
// after the commit the tick is published, and a SELECT of the view reads
// the new group row from the Snapshot.
package engine
