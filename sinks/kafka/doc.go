// Package kafka is the Kafka sink: it writes a relation's changes to a
// topic exactly once with a transactional franz-go producer, following
// Materialize's CREATE SINK … INTO KAFKA in formats, envelopes, topic
// creation and progress topic.
//
// # From changes to records
//
// Each tick's changes become records in the sink's envelope
// (envelope.go). With a KEY, a key's deletions and insertions in a tick
// are paired: ENVELOPE UPSERT writes the new row for an insert or an
// update and a tombstone (null value) for a delete; ENVELOPE DEBEZIUM
// writes {"before": old, "after": new}, with null for the missing side.
// The record key is the KEY columns as a JSON object (or the one key
// column's text under KEY FORMAT TEXT). Without a KEY (DEBEZIUM only)
// every change is a record with a null key, {"before": row, "after":
// null} for a deletion and the reverse for an insertion, repeated for a
// weight above one. Records carry a streamdb-timestamp header with
// their tick's time, and keyed records are partitioned by Kafka's
// murmur2 hash of the key, as a Java producer would.
//
// A KEY that is not unique in the relation (accepted with NOT ENFORCED)
// behaves as in Materialize: a key's deletions and insertions, each
// repeated by its weight and ordered by row, are zipped into pairs and
// every pair is written, so one key can get several records in a tick
// and a consumer keeps the last. The sink logs such keys (at most every
// ten seconds) and carries on.
//
// # The JSON encoding
//
// FORMAT JSON writes a row as an object with one member per column,
// named after it, in column order (encode.go, json.go). Every value
// encodes without loss; a consumer that knows the column types gets the
// same value back from PostgreSQL's input functions
// (TestJSONLossless):
//
//	NULL                       null
//	boolean                    true, false
//	smallint, integer, bigint,
//	oid, reg* (the OID)        a number
//	real, double precision     a number, the shortest that reads back
//	                           exactly (1.5, 1e+100, -0); "NaN",
//	                           "Infinity", "-Infinity" as strings
//	numeric                    a number with all its digits and its
//	                           scale (1.50); "NaN", "Infinity",
//	                           "-Infinity" as strings
//	text, varchar, char, name  a string (char keeps its padding)
//	bytea                      a string, standard base64
//	uuid                       a string, 8-4-4-4-12 hex
//	json                       its text, nested as is
//	jsonb                      its canonical text, nested
//	date                       "2024-02-29" ("0044-03-15 BC",
//	                           "infinity")
//	time                       "23:59:59.999999"
//	timestamp                  "2024-01-02T03:04:05.123456", ISO 8601
//	                           as PostgreSQL's to_json prints it
//	timestamptz                "2024-01-02T03:04:05.123456+00:00", in
//	                           UTC
//	interval                   PostgreSQL's text, "1 year 2 mons 3 days
//	                           04:05:06.789"
//	arrays                     a JSON array of the elements' encodings
//
// The one ambiguity is PostgreSQL's own: a jsonb or json value that is
// JSON null encodes like SQL NULL. FORMAT TEXT writes the one column's
// PostgreSQL text output (UTC, ISO dates, hex bytea); SQL NULL is a null
// key or value, so under UPSERT a NULL value reads as a delete.
// testdata/encoding.golden shows every type in both formats and the
// records of each envelope.
//
// # Exactly once
//
// The sink's producer has a transactional id derived from the sink's
// id, and every transaction holds, besides a batch of ticks' records, a
// progress record: key streamdb-sink-<id>, value {"version": 1,
// "timestamp": t}, in the progress topic (one partition, compacted,
// shared by the sinks of a connection). The data and the claim that it
// is complete up to t commit or abort together.
//
// Starting (conn.go) creates the progress and data topics when missing
// (the data topic with TOPIC PARTITION COUNT and TOPIC REPLICATION
// FACTOR, else the broker's defaults), initializes the producer, which
// fences every earlier producer with the same transactional id and
// aborts the transaction it left open, and then reads the progress topic
// with a read_committed consumer up to its last stable offset: the last
// progress record of the sink is the last tick it committed. The feed
// opens after it (see package sinks); on a snapshot the sink reads the
// data topic the same way and writes the difference (snapshot.go).
//
// Run then loops: take the next tick and those already waiting (up to
// MaxTransactionRecords records), encode them, and write them with
// their progress record in one transaction. Ticks without changes are
// committed only every ProgressInterval. Any failure — a broker down, a
// delivery or commit timing out, the commit's outcome unknown — closes
// the producer, reports the sink Stalled with the broker's reason, and
// starts over from connecting, with backoff. The ticks of the failed
// transaction are kept: the new connection's progress says whether the
// transaction committed after all (the ticks are done) or not (they are
// written again in a new transaction). A read_committed consumer
// therefore sees every change once across crashes, broker outages and
// restarts.
//
// A second instance of the sink (same id) fences the first: the first
// gets INVALID_PRODUCER_EPOCH or PRODUCER_FENCED, reports itself
// stalled and returns ErrFenced instead of retrying, which would fence
// the second back. A transaction outliving TransactionTimeout is aborted
// by the broker, which also fences the producer, so TransactionTimeout
// must exceed the longest transaction (a big snapshot is one).
//
// # Limits
//
// The snapshot difference holds the data topic's latest value per key
// (or, without a KEY, its rows) in memory, and assumes the topic holds
// only this sink's records. Records are not compressed beyond
// franz-go's default (snappy), and COMPRESSION TYPE, TOPIC CONFIG,
// HEADERS, PARTITION BY and Avro are not supported.
package kafka
