// Package e2e holds streamdb's end-to-end tests of Kafka and PostgreSQL
// sources: real brokers, a real PostgreSQL 15, real servers and real
// clients, driven only through SQL.
//
// # What runs where
//
// The broker is franz-go's kfake, reached over TCP like any Kafka cluster
// (in process, or as the bin/devkafka binary when a test plays a user).
// streamdb runs in process through internal/testserver, except where the
// test needs what only a process can give: kill -9 mid-ingest restarts the
// real binary, and the README test runs bin/streamdb, bin/devkafka, kcat and
// psql exactly as the README tells a user to. Every assertion is a SQL query
// over pgx or psql; nothing reaches into the engine.
//
// # Waiting for ingestion
//
// A source ingests asynchronously, so a query right after a produce may see
// part of the data. Tests wait for a condition (a query's result, a source's
// progress reaching the offsets the producer was acknowledged) instead of
// sleeping, and fail with the last result seen. Checks that something does
// not happen (a duplicate after a restart) re-read after the source has had
// time to misbehave.
//
// # The SQL surface suite
//
// testdata/kafka.slt is a sqllogictest file for the whole CREATE SOURCE …
// FROM KAFKA surface (formats, envelopes, INCLUDE options, companion
// relations, SHOW and DROP, and the errors of bad statements). The
// repository's runner cannot start a broker or wait for a source, so
// slt_test.go runs the file with a small runner of its own: records parse
// with sqllogictest.Parser, and three additions are made, in the spirit of
// Materialize's testdrive:
//
//   - ${KAFKA_BROKER} is replaced by the address of the test's broker;
//   - kafka-* blocks (kafka-create-topic, kafka-add-partitions,
//     kafka-produce with its records on the following lines) act on the
//     broker before the next record runs;
//   - a query is retried until its result matches, for up to a minute,
//     because sources converge rather than answer at once. Statements run
//     once.
//
// A "# known-bug: …" comment in front of a record marks an engine bug: the
// record's failure is logged, not reported, and the suite fails once the
// record passes, so the marker is removed with the fix.
//
// testdata/postgres.slt does the same for CREATE SOURCE … FROM POSTGRES,
// ALTER SOURCE … ADD/DROP SUBSOURCE and their connections and secrets,
// against a PostgreSQL 15 cluster of its own: ${PG_PORT} and ${PG_DATABASE}
// name the upstream database, a postgres-execute block runs its lines
// there before the next record, and a query preceded by
// "# upstream-result" is first run upstream, where it must return the
// recorded result: the expected rows of a replicated table are
// PostgreSQL's own, checked on every run.
//
// # Statements meant to take the server down
//
// TestAdversarial (adversarial_test.go) runs the real binary under a
// GOMEMLIMIT of 512 MiB and sends it what has crashed or exhausted it:
// cross joins of table functions, huge values, state that grows with the
// input, generate_series in every position, text nested past the
// parser's limits, wide select lists, a view chain that doubles, long
// OR and IN lists, a COPY of gigabytes. Each statement must end with its
// SQLSTATE (57014 or 53200 for the resource hogs, under a
// statement_timeout of a second), the server must answer at once
// afterwards, a session reading a view meanwhile must never fail, and the
// server's resident size is watched: past 2 GB the test kills it and
// fails. The hogs then run again without a timeout, with ten megabytes of
// SELECT 1;: the memory guard alone must stop each with 53200 under
// 832 MB resident, and the server must be back under the guard's limit
// (384 MB) resident within 20 s.
//
// # Cost
//
// The package needs cgo (it links the engine's parser) and builds the
// streamdb and devkafka binaries once per run for the process tests, which
// -short skips along with the other slow tests.
//
// # Speed and memory
//
// BenchmarkKafkaIngest compares the engine with a bare franz-go consumer
// reading the same backlog in the same run and reports both rates and their
// ratio; TestKafkaBacklog checks that a backlog is taken in with bounded
// transient memory while reads go on. Both read from a devkafka process, so
// that the heap they measure is the consumer's alone.
//
// BenchmarkPostgresSnapshot, BenchmarkPostgresStream and
// BenchmarkPostgresFreshness (pg_bench_test.go) measure the PostgreSQL
// source through the engine against psql's COPY, pg_recvlogical and
// REFRESH MATERIALIZED VIEW in the same run, and COMMIT → visible under a
// steady upstream load; bench/results/postgres_cdc.md has the command and
// the results.
package e2e
