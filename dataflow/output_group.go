package dataflow

import (
	"strings"
	"unsafe"

	"github.com/streamdb/streamdb/types"
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
//
// When the Reduce's aggregates are all flat (count, sums …) in at most
// twice the words a group holds itself, and the Output is its only
// reader, the Reduce runs in words mode: the Output keeps each group's
// key and accumulator words (wordItem, wideWordItem) instead of a row,
// and computes the results when it is read. A tick then builds no
// row at all, where a row per changed group made most of a GROUP BY
// view's update cost, in allocation and in the garbage collector's work
// and, with a million groups, in faulting in fresh memory. The rows of
// the delta are built only for a reader of the view's changes
// (Output.Delta). Most of a tick's changes are then written where the
// groups' items are, without a merge or a sort (see inPlace).

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

// wordsChange is the change of one group in words mode: its position in
// the Reduce (its words, when it has a row), its words before the tick
// (in reduceOp.olds), whether it had and has a row (it has none without
// rows, or when its aggregates failed) and, for a group the tick
// dropped, where its key is in reduceOp.dropped (else -1). It holds no
// key: most changes are written in place (see inPlace), and a group's
// key is on its second cache line, one more miss per changed group when
// a tick's caches are cold; keyOf adds the key to the others.
type wordsChange struct {
	pos, old, drop int32
	had, has       bool
}

// groupKey is a group's key columns, key encoding and the encoding's head.
type groupKey struct {
	head keyHead
	kenc string
	key  types.Row
}

// keyedChange is a wordsChange with its group's key, as the merge and
// the delta's rows need it.
type keyedChange struct {
	wordsChange
	groupKey
}

// keyOf returns c with its group's key.
func (op *reduceOp) keyOf(c *wordsChange) keyedChange {
	if c.drop >= 0 {
		return keyedChange{*c, op.dropped[c.drop]}
	}
	return keyedChange{*c, op.groups.at(c.pos).key()}
}

// wordItem is one group of a Reduce in words mode: its key (wordKey)
// and its aggregates' words, as many as a group holds itself (count with
// a sum, an average). Wider words (a count and two sums) take a
// wideWordItem, so that only views that need them pay for them.
type wordItem struct {
	wordKey
	words [groupWords]int64
}

// wideWordItem is wordItem for up to twice a group's own words.
type wideWordItem struct {
	wordKey
	words [2 * groupWords]int64
}

// wordKey is a words item's key encoding and key, and the position of
// its group in the Reduce, by which inPlace knows the group's item.
type wordKey struct {
	kenc     *byte
	keyData  *types.Datum
	klen, nk uint32
	pos      int32
}

func (k wordKey) key() string { return unsafe.String(k.kenc, k.klen) }

// row returns the key's columns.
func (k wordKey) row() types.Row { return unsafe.Slice(k.keyData, k.nk) }

// wordKeyOf returns the key of a changed group.
func wordKeyOf(c *keyedChange) wordKey {
	return wordKey{kenc: unsafe.StringData(c.kenc), klen: uint32(len(c.kenc)), keyData: unsafe.SliceData(c.key), nk: uint32(len(c.key)), pos: c.pos}
}

const (
	sizeWordItem     = int64(unsafe.Sizeof(wordItem{}))
	sizeWideWordItem = int64(unsafe.Sizeof(wideWordItem{}))
)

// wordsMerging is what the mergers of words items share: the Reduce
// whose words they copy, the change of the items' size during a merge
// (the keys are the Reduce's state), and the changes' keys.
type wordsMerging struct {
	red   *reduceOp
	bytes int64
}

func (m *wordsMerging) key(c *keyedChange) string { return c.kenc }

// sortWordsChanges puts changes in key order, with spare as scratch
// space, and returns the sorted changes and the spare for the next sort.
func sortWordsChanges(changes, spare []keyedChange) ([]keyedChange, []keyedChange) {
	return sortByKey(changes, spare, func(c *keyedChange) keyHead { return c.head }, func(a, b keyedChange) int {
		return compareKeys(a.head, a.kenc, b.head, b.kenc)
	})
}

// placed records in a changed group where its item now is (see inPlace).
func (m *wordsMerging) placed(c *keyedChange, leaf int32, i int) {
	grp := m.red.groups.at(c.pos)
	grp.leaf, grp.slot = leaf, int8(i)
}

// inPlace writes the new words of the changed groups whose items are
// still where the merge last placed them (group.leaf, group.slot), in a
// leaf no snapshot shares, and returns the other changes for the merge.
// A tick of a GROUP BY view mostly changes the words of groups that
// stay: each such change is then one write, where the merge walks the
// tree and its leaves and compares keys, and only the rest need sorting
// by key, which the Reduce leaves to the Output in words mode; only
// they need their keys (keyOf). A place that is out of date (the item
// moved within its leaf or to another, or its leaf left the tree) fails
// the check of the item's group position: the tree holds one item per
// group with a row, and a group's item leaves the tree in the tick that
// drops the group, before its position can go to another group. A leaf
// still shared with a snapshot fails the check of its generation. The
// merge then records the item's new place. The item is one of the two
// words items, told apart by a type switch: through methods of I, which
// a generic function calls by its dictionary, two calls per change made
// the 1,000-row update tick of BenchmarkViewUpdate 6% longer.
func inPlace[I treeItem](t *rowTree[I], red *reduceOp, changes []wordsChange, rest []keyedChange) []keyedChange {
	for i := range changes {
		c := &changes[i]
		if c.had && c.has {
			grp := red.groups.at(c.pos)
			if n := t.leaf(grp.leaf); n != nil && n.gen == t.gen && int(grp.slot) < len(n.items) {
				switch it := any(&n.items[grp.slot]).(type) {
				case *wordItem:
					if it.pos == c.pos {
						it.words = grp.words
						continue
					}
				case *wideWordItem:
					if it.pos == c.pos {
						copy(it.words[:], red.words(c.pos))
						continue
					}
				}
			}
		}
		rest = append(rest, red.keyOf(c))
	}
	return rest
}

// wordMerger replaces, inserts and drops the words of groups. It and
// wideWordMerger are two types, not one generic over the words, because
// a generic item's key method is called through its dictionary in every
// comparison of the tree, which made four-word views 9–17% slower.
type wordMerger struct{ wordsMerging }

func (m *wordMerger) update(it wordItem, c *keyedChange) (wordItem, bool) {
	if !c.has {
		m.bytes -= sizeWordItem
		return it, false
	}
	it.words = m.red.groups.at(c.pos).words
	return it, true
}

func (m *wordMerger) insert(c *keyedChange) (wordItem, bool) {
	if !c.has {
		return wordItem{}, false
	}
	m.bytes += sizeWordItem
	return wordItem{wordKey: wordKeyOf(c), words: m.red.groups.at(c.pos).words}, true
}

// wideWordMerger is wordMerger for wide words, which it reads from the
// Reduce's wide words.
type wideWordMerger struct{ wordsMerging }

func (m *wideWordMerger) update(it wideWordItem, c *keyedChange) (wideWordItem, bool) {
	if !c.has {
		m.bytes -= sizeWideWordItem
		return it, false
	}
	copy(it.words[:], m.red.words(c.pos))
	return it, true
}

func (m *wideWordMerger) insert(c *keyedChange) (wideWordItem, bool) {
	if !c.has {
		return wideWordItem{}, false
	}
	m.bytes += sizeWideWordItem
	it := wideWordItem{wordKey: wordKeyOf(c)}
	copy(it.words[:], m.red.words(c.pos))
	return it, true
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
	words := o.red.wordsMode
	if words {
		clear(o.wdelta)
		o.wdelta, o.built = o.wdelta[:0], false
	} else {
		o.delta = o.in.delta
		if invariants {
			checkConsolidated(o.delta)
		}
	}
	clear(o.deltaErrs)
	o.deltaErrs = ConsolidateErrors(append(o.deltaErrs[:0], o.in.errs...))
	if len(o.red.changes) == 0 && len(o.red.wchanges) == 0 && len(o.deltaErrs) == 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.revoke()
	switch {
	case words && o.red.stride > groupWords:
		o.rest = inPlace(&o.wide, o.red, o.red.wchanges, o.rest[:0])
		o.rest, o.spare = sortWordsChanges(o.rest, o.spare)
		o.wideM.bytes = 0
		o.wideW.apply(&o.wide, o.rest)
		o.bytes += o.wideM.bytes
	case words:
		o.rest = inPlace(&o.words, o.red, o.red.wchanges, o.rest[:0])
		o.rest, o.spare = sortWordsChanges(o.rest, o.spare)
		o.wm.bytes = 0
		o.ww.apply(&o.words, o.rest)
		o.bytes += o.wm.bytes
	default:
		o.gm.bytes = 0
		o.gw.apply(&o.groups, o.red.changes)
		o.bytes += o.gm.bytes
	}
	o.mergeErrors()
}

// wordsDelta returns the delta of a grouped Output in words mode,
// building its rows on the first call of the tick.
func (o *Output) wordsDelta() Batch {
	if !o.built {
		o.built = true
		keyed := o.keyed[:0]
		for i := range o.red.wchanges {
			keyed = append(keyed, o.red.keyOf(&o.red.wchanges[i]))
		}
		o.keyed, o.spare = sortWordsChanges(keyed, o.spare)
		o.wdelta = o.red.appendWordsDelta(o.wdelta[:0], o.keyed)
		if invariants {
			checkConsolidated(o.wdelta)
		}
	}
	return o.wdelta
}

// scanGroups is scan for the snapshot of a grouped Output: the rows from
// key's encoding on (all of them for an empty key), or with lookup only
// those that start with key's columns.
func (s *Snapshot) scanGroups(key types.Row, lookup bool, fn func(row types.Row, n int64) bool) error {
	switch {
	case s.words && s.wide:
		return scanGroupTree(s.wideGroups, func(it wideWordItem) int { return int(it.nk) }, func(it wideWordItem) types.Row {
			return wordsRow(s.flat, it.row(), it.words[:])
		}, key, lookup, fn)
	case s.words:
		return scanGroupTree(s.wgroups, func(it wordItem) int { return int(it.nk) }, func(it wordItem) types.Row {
			return wordsRow(s.flat, it.row(), it.words[:])
		}, key, lookup, fn)
	}
	return scanGroupTree(s.groups, func(it groupItem) int { return int(it.rlen) - s.aggs }, func(it groupItem) types.Row {
		return it.values().Copy()
	}, key, lookup, fn)
}

// scanGroupTree is scanGroups over the groups of either form: nk gives
// the number of key columns of a group, row a fresh copy of its row.
func scanGroupTree[I treeItem](t rowTree[I], nk func(I) int, row func(I) types.Row, key types.Row, lookup bool, fn func(row types.Row, n int64) bool) error {
	want := string(types.AppendKeyRow(nil, key))
	// A group sorts before key unless its key's encoding sorts at or
	// after that of key's leading group columns; past those, key's
	// columns are compared with the whole row's encoding.
	keys := len(key)
	t.ascend("", func(it I) bool {
		keys = nk(it)
		return false
	})
	from := want
	if len(key) > keys {
		from = string(types.AppendKeyRow(nil, key[:keys]))
	}
	var buf []byte
	t.ascend(from, func(it I) bool {
		enc := it.key()
		var r types.Row
		if len(key) > keys {
			r = row(it)
			buf = types.AppendKeyRow(buf[:0], r)
			if enc = keyString(buf); enc < want {
				return true
			}
		}
		if lookup && !strings.HasPrefix(enc, want) {
			return false
		}
		if r == nil {
			r = row(it)
		}
		return fn(r, 1)
	})
	return nil
}
