package dataflow

import (
	"encoding/binary"
)

// An arrangement persists its rows in the bucket of their key (see
// persist.go), under
//
//	[klen uvarint][key][0][row] → multiplicity (varint)
//	[klen uvarint][key][1][ordinal 4 bytes] → entries: for each,
//	    multiplicity (varint), row (length-prefixed)
//
// The first form holds a row's whole multiplicity: a packed key's rows
// and an indexed bucket's, whose multiplicity update knows. A bucket
// without an index (a hot key of an append-only input) appends a new
// entry for every insertion without looking the row up, so the row may
// already have entries; the entries a tick appends to such a bucket are
// persisted at the tick's end, together, in one entry of the second
// form under the ordinal of the first of them (its bucket counts the
// entries it appends), and a row's multiplicity is the sum of its
// entries of both forms, as in memory. One entry per hot key and tick
// instead of one per row: the bids of a tick crowd on few auctions, and
// every entry costs Pebble its key and its place in the memtable, the
// log and every compaction. When the bucket builds its index (its first
// retraction) it merges each row's entries, and its persisted ordinals
// are replaced by one entry of the first form per row. A key's entries
// are contiguous and come in the order its bucket holds them, so that
// restore rebuilds the same structure: packed, or a bucket with or
// without index.

// appendedKey is a bucket with entries appended in the current tick, and
// its key, at [from, to) of the arrangement's appendedKeys.
type appendedKey struct {
	b        *bucket
	from, to int
}

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
	a.ps.setCount(k, n)
}

// persistAppend notes that bucket b of key appended an entry at offset
// at of its data, its ordinal-th; flushAppends persists the tick's.
func (a *arrangement) persistAppend(key []byte, b *bucket, ordinal uint32, at int) {
	if b.pending {
		return
	}
	b.pending, b.pendAt, b.pendOrd = true, at, ordinal
	from := len(a.appendedKeys)
	a.appendedKeys = append(a.appendedKeys, key...)
	a.appended = append(a.appended, appendedKey{b: b, from: from, to: len(a.appendedKeys)})
	if len(a.appended) == 1 {
		a.ps.g.appending = append(a.ps.g.appending, a)
	}
}

// flushAppends persists the entries the tick appended to buckets without
// index, one entry of the second form per bucket.
func (a *arrangement) flushAppends() {
	for _, ak := range a.appended {
		b := ak.b
		if !b.pending {
			continue // indexed since: persisted as rows
		}
		b.pending = false
		k := binary.BigEndian.AppendUint32(a.keyStart(a.appendedKeys[ak.from:ak.to], 1), b.pendOrd)
		a.ps.key = k
		v := a.ps.val[:0]
		for off := b.pendAt; off < len(b.data); {
			n := int64(binary.LittleEndian.Uint64(b.data[off:]))
			l, m := binary.Uvarint(b.data[off+8:])
			row := b.data[off+8+m : off+8+m+int(l)]
			v = appendLen(binary.AppendVarint(v, n), row)
			off += 8 + m + int(l)
		}
		a.ps.val = v
		a.ps.set(k, v)
	}
	clear(a.appended)
	a.appended = a.appended[:0]
	a.appendedKeys = a.appendedKeys[:0]
}

// persistIndexed replaces the persisted entries of key's bucket, which
// has just built its index, by one entry per row: the entries appended
// in this tick and not yet persisted among them.
func (a *arrangement) persistIndexed(key []byte, b *bucket) {
	b.pending = false
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
			if len(rest) != 5 || len(v) == 0 {
				return errCorruptState
			}
			ord := binary.BigEndian.Uint32(rest[1:])
			for len(v) > 0 {
				if n, v, err = readVarint(v); err != nil {
					return err
				}
				var row []byte
				if row, v, err = readLen(v); err != nil {
					return err
				}
				cur.data = appendEntry(cur.data, row, n)
				ord++
			}
			cur.ordinals = ord
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
