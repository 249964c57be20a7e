package storage

import (
	"encoding/binary"
	"slices"

	"github.com/cockroachdb/pebble/v2"
)

// Batch collects the writes of one tick. It is not safe for concurrent use.
type Batch struct {
	db  *DB
	b   *pebble.Batch
	key []byte // scratch for key building; Pebble copies keys on Set
	// rangeDels counts the batch's range deletions (see
	// DB.noteRangeDels).
	rangeDels int
	// staged holds the state writes not yet in b (see state_sort.go),
	// nil until the first.
	staged *stage
}

// NewBatch starts an empty batch.
func (db *DB) NewBatch() *Batch {
	return &Batch{db: db, b: db.pdb.NewBatch()}
}

// NewBatchSized starts an empty batch with room for size bytes of
// writes, so that a batch whose size is known roughly in advance (a
// source's ticks are alike) is not copied every time it doubles. Its
// buffer, up to maxRetainedBatch, goes back to Pebble's batch pool when
// the batch ends, for the next tick: a fresh multi-megabyte buffer per
// tick costs its page faults again each time, and they are most of what
// writing a large batch costs on a machine where a fault is expensive.
func (db *DB) NewBatchSized(size int) *Batch {
	return &Batch{db: db, b: db.pdb.NewBatchWithSize(size, pebble.WithMaxRetainedSizeBytes(maxRetainedBatch))}
}

// maxRetainedBatch bounds the buffer a sized batch leaves for reuse: a
// source tick's batch at saturation is a few megabytes.
const maxRetainedBatch = 16 << 20

// PutCatalog stores a catalog entry.
func (b *Batch) PutCatalog(id uint64, data []byte) {
	b.key = binary.BigEndian.AppendUint64(append(b.key[:0], prefixCatalog), id)
	_ = b.b.Set(b.key, data, nil)
}

// DeleteCatalog removes a catalog entry.
func (b *Batch) DeleteCatalog(id uint64) {
	b.key = binary.BigEndian.AppendUint64(append(b.key[:0], prefixCatalog), id)
	_ = b.b.Delete(b.key, nil)
}

// Put writes a row of collection coll.
func (b *Batch) Put(coll uint64, key, value []byte) {
	b.key = append(binary.BigEndian.AppendUint64(append(b.key[:0], prefixData), coll), key...)
	_ = b.b.Set(b.key, value, nil)
}

// Delete removes a row of collection coll.
func (b *Batch) Delete(coll uint64, key []byte) {
	b.key = append(binary.BigEndian.AppendUint64(append(b.key[:0], prefixData), coll), key...)
	_ = b.b.Delete(b.key, nil)
}

// DeleteRange removes the rows of collection coll whose keys lie in
// [start, end).
func (b *Batch) DeleteRange(coll uint64, start, end []byte) {
	p := collPrefix(coll)
	b.deleteRange(append(slices.Clip(p), start...), append(slices.Clip(p), end...))
}

// DropCollection removes every row of collection coll.
func (b *Batch) DropCollection(coll uint64) {
	p := collPrefix(coll)
	b.deleteRange(p, prefixEnd(p))
}

// SetMeta stores a metadata value.
func (b *Batch) SetMeta(name string, value []byte) {
	_ = b.b.Set(metaKey(name), value, nil)
}

// DeleteMeta removes a metadata value.
func (b *Batch) DeleteMeta(name string) {
	_ = b.b.Delete(metaKey(name), nil)
}

// SetPosition stores source's resume position for one partition.
func (b *Batch) SetPosition(source uint64, part string, pos []byte) {
	b.key = append(append(b.key[:0], posPrefix(source)...), part...)
	_ = b.b.Set(b.key, pos, nil)
}

// DropPositions removes every stored position of source.
func (b *Batch) DropPositions(source uint64) {
	p := posPrefix(source)
	b.deleteRange(p, prefixEnd(p))
}

// Empty reports whether the batch holds no writes.
func (b *Batch) Empty() bool { return b.b.Empty() && (b.staged == nil || len(b.staged.writes) == 0) }

// Len returns the encoded size of the batch in bytes (of its staged
// state writes, an estimate).
func (b *Batch) Len() int {
	if b.staged == nil {
		return b.b.Len()
	}
	return b.b.Len() + b.staged.bytes()
}

// Commit writes the batch atomically and waits until it is durable. The
// batch cannot be used afterwards.
func (b *Batch) Commit() error {
	defer b.close()
	b.flushStaged()
	return b.committed(b.b.Commit(pebble.Sync))
}

// CommitUnsynced writes the batch atomically without waiting for the
// disk: it survives the process but not the machine crashing, until the
// next synced commit, which makes it durable too (the log is written in
// order).
func (b *Batch) CommitUnsynced() error {
	defer b.close()
	b.flushStaged()
	return b.committed(b.b.Commit(pebble.NoSync))
}

// deleteRange deletes the keys in [start, end), counting the deletion.
func (b *Batch) deleteRange(start, end []byte) {
	_ = b.b.DeleteRange(start, end, nil)
	b.rangeDels++
}

// committed tells the store of the range deletions a batch committed.
func (b *Batch) committed(err error) error {
	if err == nil && b.rangeDels > 0 {
		b.db.noteRangeDels(b.rangeDels)
	}
	return err
}

// Discard drops the batch without writing it.
func (b *Batch) Discard() { b.close() }

// close releases the batch's resources.
func (b *Batch) close() {
	_ = b.b.Close()
	if b.staged != nil {
		b.staged.release()
		b.staged = nil
	}
}

// DeleteMeta removes a metadata value.
