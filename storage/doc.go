// Package storage is streamdb's durable state on Pebble: the catalog, the
// contents of every durable collection (tables and ingested source data),
// metadata such as the last committed tick, and source resume positions.
//
// Everything one tick changes is written in one Batch and committed with a
// synced write, so the data and the positions it was read up to move
// together or not at all; that single atomic write is what makes ingestion
// exactly-once and what lets kill -9 lose no acknowledged write.
//
// Keys are namespaced by a one-byte prefix:
//
//	'c' id                  catalog entry (opaque bytes owned by package engine)
//	'd' collection key      a row of a durable collection
//	'h' flow                the header of a flow's persisted state
//	'm' name                metadata
//	'p' source part         a source's resume position for one partition
//	's' flow key            a key of a maintained dataflow's persisted state
//
// ids are big-endian uint64 so that a collection's rows are contiguous and a
// dropped collection is one range deletion. Readers that need one state
// of the store across many reads (a tick's tables) take a Snapshot. storage knows nothing of SQL:
// keys and values are bytes chosen by the caller.
package storage
