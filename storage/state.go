package storage

import (
	"encoding/binary"
	"slices"

	"github.com/cockroachdb/pebble/v2"
)

// The persisted state of a maintained dataflow (a materialized view's or
// an index's operators) lives under 's' and the flow's id, in keys the
// dataflow chooses; its header, which says what the state is, under 'h'
// and the id. Writing a flow's state in the tick's batch keeps it at the
// tick of the data it was computed from.

// PutState writes a key of flow's state. The write is staged, and goes
// into the batch in key order when it commits (see state_sort.go).
func (b *Batch) PutState(flow uint64, key, value []byte) {
	b.key = append(binary.BigEndian.AppendUint64(append(b.key[:0], prefixState), flow), key...)
	b.stage().add(b.key, value, false)
}

// DeleteState deletes a key of flow's state; the deletion is staged as
// PutState's writes are.
func (b *Batch) DeleteState(flow uint64, key []byte) {
	b.key = append(binary.BigEndian.AppendUint64(append(b.key[:0], prefixState), flow), key...)
	b.stage().add(b.key, nil, true)
}

// DeleteStateRange deletes the keys of flow's state in [start, end).
func (b *Batch) DeleteStateRange(flow uint64, start, end []byte) {
	p := statePrefix(flow)
	b.flushStaged()
	b.deleteRange(append(slices.Clip(p), start...), append(slices.Clip(p), end...))
}

// DropState deletes flow's state and header.
func (b *Batch) DropState(flow uint64) {
	p := statePrefix(flow)
	b.flushStaged()
	b.deleteRange(p, prefixEnd(p))
	_ = b.b.Delete(headerKey(flow), nil)
}

// DropAllState deletes the state and header of every flow.
func (b *Batch) DropAllState() {
	b.flushStaged()
	for _, p := range []byte{prefixState, prefixHeader} {
		b.deleteRange([]byte{p}, []byte{p + 1})
	}
}

// PutStateHeader writes the header of flow's state.
func (b *Batch) PutStateHeader(flow uint64, header []byte) {
	_ = b.b.Set(headerKey(flow), header, nil)
}

// StateHeader returns the header of flow's state.
func (db *DB) StateHeader(flow uint64) ([]byte, bool, error) { return db.get(headerKey(flow)) }

// StateHeaders calls fn for every flow's header, in id order.
func (db *DB) StateHeaders(fn func(flow uint64, header []byte) error) error {
	return db.scanPrefix([]byte{prefixHeader}, func(k, v []byte) error {
		if len(k) != 9 {
			return nil
		}
		return fn(binary.BigEndian.Uint64(k[1:]), v)
	})
}

// StateFlows calls fn for every flow that has state, in id order.
func (db *DB) StateFlows(fn func(flow uint64) error) error {
	it, err := db.pdb.NewIter(&pebble.IterOptions{LowerBound: []byte{prefixState}, UpperBound: []byte{prefixState + 1}})
	if err != nil {
		return err
	}
	for valid := it.First(); valid; {
		k := it.Key()
		if len(k) < 9 {
			valid = it.Next()
			continue
		}
		flow := binary.BigEndian.Uint64(k[1:9])
		if err := fn(flow); err != nil {
			it.Close()
			return err
		}
		valid = it.SeekGE(prefixEnd(statePrefix(flow)))
	}
	if err := it.Error(); err != nil {
		it.Close()
		return err
	}
	return it.Close()
}

// ScanState calls fn, in key order, for every key of flow's state that
// starts with prefix, with the key past the flow's own prefix. key and
// value are only valid during the call.
func (db *DB) ScanState(flow uint64, prefix []byte, fn func(key, value []byte) error) error {
	p := statePrefix(flow)
	lo := append(slices.Clip(p), prefix...)
	return db.scanBounds(lo, prefixEnd(lo), func(k, v []byte) error { return fn(k[len(p):], v) })
}

// CollectionSize estimates the bytes coll's rows take on disk.
func (db *DB) CollectionSize(coll uint64) (uint64, error) {
	p := collPrefix(coll)
	return db.pdb.EstimateDiskUsage(p, prefixEnd(p))
}

// StateSize estimates the bytes flow's state takes on disk.
func (db *DB) StateSize(flow uint64) (uint64, error) {
	p := statePrefix(flow)
	return db.pdb.EstimateDiskUsage(p, prefixEnd(p))
}

func statePrefix(flow uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{prefixState}, flow)
}

func headerKey(flow uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{prefixHeader}, flow)
}

// StateProgress estimates how far into flow's state key (a key past the
// flow's prefix, as ScanState gives it) is: the fraction of the state's
// bytes on disk before it.
func (db *DB) StateProgress(flow uint64, key []byte) float64 {
	p := statePrefix(flow)
	total, err := db.pdb.EstimateDiskUsage(p, prefixEnd(p))
	if err != nil || total == 0 {
		return 0
	}
	done, err := db.pdb.EstimateDiskUsage(p, append(slices.Clip(p), key...))
	if err != nil {
		return 0
	}
	return min(float64(done)/float64(total), 1)
}
