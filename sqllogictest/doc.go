// Package sqllogictest runs sqllogictest files against any server that speaks
// the PostgreSQL wire protocol: streamdb, or a real PostgreSQL used as the
// reference. It is how streamdb proves it speaks SQL correctly, and the
// library behind the bin/slt command.
//
// # Format
//
// A file is a sequence of records separated by blank lines; lines starting
// with '#' are comments wherever they appear, and a trailing '\r' is dropped
// so CRLF files (most of SQLite's index/ corpus) parse like LF ones. The
// records are those of SQLite's reference runner plus the common extensions:
//
//	statement ok | statement error [pgcode XXXXX] [regex] | statement count N
//	query <types> [nosort|rowsort|valuesort] [label]   then SQL, "----", results
//	query error [pgcode XXXXX] [regex]
//	simple                                             SQL run with the simple protocol
//	hash-threshold N | halt | sleep DURATION
//	mode standard|cockroach                            result layout
//	mode extended|simple                               protocol of later records
//	skipif ENGINE | onlyif ENGINE                      conditions on the next record
//
// The engine name is "postgresql" (Config.Engine), so SQLite's corpus runs in
// its PostgreSQL dialect; streamdb runs as "streamdb,postgresql", both names
// at once, so that a suite's records of streamdb's own SQL (onlyif streamdb:
// TUMBLE, mz_now(), WATERMARK) run on streamdb only while PostgreSQL runs the
// rest.
//
// # Results
//
// Values are normalised exactly as the reference runner does: NULL prints as
// "NULL"; a T column prints the text with the empty string as "(empty)" and
// every byte outside ' '..'~' as '@'; an I column prints an integer (a float
// or numeric truncated toward zero, a boolean as 0 or 1, text by its leading
// integer prefix as SQLite's sqlite3_column_int64 reads it, so "12abc" is 12
// and "abc" is 0); an R column prints "%.3f". rowsort sorts rows and
// valuesort sorts single values, both bytewise on the normalised text. A
// result with more values than the hash threshold, or any expected result
// written as "N values hashing to H", is compared as the MD5 of the values
// each followed by "\n". Queries with the same label must agree on that hash
// within a file. In "mode cockroach" the values of a row share one line,
// separated by single spaces.
//
// A simple record runs its text, which may hold several statements, with
// the simple query protocol; its expected output is each row's values joined
// by ",", the command tag after each statement (for example "INSERT 0 3"),
// and "ERROR <sqlstate>: <message>" for an error, which ends the record.
//
// # Modes
//
// Batch mode runs every record where it stands. Incremental mode turns each
// query into CREATE MATERIALIZED VIEW slt_mv_N as soon as every relation it
// reads exists — normally before the data is inserted — and at the query's
// position reads the view instead of running the query, then drops it. The
// relations a query reads are found with PostgreSQL's own grammar
// (pg_query_go, so incremental mode needs a cgo build); views that the file
// itself creates count with the relations they read. A view keeps no
// order, so an ORDER BY without LIMIT is dropped from the view and, in
// nosort mode, applied when the view is read, translated to the view's
// output columns; ORDER BY ... LIMIT stays in the view (a top-k view) and is
// applied again on reading in nosort mode. Queries that cannot be views (no
// relation, volatile functions, a nosort ORDER BY on values that are not
// output columns, a view creation failing with SQLSTATE 0A000 or over an
// anonymous record column, ...) run in
// batch and are counted as fallbacks by reason. PostgreSQL does not maintain
// materialized views, so against it Config.RefreshViews creates them WITH NO
// DATA and refreshes each before reading: that checks the runner's side of
// incremental mode (placement, rewriting, fallbacks), not maintenance.
//
// Every statement, query and simple record counts as passed, failed or
// skipped: records excluded by skipif/onlyif and records after a halt are
// skipped, and records a lost connection kept from running are failed.
//
// # Suites and the expected-failure list
//
// Our own suites live in suites/*.slt, one file per feature. Write the SQL,
// let "bin/slt --rewrite --url <PostgreSQL> suites/x.slt" fill in the
// results where PostgreSQL is the reference, and review the diff; --rewrite
// never touches the corpus's .test files. expected-failures.txt lists the
// records known to fail (see ExpectedFailures); TestPostgres runs the suites
// and select1.test against a PostgreSQL 15 it starts itself, in both modes.
//
// # Isolation and cleanup
//
// Each file gets its own connection. The objects a file creates are tracked
// from its successful statements and dropped, newest first, when the file
// ends; before a name is created for the first time in a file, an object of
// that kind and name left behind by an earlier crashed run is dropped. This
// works on PostgreSQL and on servers without CREATE DATABASE.
//
// # Speed
//
// Files are parsed as a stream in batch mode (incremental mode needs the
// whole file to plan its views), each record is one extended-protocol round
// trip with text results read straight from pgconn, values are normalised
// once into strings and hashed without joining them, and no regular
// expression runs per line.
package sqllogictest
