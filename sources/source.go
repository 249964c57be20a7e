package sources

import (
	"context"
	"time"

	"github.com/streamdb/streamdb/types"
)

// Column is one column of a source output.
type Column struct {
	Name string
	Type types.Type
	// NotNull marks columns that never hold NULL.
	NotNull bool
}

// Output describes one collection a source produces (a load generator
// produces several tables; a Kafka source one; a PostgreSQL source one per
// upstream table).
type Output struct {
	Name    string
	Columns []Column
	// Key lists the key columns of an upsert output: each change replaces
	// the row with the same key (ENVELOPE UPSERT, DEBEZIUM). Empty for an
	// append output, whose changes are rows with multiplicities.
	Key []int
	// Retracts says an append output may retract rows it inserted (a
	// sliding window). The engine keeps such an output in memory, where
	// it finds the rows to retract; the others it leaves in storage.
	Retracts bool
}

// Change is one change to an output collection.
type Change struct {
	// Row is the new row. For an upsert output a nil Row deletes the row
	// with Key.
	Row types.Row
	// Key identifies the row of an upsert output (values of the key
	// columns, in Output.Key order); nil for append outputs.
	Key types.Row
	// Diff is the multiplicity change of Row for append outputs: +1 to
	// insert, -1 to retract. Ignored for upsert outputs.
	Diff int64
	// OldKey, for an upsert output, is the key of the row this change
	// replaces when the change moves it to another key (an upstream
	// UPDATE of the primary key). The engine deletes the row stored
	// under OldKey, then applies the change under Key. Nil otherwise.
	OldKey types.Row
	// Unchanged, for an upsert output, lists the columns whose values
	// the change does not carry (PostgreSQL's unchanged TOASTed values):
	// the engine takes them from the row the change replaces (the row
	// stored under OldKey when set, else under Key) as the earlier
	// changes, including those of this batch, left it; Row holds NULL in
	// those columns. When there is no such row (its insert was a dead
	// letter), the engine applies nothing: the row stays absent rather
	// than gain NULLs it never had. Nil for most changes.
	Unchanged []int
}

// DeadLetter is an external record that could not be decoded. It is
// stored in the source's errors relation instead of stopping the source.
type DeadLetter struct {
	// Partition and Offset locate the record (a Kafka partition and
	// offset; a PostgreSQL source's would be its LSN).
	Partition string
	Offset    int64
	Key       []byte
	Value     []byte
	Err       string
	Time      time.Time
}

// Origin locates an external record: a Kafka partition and offset.
type Origin struct {
	Partition string
	Offset    int64
}

// AddedColumn is an upstream schema change: output Output gains Column
// after its current last column.
type AddedColumn struct {
	Output int
	Column Column
	// Fill is the value the output's rows stored before this batch take
	// in the new column (PostgreSQL's "missing value" of a column added
	// with a constant default); the zero Datum is NULL.
	Fill types.Datum
}

// Batch is a unit of ingestion: the engine commits its changes, dead
// letters, schema changes and progress atomically.
//
// The engine applies a batch in this order: AddColumns, then Truncate,
// then Changes (in order), then DeadLetters and Progress.
type Batch struct {
	// AddColumns extend outputs by columns added upstream. The engine
	// adds each column to the output's relation (its catalog entry and
	// its stored rows, which read as Fill) in the same commit as the
	// batch; every row of this batch's Changes and of later batches for
	// that output has the new width. The source's Outputs() stay as they
	// were at construction: the extended layout is the engine's to keep
	// and to hand back when it rebuilds the source after a restart.
	AddColumns []AddedColumn
	// Truncate lists outputs (indexes into Outputs()) whose rows the
	// engine deletes, all of them, before applying Changes: an upstream
	// TRUNCATE, or the start of a table's (re)snapshot. Changes of this
	// batch for those outputs are rows written after the truncation.
	Truncate []int
	// Changes holds each output's changes, indexed like Outputs().
	Changes [][]Change
	// Fresh lists upsert outputs whose Changes in this batch only insert
	// rows under keys that the output's relation does not hold and that
	// no two of them share: a snapshot's rows, read after the output's
	// Truncate, of an upstream table whose key is unique there. The
	// engine stores them without looking up the row each would replace,
	// which is most of what a row costs it otherwise (a miss in every
	// level of the store). Changes of such an output carry no OldKey or
	// Unchanged, and never delete.
	Fresh []int
	// DeadLetters are the records of the batch that failed to decode.
	DeadLetters []DeadLetter
	// Progress maps each partition to its resume position after this
	// batch (opaque to the engine, handed back to Run on restart).
	// Partitions not present keep their previous position.
	Progress map[string][]byte
	// State is the source's own state beside its positions (a Kafka
	// topic's identity): stored in the same commit as Progress and
	// handed back to Run in resume under its keys, which must not be
	// partitions', but not shown in the progress relation.
	State map[string][]byte
	// Time is when the data was produced, for freshness measurements;
	// zero when unknown.
	Time time.Time
	// Origins, when a source sets it, locates each change's external
	// record: Origins[i][j] is where Changes[i][j] came from (a Kafka
	// partition and offset). The engine reads it only to tell a user
	// where a row that a view fails on came from.
	Origins [][]Origin
	// Replayable says the source produces this batch again, row for row,
	// when it resumes from the position before it (NEXMARK is a function
	// of its position). The engine then commits the batch without waiting
	// for the disk: a crash of the machine can lose it only together with
	// its position, and the source replays it. A batch whose upstream
	// forgets what was acknowledged (a replication slot) or may be gone
	// when read again (a Kafka topic past its retention) is not
	// replayable.
	Replayable bool
	// Release, when a source sets it, hands the memory of the batch's
	// Changes (the change slices and the rows they point to, not the
	// values' strings) back to the source: the engine calls it, once at
	// most, after the batch's tick when nothing it handed the rows to
	// can still refer to them, and the source may then reuse that memory
	// for a later batch. The engine often keeps rows (a stored relation's
	// history, a view that keeps its input's rows, a subscription), and
	// then never calls it: the source must not count on it.
	Release func()
}

// State is the lifecycle state a source reports for SHOW SOURCES.
type State string

// Source states.
const (
	Starting State = "starting"
	// Snapshotting is a source reading the initial contents of its
	// upstream (a PostgreSQL source's snapshot); the reason reports its
	// progress.
	Snapshotting State = "snapshotting"
	Running      State = "running"
	Stalled      State = "stalled"
)

// Sink receives a source's batches and status. Emit blocks while the
// engine is busy (backpressure) and returns an error only when ctx ends or
// the engine stops; the batch's ownership passes to the engine.
type Sink interface {
	Emit(ctx context.Context, b *Batch) error
	// Status reports the source's state; reason explains a stall or
	// reports a snapshot's progress.
	Status(s State, reason string)
}

// Source is a running external input.
type Source interface {
	// Outputs describes the collections the source produces. It does
	// not change over the source's life; a batch's AddColumns extend the
	// engine's copy of it.
	Outputs() []Output
	// Run ingests until ctx ends, delivering batches in order to sink.
	// resume holds the positions of the last committed batch (empty on
	// first start). Run retries transient external failures itself,
	// reporting Stalled meanwhile, and returns only when ctx ends or on a
	// failure that retrying cannot fix.
	Run(ctx context.Context, resume map[string][]byte, sink Sink) error
}
