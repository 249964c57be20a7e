package dataflow

import (
	"context"
	"encoding/binary"
	"slices"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// An Output persists its rows as structure 0, in key order without a
// bucket (see persist.go): the item's ordering key → multiplicity
// (varint), then the row's stored form unless the key determines it. A
// row's key encoding determines its stored form when every column is of
// a type whose key encoding loses nothing (see keyDetermines): integers,
// timestamps, strings, and numerics without trailing zeros; restore then
// decodes the key. Persisted with both, a view that keeps every event
// wrote each row twice, and paid Pebble for each byte in the log, the
// memtable, the flush and every compaction: Nexmark q0's state was 1.5
// times as large, q20's 1.8 times. An Index persists the stored form
// always (its key starts with the index key). A grouped Output persists
// no rows: they are its Reduce's, which rebuilds them. Every Output
// persists its error collection as structure 1: the error's SQLSTATE,
// message, detail and hint (each length-prefixed) → its weight (varint).

// persistAs makes the Output persist its changes through k.
func (o *Output) persistAs(k *stateKeys) {
	o.sk = k
	o.m.sk = k
	o.m.index = o.key != nil
}

// storedDetermined reports whether the key of a present item determines
// its stored form, which may differ from a later change's row (numeric
// 1.0 and 1.00).
func (m *itemMerger) storedDetermined(it item) bool {
	if m.index {
		return false
	}
	row, err := decodeRowValue(stored(it.val()), m.row)
	m.row = row
	return err == nil && keyDetermines(row)
}

// persist records an item's multiplicity (none at 0); determined says
// whether its key determines its stored form (always false in an Index).
func (m *itemMerger) persist(it item, determined bool) {
	k := append(m.sk.startOrdered(0), it.key()...)
	m.sk.key = k
	if it.n == 0 {
		m.sk.del(k)
		return
	}
	m.sk.val = binary.AppendVarint(m.sk.val[:0], it.n)
	if !determined {
		m.sk.val = append(m.sk.val, it.val()...)
	}
	m.sk.set(k, m.sk.val)
}

// keyDetermines reports whether row's key encoding determines its stored
// form: whether every column decodes from the key as it was (see
// types.AppendKey for what a key loses). Numerics qualify without
// trailing zeros in their coefficient (1.50 decodes as 1.5), or as a
// zero of scale 0; NULL and types whose key is the value itself always.
func keyDetermines(row types.Row) bool {
	for _, d := range row {
		switch d.Kind() {
		case types.Unknown, types.Bool, types.Int2, types.Int4, types.Int8, types.Oid,
			types.Date, types.Time, types.Timestamp, types.TimestampTZ,
			types.Text, types.Varchar, types.Name, types.Bytea, types.JSON, types.UUID:
		case types.Numeric:
			coef, exp, ok := d.NumericCoef()
			if !ok || coef%10 == 0 && (coef != 0 || exp != 0) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// decodeKeyRow decodes a row's key encoding into dst's storage.
func decodeKeyRow(key []byte, dst types.Row) (types.Row, error) {
	dst = dst[:0]
	for len(key) > 0 {
		d, rest, err := types.DecodeKey(key, false)
		if err != nil {
			return nil, err
		}
		dst = append(dst, d)
		key = rest
	}
	return dst, nil
}

// persistErrors records the weights the tick's error delta changed, as
// they are in the merged collection.
func (o *Output) persistErrors() {
	o.sk.persistErrors(1, o.deltaErrs, func(err *pgerr.Error) int64 {
		i, found := slices.BinarySearchFunc(o.errs, err, func(e ErrorUpdate, t *pgerr.Error) int { return compareErrors(e.Err, t) })
		if !found {
			return 0
		}
		return o.errs[i].Diff
	})
}

// appendErrorKey appends the fields that make errors equal.
func appendErrorKey(dst []byte, e *pgerr.Error) []byte {
	dst = appendLen(dst, []byte(e.Code))
	dst = appendLen(dst, []byte(e.Message))
	dst = appendLen(dst, []byte(e.Detail))
	return appendLen(dst, []byte(e.Hint))
}

// readErrorKey decodes appendErrorKey's encoding.
func readErrorKey(src []byte) (*pgerr.Error, error) {
	var f [4][]byte
	var err error
	for i := range f {
		if f[i], src, err = readLen(src); err != nil {
			return nil, err
		}
	}
	return &pgerr.Error{Code: pgerr.Code(f[0]), Message: string(f[1]), Detail: string(f[2]), Hint: string(f[3])}, nil
}

func (op *outputOp) persists() error { return nil }

func (op *outputOp) stateShape() string {
	switch {
	case op.derived:
		return "derived"
	case op.o.red != nil:
		return "grouped/1 errors/1"
	case op.o.key != nil:
		return "indexed/1 errors/1"
	}
	return "rows/2 errors/1"
}

// restoreChunk is how many rows a restore merges into the tree at once:
// enough that a merge builds whole leaves, few enough that the rows
// waiting to be merged are a small part of the memory.
const restoreChunk = 4096

func (op *outputOp) restore(_ context.Context, r StateReader) error {
	if op.derived {
		return nil
	}
	o := op.o
	if o.red != nil {
		// The Reduce restored before and listed its groups as new; their
		// errors are persisted here, not taken from the Reduce.
		o.in.errs = o.in.errs[:0]
		o.stepGroups()
		o.delta = nil
	} else if err := o.restoreRows(r); err != nil {
		return err
	}
	var errs []ErrorUpdate
	err := o.sk.scan(r, 1, false, func(k, v []byte) error {
		e, err := readErrorKey(k)
		if err != nil {
			return err
		}
		n, _, err := readVarint(v)
		if err != nil {
			return err
		}
		errs = append(errs, ErrorUpdate{Err: e, Diff: n})
		return nil
	})
	if err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.errs = ConsolidateErrors(errs)
	return nil
}

// restoreRows loads an Output's rows, in order, a chunk at a time.
func (o *Output) restoreRows(r StateReader) error {
	var w treeWriter[item, item]
	l := &itemLoader{}
	w.m = l
	chunk := make([]item, 0, restoreChunk)
	flush := func() {
		o.mu.Lock()
		w.apply(&o.tree, chunk)
		o.mu.Unlock()
		clear(chunk)
		chunk = chunk[:0]
	}
	var dec types.Row
	err := o.sk.scan(r, 0, false, func(k, v []byte) error {
		n, row, err := readVarint(v)
		if err != nil {
			return err
		}
		kv := make([]byte, 0, 2*len(k)+len(row))
		kv = append(kv, k...)
		if len(row) == 0 && o.key == nil {
			if dec, err = decodeKeyRow(k, dec); err != nil {
				return err
			}
			kv = appendRowValue(kv, dec)
		}
		kv = append(kv, row...)
		chunk = append(chunk, item{kv: keyString(kv), klen: len(k), n: n})
		l.bytes += sizeItem + int64(len(kv))
		if len(chunk) == restoreChunk {
			flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	flush()
	o.mu.Lock()
	o.bytes += l.bytes
	o.mu.Unlock()
	return nil
}

// itemLoader is the merger of a restore: every item is new.
type itemLoader struct{ bytes int64 }

func (l *itemLoader) key(c *item) string { return c.key() }

func (l *itemLoader) update(_ item, c *item) (item, bool) { return *c, true }

func (l *itemLoader) insert(c *item) (item, bool) { return *c, true }
