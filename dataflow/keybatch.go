package dataflow

import "github.com/streamdb/streamdb/types"

// keyBatch holds the encoded keys and hashes of a chunk of updates, so
// that an operator can touch the table slots of all of them before
// processing any (see table.touch): on a large state the chunk's cache
// misses then overlap instead of each stalling the loop in turn.
type keyBatch struct {
	buf    []byte
	starts []int32
	ends   []int32 // -1 when the key has a NULL
	hs     []uint64
	sink   byte
}

// keyBatchSize is the chunk size: enough independent misses to keep the
// memory system busy, few enough to stay in the CPU's out-of-order window
// and L1.
const keyBatchSize = 64

// load encodes and hashes the keys of chunk.
func (kb *keyBatch) load(chunk Batch, keyFn KeyFunc, tab *table) {
	kb.buf = kb.buf[:0]
	kb.starts = kb.starts[:0]
	kb.ends = kb.ends[:0]
	kb.hs = kb.hs[:0]
	for _, u := range chunk {
		start := int32(len(kb.buf))
		key, ok := evalKey(keyFn, u.Row)
		if !ok {
			kb.starts = append(kb.starts, start)
			kb.ends = append(kb.ends, -1)
			kb.hs = append(kb.hs, 0)
			continue
		}
		kb.buf = types.AppendKeyRow(kb.buf, key)
		kb.starts = append(kb.starts, start)
		kb.ends = append(kb.ends, int32(len(kb.buf)))
		kb.hs = append(kb.hs, tab.hash(kb.buf[start:]))
	}
}

// touch reads the slots and records of every key in the given tables.
func (kb *keyBatch) touch(tabs ...*table) {
	for j, h := range kb.hs {
		if kb.ends[j] < 0 {
			continue
		}
		for _, t := range tabs {
			kb.sink += t.touch(h)
		}
	}
}

// touchStrings reads the first and last byte of each string of the
// chunk's rows in cols (every column when cols is nil), for a caller
// about to copy them: the rows of a source's tick were made a tick's
// worth of bytes ago, and copying each row's strings in turn (a bid's
// channel and url, as a join stores it) waited on one cache miss after
// another. Read together, the misses overlap.
func (kb *keyBatch) touchStrings(chunk Batch, cols []int) {
	for i := range chunk {
		r := chunk[i].Row
		if cols == nil {
			for c := range r {
				kb.touchString(r[c])
			}
			continue
		}
		for _, c := range cols {
			kb.touchString(r[c])
		}
	}
}

func (kb *keyBatch) touchString(d types.Datum) {
	if s := d.Str(); len(s) > 0 {
		kb.sink += s[0] + s[len(s)-1]
	}
}

// get returns key j, its hash, and false if it has a NULL.
func (kb *keyBatch) get(j int) ([]byte, uint64, bool) {
	if kb.ends[j] < 0 {
		return nil, 0, false
	}
	return kb.buf[kb.starts[j]:kb.ends[j]], kb.hs[j], true
}

// wholeRow is the KeyFunc of operators keyed by the entire row.
func wholeRow(r types.Row) (types.Row, bool) { return r, true }
