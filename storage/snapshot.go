package storage

import (
	"slices"

	"github.com/cockroachdb/pebble/v2"
)

// Snapshot is the store as of one moment: reads through it see the
// batches committed before it was taken and none after, however long
// they take. A snapshot keeps Pebble from discarding the versions it
// sees, so it must be closed once no reader needs it.
type Snapshot struct {
	s *pebble.Snapshot
}

// NewSnapshot takes a snapshot of the store.
func (db *DB) NewSnapshot() *Snapshot { return &Snapshot{s: db.pdb.NewSnapshot()} }

// Close releases the snapshot.
func (s *Snapshot) Close() error { return s.s.Close() }

// Get returns a copy of the value stored under key in collection coll.
func (s *Snapshot) Get(coll uint64, key []byte) ([]byte, bool, error) {
	return getCopy(s.s, append(collPrefix(coll), key...))
}

// Iter returns an iterator over the rows of collection coll whose keys
// lie in [start, end) (a nil end is unbounded), in key order.
func (s *Snapshot) Iter(coll uint64, start, end []byte) (*Iter, error) {
	p := collPrefix(coll)
	opts := iterBounds(p, start, end)
	it, err := s.s.NewIter(opts)
	if err != nil {
		return nil, err
	}
	return &Iter{it: it, p: len(p), valid: it.First()}, nil
}

func iterBounds(p, start, end []byte) *pebble.IterOptions {
	lo := append(slices.Clip(p), start...)
	hi := prefixEnd(p)
	if end != nil {
		hi = append(slices.Clip(p), end...)
	}
	return &pebble.IterOptions{LowerBound: lo, UpperBound: hi}
}

// Iter iterates over a collection's rows. Key and Value are only valid
// until the next call of Next.
type Iter struct {
	it    *pebble.Iterator
	p     int
	valid bool
}

// Valid reports whether the iterator is at a row.
func (it *Iter) Valid() bool { return it.valid }

// Key returns the row's key within its collection.
func (it *Iter) Key() []byte { return it.it.Key()[it.p:] }

// Value returns the row's value.
func (it *Iter) Value() ([]byte, error) { return it.it.ValueAndErr() }

// Next moves to the next row.
func (it *Iter) Next() { it.valid = it.it.Next() }

// Close releases the iterator and returns the first error it met.
func (it *Iter) Close() error {
	err := it.it.Error()
	if cerr := it.it.Close(); err == nil {
		err = cerr
	}
	return err
}
