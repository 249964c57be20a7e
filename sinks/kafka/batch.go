package kafka

import (
	"slices"
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
// neighbour), and the records' fields live in one slice, so that
// building a batch allocates per chunk and per slice growth, not per
// record.
type recordBatch struct {
	topic string
	items []item
	// recs are the kgo records of the current attempt at the
	// transaction, built from items.
	recs  []kgo.Record
	arena []byte
	// header is the current tick's timestamp header, shared by its
	// records.
	header []kgo.RecordHeader
	// time is the last tick's time.
	time uint64
}

// item is one record: its key, value (nil for null) and headers.
type item struct {
	key, value []byte
	header     []kgo.RecordHeader
}

// reset empties the batch for the next transaction. Once a transaction
// is flushed franz-go holds none of its records, so their memory (the
// record slice, the last chunk of the arena) is reused.
func (b *recordBatch) reset() {
	clear(b.items)
	b.items = b.items[:0]
	clear(b.recs)
	b.recs = b.recs[:0]
	b.arena = b.arena[:0]
	b.header = nil
}

// records returns the kgo records of an attempt at the batch's
// transaction.
func (b *recordBatch) records() []kgo.Record {
	b.recs = slices.Grow(b.recs[:0], len(b.items))[:len(b.items)]
	for i, it := range b.items {
		b.recs[i] = kgo.Record{Topic: b.topic, Key: it.key, Value: it.value, Headers: it.header}
	}
	return b.recs
}

// abandon gives up the records of a failed attempt: the goroutines of
// the producer that failed may still be finishing them, so they are
// neither read nor reused, and neither is their arena chunk. The items
// stay; the next attempt gets new records (franz-go stamps the records
// it produces, and an old timestamp would count against the delivery
// timeout).
func (b *recordBatch) abandon() {
	b.recs, b.arena = nil, nil
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
	b.items = append(b.items, item{key: key, value: value, header: b.header})
}
