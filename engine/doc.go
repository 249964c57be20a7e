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
// A consumer of changes (SUBSCRIBE today, sinks next) follows a plan's
// result tick by tick: Subscribe hydrates a dataflow of the plan and,
// after every tick that touches its inputs, queues the tick's
// consolidated changes (Tick: a timestamp and rows with weights, +1 an
// insert and -1 a delete) once the tick is durable; Subscription.Next
// returns them in timestamp order.
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
