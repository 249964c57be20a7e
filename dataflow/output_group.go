package dataflow

import (
	"strings"
	"unsafe"

	"github.com/streamdb/streamdb/sql/types"
)

// A grouped Output is an Output that reads a Reduce directly, the shape
// of every GROUP BY view: its rows are the Reduce's groups' rows, one per
// group, so instead of consolidating the Reduce's delta, encoding its rows
// and merging them into a tree of encoded rows, the Output keeps the
// groups' own rows in a rowTree keyed by the groups' key encodings, and
// the Reduce hands it each tick the changed groups, in key order, with
// their new rows (groupChange). A tick costs the Output one tree merge of
// the changed groups, with no encoding, no sort and no allocation beyond
// the leaves it copies; Reduce pays one sort of its touched groups by
// key, which also makes its delta consolidated as it is emitted.
//
// The rows are shared with the Reduce, which never modifies a row once
// emitted (see group), so a snapshot stays as it was while later ticks
// run. Rows order as an Output's do, by the key encoding of the row,
// since the group key's columns lead the row and differ between groups.

// groupItem is one group's row under the key encoding of the group,
// each as a pointer and a length: 24 bytes instead of 40, since every
// tick after a snapshot copies the leaves it changes whole.
type groupItem struct {
	kenc       *byte
	row        *types.Datum
	klen, rlen uint32
}

const sizeGroupItem = int64(unsafe.Sizeof(groupItem{}))

func (it groupItem) key() string { return unsafe.String(it.kenc, it.klen) }

// values returns the group's row.
func (it groupItem) values() types.Row { return unsafe.Slice(it.row, it.rlen) }

// groupChange is the change of one group in a tick: its new row, or nil
// when it has none (no rows left, or its aggregates failed).
type groupChange struct {
	kenc string
	row  types.Row
}

// groupMerger replaces, inserts and drops groups' rows.
type groupMerger struct {
	// bytes is the change of the items' size during a merge; the rows
	// themselves are the Reduce's state.
	bytes int64
}

func (m *groupMerger) key(c *groupChange) string { return c.kenc }

func (m *groupMerger) update(it groupItem, c *groupChange) (groupItem, bool) {
	if c.row == nil {
		m.bytes -= sizeGroupItem
		return it, false
	}
	it.row, it.rlen = unsafe.SliceData(c.row), uint32(len(c.row))
	return it, true
}

func (m *groupMerger) insert(c *groupChange) (groupItem, bool) {
	if c.row == nil {
		return groupItem{}, false
	}
	m.bytes += sizeGroupItem
	it := groupItem{kenc: unsafe.StringData(c.kenc), klen: uint32(len(c.kenc))}
	it.row, it.rlen = unsafe.SliceData(c.row), uint32(len(c.row))
	return it, true
}

// stepGroups is step for a grouped Output: the Reduce's delta is already
// consolidated, and its changes are merged into the tree of groups.
func (o *Output) stepGroups() {
	o.delta = o.in.delta
	if invariants {
		checkConsolidated(o.delta)
	}
	clear(o.deltaErrs)
	o.deltaErrs = ConsolidateErrors(append(o.deltaErrs[:0], o.in.errs...))
	if len(o.red.changes) == 0 && len(o.deltaErrs) == 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.gm.bytes = 0
	o.gw.apply(&o.groups, o.red.changes)
	o.bytes += o.gm.bytes
	o.mergeErrors()
	o.snap = nil
}

// scanGroups is scan for the snapshot of a grouped Output: the rows from
// key's encoding on (all of them for an empty key), or with lookup only
// those that start with key's columns.
func (s *Snapshot) scanGroups(key types.Row, lookup bool, fn func(row types.Row, n int64) bool) error {
	want := string(types.AppendKeyRow(nil, key))
	// A group sorts before key unless its key's encoding sorts at or
	// after that of key's leading group columns; past those, key's
	// columns are compared with the whole row's encoding.
	nk := len(key)
	s.groups.ascend("", func(it groupItem) bool {
		nk = int(it.rlen) - s.aggs
		return false
	})
	from := want
	if len(key) > nk {
		from = string(types.AppendKeyRow(nil, key[:nk]))
	}
	var buf []byte
	s.groups.ascend(from, func(it groupItem) bool {
		enc := it.key()
		if len(key) > nk {
			buf = types.AppendKeyRow(buf[:0], it.values())
			if enc = keyString(buf); enc < want {
				return true
			}
		}
		if lookup && !strings.HasPrefix(enc, want) {
			return false
		}
		return fn(it.values().Copy(), 1)
	})
	return nil
}
