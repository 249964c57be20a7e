package engine

import (
	"encoding/binary"
	"fmt"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// A cold relation's rows are stored in chunks: consecutive row ids of one
// tick under a single store key, the id of the chunk's last row. Pebble's
// cost is mostly per key (the memtable's skiplist, each sstable's block
// entries, every compaction's merge), and a source's rows are small and
// only ever appended and read in order: one key per ~16 kB instead of one
// per ~150-byte row takes most of that cost off ingestion.
// Keying a chunk by its last id keeps the greatest key the greatest row
// id, which is how recovery finds where the ids end, and makes a point
// read one seek to the first key at or after the id.
//
// A chunk's value is coldChunkTag, then each row as its length (uvarint)
// and its value encoding. A value without the tag is a single row stored
// under its own id, as stores written before chunks hold: its encoding
// starts with the row's column count, never 0 for a source relation.
const (
	coldChunkTag   = 0
	coldChunkBytes = 16 << 10
)

// appendCold appends the inserted rows of changes to cold relation t, in
// chunks of at most coldChunkBytes (or one row), appending them to d as
// insertions. A cold relation never retracts: its rows are not kept
// anywhere a retraction could find them.
func appendCold(rs *runningSource, t *tableState, changes []sources.Change, batch *storage.Batch, d dataflow.Batch) (dataflow.Batch, error) {
	chunk, row := rs.keyBuf[:0], rs.valBuf[:0]
	var key [8]byte
	put := func() {
		binary.BigEndian.PutUint64(key[:], uint64(t.nextRowID-1))
		batch.Put(t.obj.ID, key[:], chunk)
		chunk = chunk[:0]
	}
	for _, ch := range changes {
		if ch.Diff < 0 {
			return d, fmt.Errorf("source relation %s is kept in storage only, but its source retracted a row", t.obj.Name)
		}
		for n := ch.Diff; n > 0; n-- {
			row = types.AppendRow(row[:0], ch.Row)
			if len(chunk) > 0 && len(chunk)+binary.MaxVarintLen32+len(row) > coldChunkBytes {
				put()
			}
			if len(chunk) == 0 {
				chunk = append(chunk, coldChunkTag)
			}
			chunk = binary.AppendUvarint(chunk, uint64(len(row)))
			chunk = append(chunk, row...)
			t.nextRowID++
			d = append(d, dataflow.Update{Row: ch.Row, Diff: 1})
		}
	}
	if len(chunk) > 0 {
		put()
	}
	t.snap = nil
	rs.keyBuf, rs.valBuf = chunk, row
	return d, nil
}

// coldRows calls fn with the id and value encoding of each row of a
// stored cold value (a chunk, or a single row) whose store key is key,
// in id order, until fn returns false.
func coldRows(key, val []byte, fn func(id int64, row []byte) bool) error {
	last := rowIDOf(string(key))
	if len(val) < 2 || val[0] != coldChunkTag {
		fn(last, val)
		return nil
	}
	// The first id is the last minus the rows after it: count them.
	n := int64(0)
	for rest := val[1:]; len(rest) > 0; n++ {
		l, k := binary.Uvarint(rest)
		if k <= 0 || l > uint64(len(rest)-k) {
			return fmt.Errorf("corrupt chunk under row id %d", last)
		}
		rest = rest[k+int(l):]
	}
	id := last - n + 1
	for rest := val[1:]; len(rest) > 0; id++ {
		l, k := binary.Uvarint(rest)
		if !fn(id, rest[k:k+int(l)]) {
			return nil
		}
		rest = rest[k+int(l):]
	}
	return nil
}

// scanCold is scanRange over a cold relation's rows in the store: from
// the chunk holding start, until end or the snapshot's end.
func (s *TableSnap) scanCold(start, end string, dec *RowReader, fn func(key string, row types.Row) bool) error {
	if limit := rowIDKey(s.end); end == "" || end > limit {
		end = limit
	}
	var derr error
	return s.store.ScanRange(s.obj.ID, []byte(start), nil, func(k, v []byte) error {
		stop := false
		err := coldRows(k, v, func(id int64, enc []byte) bool {
			key := rowIDKey(id)
			if key < start {
				return true
			}
			if key >= end {
				stop = true
				return false
			}
			row, err := dec.Decode(enc)
			if err != nil {
				derr = fmt.Errorf("table %s: corrupt row: %w", s.obj.Name, err)
				return false
			}
			stop = !fn(key, row)
			return !stop
		})
		switch {
		case err != nil:
			return fmt.Errorf("table %s: %w", s.obj.Name, err)
		case derr != nil:
			return derr
		case stop:
			return storage.ErrStop
		}
		return nil
	})
}

// getCold returns the row of a cold relation stored under the row id key.
func (s *TableSnap) getCold(key string) (types.Row, bool, error) {
	if len(key) != 8 || rowIDOf(key) >= s.end {
		return nil, false, nil
	}
	var row types.Row
	found := false
	err := s.scanCold(key, rowIDKey(rowIDOf(key)+1), nil, func(_ string, r types.Row) bool {
		row, found = r, true
		return false
	})
	return row, found, err
}
