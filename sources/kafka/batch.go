package kafka

import (
	"bytes"
	"strconv"
	"time"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
	"github.com/twmb/franz-go/pkg/kgo"
)

// batchBuilder gathers one batch: the changes, dead letters and progress
// of the records added since the last take. Rows are carved out of a
// shared Datum arena, so a batch costs a few large allocations rather than
// one per row; the engine owns the rows (and so the arena) once the batch
// is emitted, and the builder starts a fresh arena.
type batchBuilder struct {
	changes []sources.Change
	// origins locates changes[i] (sources.Batch.Origins); partNames
	// holds each partition's name, so that locating costs no allocation.
	origins   []sources.Origin
	partNames map[int32]string
	dead      []sources.DeadLetter
	progress  map[int32]int64 // partition → next offset
	arena     []types.Datum
	// next is the size of the next arena allocation in Datums: it
	// doubles within a batch up to max, so a trickle of records does not
	// allocate a large arena per batch and a flood needs few allocations.
	next, max int

	records int
	bytes   int
	latest  time.Time
}

const minArena = 256

func newBatchBuilder(maxArena int) *batchBuilder {
	return &batchBuilder{progress: make(map[int32]int64), partNames: make(map[int32]string), next: minArena, max: max(maxArena, minArena)}
}

// locate records rec as the origin of the changes added since the
// batch held n.
func (b *batchBuilder) locate(n int, rec *kgo.Record) {
	if len(b.changes) == n {
		return
	}
	name, ok := b.partNames[rec.Partition]
	if !ok {
		name = strconv.Itoa(int(rec.Partition))
		b.partNames[rec.Partition] = name
	}
	for range len(b.changes) - n {
		b.origins = append(b.origins, sources.Origin{Partition: name, Offset: rec.Offset})
	}
}

// alloc returns n zeroed Datums from the arena, capped so that appending
// to the row cannot spill into its neighbour.
func (b *batchBuilder) alloc(n int) []types.Datum {
	if len(b.arena) < n {
		b.arena = make([]types.Datum, max(b.next, n))
		b.next = min(2*b.next, b.max)
	}
	r := b.arena[:n:n]
	b.arena = b.arena[n:]
	return r
}

// noteRecord records that rec is part of the batch, whatever became of
// it: its offset advances the partition's progress.
func (b *batchBuilder) noteRecord(rec *kgo.Record) {
	b.records++
	b.bytes += len(rec.Key) + len(rec.Value)
	b.progress[rec.Partition] = rec.Offset + 1
	if rec.Timestamp.After(b.latest) {
		b.latest = rec.Timestamp
	}
}

// deadLetter adds rec as a record that failed to decode. Its Time stays
// zero: the errors relation records when the record was ingested, which the
// engine stamps when it commits the batch, not when it was produced.
func (b *batchBuilder) deadLetter(rec *kgo.Record, err error) sources.DeadLetter {
	dl := sources.DeadLetter{
		Partition: strconv.Itoa(int(rec.Partition)),
		Offset:    rec.Offset,
		Key:       bytes.Clone(rec.Key),
		Value:     bytes.Clone(rec.Value),
		Err:       errorText(err),
	}
	b.dead = append(b.dead, dl)
	return dl
}

func (b *batchBuilder) empty() bool { return b.records == 0 }

// take returns the gathered batch and resets the builder.
func (b *batchBuilder) take() *sources.Batch {
	batch := &sources.Batch{
		Changes:     [][]sources.Change{b.changes},
		Origins:     [][]sources.Origin{b.origins},
		DeadLetters: b.dead,
		Progress:    make(map[string][]byte, len(b.progress)),
		Time:        b.latest,
	}
	for p, off := range b.progress {
		batch.Progress[strconv.Itoa(int(p))] = encodePosition(off)
	}
	b.changes = make([]sources.Change, 0, len(b.changes))
	b.origins = make([]sources.Origin, 0, len(b.origins))
	b.dead = nil
	clear(b.progress)
	b.arena, b.next = nil, minArena
	b.records, b.bytes, b.latest = 0, 0, time.Time{}
	return batch
}

// errorText is err's message with PostgreSQL's detail line, if any,
// appended: a dead letter has one text field, and for JSON syntax errors
// the detail is the useful part.
func errorText(err error) string {
	if e := pgerr.As(err); e != nil && e.Detail != "" {
		return err.Error() + ": " + e.Detail
	}
	return err.Error()
}
