package kafka

import (
	"bytes"
	"cmp"
	"hash/maphash"
	"iter"
	"slices"

	"github.com/streamdb/streamdb/sinks"
	"github.com/streamdb/streamdb/types"
)

// envelope turns a tick's changes into records, Materialize's way: with
// a KEY, the changes of each key are split into deletions (befores) and
// insertions (afters), each fanned out by its multiplicity and ordered by
// row, and zipped into pairs; every pair is one record. UPSERT writes a
// pair's after (a tombstone when it has none), DEBEZIUM both. A unique
// key has at most one pair per key and tick: an insert, a delete, or an
// update. A key that is not unique (NOT ENFORCED) gives several, all
// written in that order, so a consumer ends up with the last; the sink
// counts them as key violations and logs them. Keys are written in the
// order of their first change in the tick. Without a KEY (DEBEZIUM
// only) every change is its own record with a null key.
type envelope struct {
	enc   *encoder
	kind  Envelope
	keyed bool

	// The grouping of the current tick's changes by key, reused across
	// ticks: entries are the changes in tick order, chained per key;
	// keys are the distinct keys in order of first appearance; index
	// finds a key's group by the hash of its encoding.
	entries []entry
	keys    []keyGroup
	index   map[uint64]int32
	seed    maphash.Seed
	// group is the scratch slice a group's entries are sorted in.
	group []entry

	// violations counts keys with more than one pair since it was last
	// cleared.
	violations int
	// violation is the last such key.
	violation []byte
}

// entry is one change with its encoded record key.
type entry struct {
	key  []byte // nil for a NULL TEXT key
	row  types.Row
	diff int64
	// next is the next entry with the same key, -1 for none.
	next int32
}

// keyGroup is one distinct key of a tick: its entries are a chain from
// head to tail. collision chains the groups whose keys share a hash.
type keyGroup struct {
	key        []byte
	head, tail int32
	collision  int32
}

func newEnvelope(cfg *Config) *envelope {
	return &envelope{enc: newEncoder(cfg), kind: cfg.Envelope, keyed: len(cfg.Key) > 0,
		index: map[uint64]int32{}, seed: maphash.MakeSeed()}
}

// appendChanges appends the records of one tick's changes to b.
func (e *envelope) appendChanges(b *recordBatch, changes []sinks.Change) {
	if !e.keyed {
		for _, c := range changes {
			before, after := c.Row, types.Row(nil)
			if c.Diff > 0 {
				before, after = nil, c.Row
			}
			value := e.appendDebezium(b, before, after)
			for range abs(c.Diff) {
				b.add(nil, value)
			}
		}
		return
	}
	e.groupByKey(b, changes)
	for g := range e.groups() {
		pairs := 0
		zip(g, func(before, after types.Row) {
			pairs++
			var value []byte
			if e.kind == EnvelopeDebezium {
				value = e.appendDebezium(b, before, after)
			} else if after != nil {
				value = e.appendRow(b, after)
			}
			b.add(g[0].key, value)
		})
		if pairs > 1 {
			e.violations++
			e.violation = g[0].key
		}
	}
}

// groupByKey encodes the record key of each change and groups the
// changes by key. It hashes rather than sorts: in a tick most keys have
// one change or two (an update), and sorting a thousand keys cost more
// than encoding their rows.
func (e *envelope) groupByKey(b *recordBatch, changes []sinks.Change) {
	e.entries = slices.Grow(e.entries[:0], len(changes))
	e.keys = e.keys[:0]
	clear(e.index)
	for i, c := range changes {
		key := b.take(e.enc.appendKey(b.buf(), c.Row))
		e.entries = append(e.entries, entry{key: key, row: c.Row, diff: c.Diff, next: -1})
		h := maphash.Bytes(e.seed, key)
		gi, ok := e.index[h]
		if !ok {
			e.index[h] = int32(len(e.keys))
			e.keys = append(e.keys, keyGroup{key: key, head: int32(i), tail: int32(i), collision: -1})
			continue
		}
		for !sameKey(e.keys[gi].key, key) && e.keys[gi].collision >= 0 {
			gi = e.keys[gi].collision
		}
		if g := &e.keys[gi]; sameKey(g.key, key) {
			e.entries[g.tail].next = int32(i)
			g.tail = int32(i)
			continue
		}
		e.keys[gi].collision = int32(len(e.keys))
		e.keys = append(e.keys, keyGroup{key: key, head: int32(i), tail: int32(i), collision: -1})
	}
}

// groups yields each key's entries in the order of the keys' first
// changes, the entries of a key ordered deletions first, then by row.
// The slice is reused between groups.
func (e *envelope) groups() iter.Seq[[]entry] {
	return func(yield func([]entry) bool) {
		for _, k := range e.keys {
			e.group = e.group[:0]
			for i := k.head; i >= 0; i = e.entries[i].next {
				e.group = append(e.group, e.entries[i])
			}
			if len(e.group) > 1 {
				slices.SortFunc(e.group, func(x, y entry) int {
					if c := cmp.Compare(sign(x.diff), sign(y.diff)); c != 0 {
						return c
					}
					return types.CompareRows(x.row, y.row)
				})
			}
			if !yield(e.group) {
				return
			}
		}
	}
}

// zip pairs the deletions of one key's group with its insertions, each
// fanned out by its multiplicity, and calls fn for every pair; a side
// that runs out is nil.
func zip(g []entry, fn func(before, after types.Row)) {
	split := 0
	for split < len(g) && g[split].diff < 0 {
		split++
	}
	bi, ai := 0, split
	bn, an := int64(0), int64(0) // copies used of g[bi], g[ai]
	for bi < split || ai < len(g) {
		var before, after types.Row
		if bi < split {
			before = g[bi].row
			if bn++; bn == -g[bi].diff {
				bi, bn = bi+1, 0
			}
		}
		if ai < len(g) {
			after = g[ai].row
			if an++; an == g[ai].diff {
				ai, an = ai+1, 0
			}
		}
		fn(before, after)
	}
}

// appendRow encodes row as a record value into b's arena.
func (e *envelope) appendRow(b *recordBatch, row types.Row) []byte {
	return b.take(e.enc.appendRow(b.buf(), row))
}

// appendDebezium encodes {"before": …, "after": …} into b's arena; a nil
// row is null.
func (e *envelope) appendDebezium(b *recordBatch, before, after types.Row) []byte {
	buf := append(b.buf(), `{"before":`...)
	buf = e.appendObjectOrNull(buf, before)
	buf = append(buf, `,"after":`...)
	buf = e.appendObjectOrNull(buf, after)
	return b.take(append(buf, '}'), true)
}

func (e *envelope) appendObjectOrNull(dst []byte, row types.Row) []byte {
	if row == nil {
		return append(dst, "null"...)
	}
	return e.enc.appendObject(dst, row)
}

// sameKey reports whether two record keys are the same; the null key
// differs from the empty one.
func sameKey(a, b []byte) bool {
	return (a == nil) == (b == nil) && bytes.Equal(a, b)
}

func sign(v int64) int {
	if v < 0 {
		return -1
	}
	return 1
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
