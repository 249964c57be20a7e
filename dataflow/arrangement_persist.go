package dataflow

import (
	"encoding/binary"
)

// An arrangement persists its rows one entry each, in the bucket of their
// key (see persist.go), under
//
//	[klen uvarint][key][0][row] → multiplicity (varint)
//	[klen uvarint][key][1][ordinal 4 bytes] → multiplicity, row
//
// The first form holds a row's whole multiplicity: a packed key's rows
// and an indexed bucket's, whose multiplicity update knows. A bucket
// without an index (a hot key of an append-only input) appends a new
// entry for every insertion without looking the row up, so the row may
// already have entries; such an entry is persisted under the next
// ordinal of its bucket instead, in the second form, and the row's
// multiplicity is the sum of its entries of both forms, as in memory.
// When the bucket builds its index (its first retraction) it merges
// each row's entries, and its persisted ordinals are replaced by one
// entry of the first form per row. A key's entries are contiguous and
// come in the order its bucket holds them, so that restore rebuilds the
// same structure: packed, or a bucket with or without index.

// persistAs makes the arrangement persist its changes as structure sub
// of k.
func (a *arrangement) persistAs(k *stateKeys, sub byte) { a.ps, a.sub = k, sub }

// keyStart begins the persisted key of an entry of key, up to its form.
func (a *arrangement) keyStart(key []byte, form byte) []byte {
	k := a.ps.start(a.sub, key)
	k = appendLen(k, key)
	k = append(k, form)
	a.ps.key = k
	return k
}

// persistRow records that row has multiplicity n under key (none at 0).
func (a *arrangement) persistRow(key, row []byte, n int64) {
	k := append(a.keyStart(key, 0), row...)
	a.ps.key = k
	if n == 0 {
		a.ps.del(k)
		return
	}
	a.ps.val = binary.AppendVarint(a.ps.val[:0], n)
	a.ps.set(k, a.ps.val)
}

// persistAppend records the entry an unindexed bucket of key appended
// as its ordinal-th.
func (a *arrangement) persistAppend(key []byte, ordinal uint32, row []byte, n int64) {
	k := binary.BigEndian.AppendUint32(a.keyStart(key, 1), ordinal)
	a.ps.key = k
	a.ps.val = append(binary.AppendVarint(a.ps.val[:0], n), row...)
	a.ps.set(k, a.ps.val)
}

// persistIndexed replaces the persisted entries of key's bucket, which
// has just built its index, by one entry per row.
func (a *arrangement) persistIndexed(key []byte, b *bucket) {
	a.ps.delPrefix(a.keyStart(key, 1))
	for it := (rows{packed: b.data}); it.next(); {
		a.persistRow(key, it.row, it.n)
	}
}

// restore loads the arrangement persisted as structure sub of k.
func (a *arrangement) restore(r StateReader) error {
	var cur arrangedKey
	err := a.ps.scan(r, a.sub, true, func(k, v []byte) error {
		key, rest, err := readLen(k)
		if err != nil || len(rest) == 0 {
			return errCorruptState
		}
		if string(key) != string(cur.key) {
			a.load(&cur)
			cur.reset(key)
		}
		var n int64
		switch rest[0] {
		case 0:
			if n, _, err = readVarint(v); err != nil {
				return err
			}
			cur.data = appendEntry(cur.data, rest[1:], n)
			cur.rows++
		case 1:
			if len(rest) != 5 {
				return errCorruptState
			}
			n, row, err := readVarint(v)
			if err != nil {
				return err
			}
			cur.data = appendEntry(cur.data, row, n)
			cur.ordinals = binary.BigEndian.Uint32(rest[1:]) + 1
			cur.appended = true
		default:
			return errCorruptState
		}
		return nil
	})
	if err != nil {
		return err
	}
	a.load(&cur)
	return nil
}

// arrangedKey gathers the persisted entries of one key during restore.
type arrangedKey struct {
	key      []byte
	data     []byte // the entries, as a packed value or bucket holds them
	rows     int    // entries of the first form
	appended bool   // whether there are entries of the second form
	ordinals uint32 // the ordinal after the last
}

func (c *arrangedKey) reset(key []byte) {
	c.key = append(c.key[:0], key...)
	c.data = c.data[:0]
	c.rows, c.appended, c.ordinals = 0, false, 0
}

// load installs a restored key: packed when its rows fit and none was
// appended, else in a bucket, indexed unless entries were appended.
func (a *arrangement) load(c *arrangedKey) {
	if len(c.data) == 0 {
		return
	}
	h := a.tab.hash(c.key)
	if !c.appended && c.rows <= packedMax {
		a.scratch = append(append(a.scratch[:0], packedMarker), c.data...)
		a.tab.insert(c.key, h, a.scratch)
		return
	}
	b := &bucket{data: append(make([]byte, 0, len(c.data)+len(c.data)/4), c.data...), appends: c.ordinals}
	for it := (rows{packed: b.data}); it.next(); {
		b.live++
	}
	if !c.appended {
		b.index = make(map[string]int, b.live)
		for off := 0; off < len(b.data); {
			l, k := binary.Uvarint(b.data[off+8:])
			size := 8 + k + int(l)
			row := string(b.data[off+8+k : off+size])
			b.index[row] = off
			b.keys += int64(len(row))
			off += size
		}
	}
	num := uint32(len(a.buckets))
	if n := len(a.free); n > 0 {
		num = a.free[n-1]
		a.free = a.free[:n-1]
		a.buckets[num] = b
	} else {
		a.buckets = append(a.buckets, b)
	}
	a.bucketBytes += b.size()
	a.scratch = binary.LittleEndian.AppendUint32(append(a.scratch[:0], bucketMarker), num)
	a.tab.insert(c.key, h, a.scratch)
}
