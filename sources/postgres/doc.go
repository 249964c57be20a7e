// Package postgres is the PostgreSQL CDC source: it replicates upstream
// tables into streamdb through a logical replication slot (pgoutput,
// protocol version 1, text values), with jackc/pglogrepl for the
// replication protocol and pgx for everything else. Each upstream table
// becomes one output: an upsert output keyed by the columns that identify
// its rows in pgoutput's deletes (the primary key, or a REPLICA IDENTITY
// index), or for a table without a key under REPLICA IDENTITY FULL an
// append output that retracts the old rows.
//
// # Lifecycle
//
// Discover (CREATE SOURCE, ALTER SOURCE … ADD SUBSOURCE) checks upstream
// (wal_level, the REPLICATION attribute, a publication that publishes
// every kind of change and covers the tables, replica identities) and
// describes the tables: columns, types, NOT NULL, key. The engine keeps
// those Tables and rebuilds the source from them with Open, which does
// not connect: a restart must not wait for upstream. Run does the rest,
// and DropSlot removes the slot for DROP SOURCE.
//
// Types map by OID: every type streamdb has, arrays of them, enums (as
// text) and domains (as their base type). Any other type is refused with a
// hint to list the column in TEXT COLUMNS, which replicates upstream's
// text form whatever the type. Every connection sets the session settings
// (UTC, ISO dates, extra_float_digits 3, hex bytea) under which
// PostgreSQL's text output is what types.ParseText reads back exactly, so
// the stream's values and the snapshot's agree.
//
// # Snapshot and stream: no gap, no overlap
//
// On its first start the source creates its slot with an exported
// snapshot, and reads every table in one REPEATABLE READ transaction on
// that snapshot (binary COPY; enums, domains, arrays and TEXT COLUMNS cast
// to text), in batches of SnapshotBatchRows or SnapshotBatchBytes that
// a committer goroutine hands to the engine while the next one is read.
// The batches are fresh (sources.Batch.Fresh: new keys into an output
// the first one truncated, stored without a lookup each) and, but for
// the last, replayable (committed without waiting for the disk: until
// the last records the table, a restart reads it again). Then it streams
// from the slot's consistent point P: the snapshot holds exactly the
// transactions that committed before P, the slot sends exactly those
// after.
//
// The position records, per table, the consistent point its snapshot was
// taken at, and the stream applies a table's transactions only from that
// point on (their commit LSN, known from the Begin message). This makes a
// table's snapshot independent of the slot's: a table the position does
// not know — one added later, or one whose snapshot a crash interrupted —
// is read on a temporary slot's exported snapshot at a later point P',
// its output truncated first, while the main slot streams on from where
// it was and skips that table's transactions before P'. So a crash in the
// middle of a snapshot never forces the slot to be dropped: what was
// committed stays, and the tables not yet recorded are read again. Only
// on the very first start, before anything is committed, is a leftover
// slot of the source's name dropped and created again.
//
// # Transactions, batches and exactly once
//
// Every upstream transaction lands in one sources.Batch, never split,
// whatever its size; while the committer waits for the engine, whole
// transactions that follow join the next batch (up to MaxBatchChanges).
// A batch's Progress is the end LSN of its last commit (partition "lsn",
// 8 bytes), with partition "state" (upstream's system identifier and the
// per-table snapshot points and stalls) whenever that changes. Standby
// status updates confirm only what Emit has returned for, so the slot
// never forgets a change the engine has not committed, and a restart
// resumes at the committed LSN. While nothing is in flight the position
// follows the WAL upstream writes for others (keepalives), committed
// every StatusInterval, so that a quiet source does not hold upstream's
// WAL forever.
//
// Changes map onto package sources as follows: inserts, updates and
// deletes become upsert or append changes; an unchanged TOASTed value
// (pgoutput's 'u') comes from the old row when pgoutput sends one
// (REPLICA IDENTITY FULL), else the change lists it in Change.Unchanged
// and the engine keeps its stored value; an update of the key carries
// Change.OldKey; TRUNCATE becomes Batch.Truncate; ADD COLUMN becomes
// Batch.AddColumns, with the column's missing value (its constant
// default) as the fill for existing rows.
//
// # Failures
//
// Nothing is skipped or resnapshotted silently. Upstream unreachable,
// restarting or refusing (a missing publication, the slot busy) stalls
// the source (Status Stalled with the reason) and is retried with backoff
// between RetryMin and RetryMax. An upstream that goes silent without
// closing the connection is noticed too: the stream asks for a reply
// after a quiet StatusInterval and gives the connection up after four
// without a word; setup steps have a timeout, and connections keep TCP
// keepalives for the steps that may rightly take long. What retrying cannot fix ends Run with
// an error saying what was lost and what to do: the slot gone, invalidated
// or advanced past the position, upstream restored from a backup (its WAL
// ends before the committed LSN) or replaced (another system
// identifier). A table-level problem stalls only that table, recorded in
// the position and shown by Status: a column dropped, renamed or retyped,
// a volatile-default ADD COLUMN (a rewrite replication does not carry), a
// replica identity that no longer carries the key, the publication no
// longer covering the table, the table dropped and created again. The
// stalled output keeps its rows; ALTER SOURCE … DROP SUBSOURCE and ADD
// SUBSOURCE replicate it afresh. A value streamdb cannot represent (a
// timestamp past year 294247, a multidimensional array, …) becomes a dead
// letter (partition: the relation, offset: the LSN, key: the row's key)
// and the row stays out — an upsert row that goes bad is deleted rather
// than left stale — while the source goes on.
//
// # Speed
//
// BenchmarkSnapshot compares a snapshot with PostgreSQL's COPY of the same
// table to a client that discards it; BenchmarkSnapshotDecode isolates
// this side's share. BenchmarkStream replays a burst of changes against a
// raw drain of a copy of the same slot. The decoder (pgoutput.go) reads
// column values in place and copies each message once; pglogrepl's own
// message decoders allocate every column and index past the end of
// truncated input, so they are not used.
package postgres
