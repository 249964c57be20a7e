package kafka

import (
	"strconv"

	"github.com/twmb/franz-go/pkg/kgo"
)

// arenaChunk is the size of the buffers record keys and values are
// encoded into: one allocation per chunk rather than per record.
const arenaChunk = 1 << 20

// timestampHeader carries a record's tick time, as Materialize's
// materialize-timestamp header does, so consumers can tell which records
// changed together.
const timestampHeader = "streamdb-timestamp"

// recordBatch gathers the records of one transaction. Keys and values
// are slices of shared chunks (capped, so that nothing appends into a
// neighbour); records are values in one slice, so that building a batch
// allocates per chunk and per slice growth, not per record.
type recordBatch struct {
	topic string
	recs  []kgo.Record
	arena []byte
	// header is the current tick's timestamp header, shared by its
	// records.
	header []kgo.RecordHeader
	// time is the last tick's time.
	time uint64
}

func (b *recordBatch) reset() {
	clear(b.recs)
	b.recs = b.recs[:0]
	b.arena = nil
	b.header = nil
}

// startTick makes the following records carry tick time t.
func (b *recordBatch) startTick(t uint64) {
	b.time = t
	b.header = []kgo.RecordHeader{{Key: timestampHeader, Value: strconv.AppendUint(nil, t, 10)}}
}

// buf returns the arena to append an encoding to, with room for a
// typical record.
func (b *recordBatch) buf() []byte {
	if cap(b.arena)-len(b.arena) < 4<<10 {
		b.arena = make([]byte, 0, arenaChunk)
	}
	return b.arena
}

// take ends an encoding appended to buf()'s result: it keeps the grown
// arena and returns the encoded bytes, or nil when ok is false (a null
// key or value). An encoding that outgrew the chunk moved it, earlier
// bytes included; the records holding those keep the old copy.
func (b *recordBatch) take(grown []byte, ok bool) []byte {
	start := len(b.arena)
	b.arena = grown
	if !ok {
		return nil
	}
	return grown[start:len(grown):len(grown)]
}

// add appends a record.
func (b *recordBatch) add(key, value []byte) {
	b.recs = append(b.recs, kgo.Record{Topic: b.topic, Key: key, Value: value, Headers: b.header})
}
