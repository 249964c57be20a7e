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
// produces several tables; a Kafka source one).
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

// Batch is a unit of ingestion: the engine commits its changes, dead
// letters and progress atomically.
type Batch struct {
	// Changes holds each output's changes, indexed like Outputs().
	Changes [][]Change
	// DeadLetters are the records of the batch that failed to decode.
	DeadLetters []DeadLetter
	// Progress maps each partition to its resume position after this
	// batch (opaque to the engine, handed back to Run on restart).
	// Partitions not present keep their previous position.
	Progress map[string][]byte
	// Time is when the data was produced, for freshness measurements;
	// zero when unknown.
	Time time.Time
	// Replayable says the source produces this batch again, row for row,
	// when it resumes from the position before it (NEXMARK is a function
	// of its position). The engine then commits the batch without waiting
	// for the disk: a crash of the machine can lose it only together with
	// its position, and the source replays it. A batch whose upstream
	// forgets what was acknowledged (a replication slot) or may be gone
	// when read again (a Kafka topic past its retention) is not
	// replayable.
	Replayable bool
}

// State is the lifecycle state a source reports for SHOW SOURCES.
type State string

// Source states.
const (
	Starting State = "starting"
	Running  State = "running"
	Stalled  State = "stalled"
)

// Sink receives a source's batches and status. Emit blocks while the
// engine is busy (backpressure) and returns an error only when ctx ends or
// the engine stops; the batch's ownership passes to the engine.
type Sink interface {
	Emit(ctx context.Context, b *Batch) error
	// Status reports the source's state; reason explains a stall.
	Status(s State, reason string)
}

// Source is a running external input.
type Source interface {
	// Outputs describes the collections the source produces. It does
	// not change over the source's life.
	Outputs() []Output
	// Run ingests until ctx ends, delivering batches in order to sink.
	// resume holds the positions of the last committed batch (empty on
	// first start). Run retries transient external failures itself,
	// reporting Stalled meanwhile, and returns only when ctx ends or on a
	// failure that retrying cannot fix.
	Run(ctx context.Context, resume map[string][]byte, sink Sink) error
}
