// Package kafka is the Kafka source: it reads one topic with franz-go and
// turns its records into batches of changes for the engine, following
// Materialize's CREATE SOURCE … FROM KAFKA in formats, envelopes and
// INCLUDE options.
//
// # From record to row
//
// A record's key and value are decoded by their formats (JSON, TEXT,
// BYTES, CSV) into columns; the output row is the key columns (when the
// key is part of the row), the value columns, then the INCLUDE metadata
// columns (partition, offset, timestamp, headers) in statement order. The
// envelope decides what the row means: NONE appends it, UPSERT makes it the
// latest row for its key (a null value deletes the key), DEBEZIUM reads
// before/after/op change events and upserts or deletes by key. layout.go
// holds these rules, record.go applies them per record.
//
// A record that fails to decode never stops the source: it becomes a
// DeadLetter in the same batch (and, optionally, a record on a dead letter
// topic), and the records around it go on. Decoders report PostgreSQL's
// errors (types.ParseText's), so the errors relation reads like a failed
// INSERT.
//
// # JSON on the hot path
//
// JSON is the common format and its decoding dominates ingestion cost, so
// it has fast paths (json_scan.go, json_canonical.go, decode_json.go) that
// scan the text once without building a tree: jsonb canonical text is
// written directly with keys sorted in place, and typed columns take their
// values from spans of one string copied from the record. The fast paths
// accept only what they can get exactly right and hand everything else
// (escaped keys, exponents, syntax errors) to types' parser, which is
// PostgreSQL's grammar; fuzz targets check that both paths agree.
//
// The choice is measured (BenchmarkDecode, BenchmarkDecodeJSONv2 with
// GOEXPERIMENT=jsonv2): on a six-field event, the fast path fills typed
// columns in 1.3 µs with 3 allocations; encoding/json takes 2.1 µs (5.4 µs
// without the experiment) and json/v2 1.5 µs into a Go struct alone, before
// any conversion to Datums; types' tree parser 7 µs. jsontext's token
// stream (0.6 µs, no allocations) could carry the fast path once the
// experiment is the default. In the engine, decoding is about 5% of
// ingestion's CPU; the commit path (Pebble, the stored relation) dominates.
//
// # Positions and exactly-once
//
// Partitions are assigned directly, never through a consumer group. Each
// batch carries, per partition, the offset after its last record (decimal
// partition id → 8-byte big-endian offset); the engine commits those
// positions with the batch's changes and hands them back to Run after a
// restart, which is what makes ingestion exactly-once. Partitions without
// a position start at START OFFSET or START TIMESTAMP on the source's
// first run, and partitions that appear later (the topic grew) start at
// their beginning; a discovery goroutine polls the topic's metadata to
// find them. With GROUP ID PREFIX the committed positions are also copied
// to a consumer group, at most once a second, for lag monitors; the
// source never reads them back.
//
// # Batching, backpressure and failures
//
// Records are gathered for up to 50 ms or MaxBatchRecords/MaxBatchBytes,
// then emitted. Emit blocks while the engine is busy, and while it blocks
// the loop stops polling, so franz-go stops fetching after one buffered
// response per broker, of at most a quarter of MaxBatchBytes: memory stays
// bounded however large the backlog.
// Unreachable brokers, a missing topic or refused credentials report the
// source Stalled with the reason, are retried with backoff, and report it
// Running again once metadata loads; Run returns only when its context
// ends.
package kafka
