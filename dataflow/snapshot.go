package dataflow

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// Snapshot is an immutable view of an Output or Index at one tick. Any
// number of goroutines may read it, while the graph keeps stepping.
//
// Reads fail with the first error of the collection (in ConsolidateErrors
// order) when the view is in error: an evaluation error upstream whose
// rows are still present. Rows come back in the order of the key
// encoding of their ordering key: for an Output the row itself (types
// order, column by column, NULLs last), for an Index its key columns.
type Snapshot struct {
	// out is the Output whose snapshot this is; state holds the snap*
	// bits below and the count of its pins (see Pin). n is the number
	// of rows.
	out   *Output
	state atomic.Int64
	n     int
	tree  rowTree[item]
	errs  []ErrorUpdate
	keyed bool
	// grouped snapshots hold a grouped Output's groups, whose rows end
	// in aggs aggregate columns, instead of tree.
	grouped bool
	groups  rowTree[groupItem]
	aggs    int
	// words snapshots hold the groups of a Reduce in words mode, whose
	// rows are built from their words by the Reduce's aggregates flat:
	// in wideGroups when they are wide, else in wgroups.
	words, wide bool
	wgroups     rowTree[wordItem]
	wideGroups  rowTree[wideWordItem]
	flat        []reduceAgg
}

// Len returns the number of distinct rows.
func (s *Snapshot) Len() int { return s.n }

// A snapshot's state: the low 32 bits count the readers that pin it.
const (
	// snapHeld: its trees are kept as they are (Output.hold).
	snapHeld int64 = 1 << (32 + iota)
	// snapRead: a reader pinned it.
	snapRead
	// snapGone: revoked, a Step changed its trees (Output.revoke).
	snapGone
	// snapKept: held for good (Output.Snapshot), never revoked.
	snapKept

	snapPins int64 = 1<<32 - 1
)

// Pin keeps the snapshot readable until Unpin, or fails with
// ErrSnapshotGone when a Step has revoked it (see Output.Publish). A
// statement pins every published snapshot it reads before its first
// read and unpins them when it ends, so that no Step revokes one between
// its reads. Scan, Seek, Lookup and Rows pin the snapshot while they run.
func (s *Snapshot) Pin() error {
	for {
		st := s.state.Load()
		switch {
		case st&snapGone != 0:
			o := s.out
			o.mu.Lock()
			o.wanted = true
			o.mu.Unlock()
			return ErrSnapshotGone
		case st&snapHeld == 0:
			o := s.out
			o.mu.Lock()
			if s.state.Load()&snapGone == 0 {
				o.hold(s)
			}
			o.mu.Unlock()
		case s.state.CompareAndSwap(st, (st+1)|snapRead):
			return nil
		}
	}
}

// Unpin ends a Pin.
func (s *Snapshot) Unpin() { s.state.Add(-1) }

// Errors returns the consolidated error collection at the snapshot's tick.
func (s *Snapshot) Errors() []ErrorUpdate { return s.errs }

// Err returns the error reads of this snapshot fail with, or nil.
func (s *Snapshot) Err() error {
	if len(s.errs) == 0 {
		return nil
	}
	return s.errs[0].Err
}

// Scan calls fn for every row in order with its multiplicity until fn
// returns false. Each row is freshly decoded; fn may keep it.
func (s *Snapshot) Scan(fn func(row types.Row, n int64) bool) error {
	return s.ascend(nil, false, fn)
}

// ScanAll is Scan that ignores the snapshot's errors. It is for feeding
// the collection into another dataflow, which receives the errors
// separately (Errors) and carries them as data; a SQL read must use Scan,
// which fails instead.
func (s *Snapshot) ScanAll(fn func(row types.Row, n int64) bool) error {
	return s.scan(nil, false, fn)
}

// Seek is Scan starting at the first row whose ordering key is at or after
// key's encoding: for an Output, key is a prefix of the row's columns; for
// an Index, of the index key's columns.
func (s *Snapshot) Seek(key types.Row, fn func(row types.Row, n int64) bool) error {
	return s.ascend(key, false, fn)
}

// Lookup calls fn for every row whose leading ordering-key columns equal
// key (compared as by types.Compare): for an Index, the rows with that
// index key (or key prefix); for an Output, the rows starting with those
// column values.
func (s *Snapshot) Lookup(key types.Row, fn func(row types.Row, n int64) bool) error {
	return s.ascend(key, true, fn)
}

// Rows returns every row, repeated by its multiplicity: the SQL result of
// reading the view. A non-positive multiplicity cannot be shown in SQL and
// is reported as an internal error; it means the inputs retracted rows
// they never inserted.
func (s *Snapshot) Rows() ([]types.Row, error) {
	if err := s.Pin(); err != nil {
		return nil, err
	}
	defer s.Unpin()
	rows := make([]types.Row, 0, s.Len())
	var bad error
	err := s.Scan(func(row types.Row, n int64) bool {
		if n <= 0 {
			bad = pgerr.New(pgerr.InternalError, "non-positive multiplicity %d in view", n)
			return false
		}
		for ; n > 0; n-- {
			rows = append(rows, row)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	return rows, bad
}

func (s *Snapshot) ascend(key types.Row, lookup bool, fn func(row types.Row, n int64) bool) error {
	if err := s.Err(); err != nil {
		return err
	}
	return s.scan(key, lookup, fn)
}

// scan calls fn for the rows from key's encoding on, and with lookup only
// while their ordering keys start with it.
func (s *Snapshot) scan(key types.Row, lookup bool, fn func(row types.Row, n int64) bool) error {
	if err := s.Pin(); err != nil {
		return err
	}
	defer s.Unpin()
	if s.grouped {
		return s.scanGroups(key, lookup, fn)
	}
	from := string(types.AppendKeyRow(nil, key))
	var prefix string
	if lookup {
		prefix = from
	}
	var derr error
	s.tree.ascend(from, func(it item) bool {
		if !strings.HasPrefix(it.key(), prefix) {
			return false
		}
		row, err := decodeRowValue(stored(it.val()), nil)
		if err != nil {
			derr = fmt.Errorf("dataflow: corrupt row in view: %w", err)
			return false
		}
		return fn(row, it.n)
	})
	return derr
}
