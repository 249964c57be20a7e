// Package sources defines how external data enters streamdb: a Source
// turns an external system (a Kafka topic, a PostgreSQL replication slot, a
// load generator) into batches of changes to one or more output
// collections, each batch carrying the resume positions it reads up to.
//
// The engine commits a batch's changes and its positions in one Pebble
// batch, so a source never needs transactions of its own to be
// exactly-once: on restart it is handed the positions of the last
// committed batch and resumes from there. The packages below sources (one
// per kind) depend only on types and this package, never on the SQL
// layer.
package sources
