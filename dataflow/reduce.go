package dataflow

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/streamdb/streamdb/internal/int128"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// ReduceSpec describes a grouped aggregation. The group key (the GROUP BY
// columns) is the input columns KeyCols; none means one group with the
// empty key (the planner computes a key that is not a column as a column
// first). A key of one column, an integer, a date or a timestamp, is
// found without building a key row. Each output row is the key's
// columns followed by one column per aggregate. Global makes the
// empty-key group exist even when it has no rows, as SQL requires of an
// aggregate without GROUP BY (SELECT count(*) FROM empty_table returns
// one row, 0).
type ReduceSpec struct {
	KeyCols []int
	Aggs    []Aggregate
	Global  bool
}

// Reduce groups src by key and maintains the aggregates of every group.
//
// State is per group, never per input row: the group's output row (its
// key, then its aggregates' values), the number of rows in the group and
// one accumulator per aggregate, found through a hash index on the key
// (types.HashRow, equality by types.Compare). A group exists while its
// row count is positive. Per tick, each group the delta touches emits
// −old +new (or only +new when it appears, −old when it disappears), and
// nothing when its output did not change; untouched groups cost nothing.
//
//	input:  +(a, 1) +(a, 2) +(b, 5)   -(a, 1)           -(b, 5)
//	spec:   key (k), aggs count(*), sum(v)
//	output: +(a, 2, 3) +(b, 1, 5)     -(a, 2, 3) +(a, 1, 2)   -(b, 1, 5)
//
// When an aggregate's Result fails, the group's output is that error
// (weight +1) instead of a row, and it is retracted like a row.
func (g *Graph) Reduce(src Node, spec ReduceSpec) Node {
	out := new(stream)
	op := &reduceOp{g: g, in: g.input(src), out: out, spec: spec, index: newRowIndex(), keyCol: -1}
	if len(spec.KeyCols) > 0 {
		op.key = columnsKey(spec.KeyCols)
		if len(spec.KeyCols) == 1 {
			op.keyCol = spec.KeyCols[0]
		}
	}
	op.aggs = make([]reduceAgg, len(spec.Aggs))
	for i, a := range spec.Aggs {
		if f, ok := a.(FlatAggregate); ok {
			op.aggs[i] = reduceAgg{flat: f, off: op.stride, n: f.Words(), fallible: f.Fallible()}
			op.aggs[i].inline, _ = f.Inline()
			op.fallible = op.fallible || f.Fallible()
			op.stride += f.Words()
			continue
		}
		op.aggs[i] = reduceAgg{off: op.nstates}
		op.nstates++
	}
	if op.keyCol >= 0 {
		op.memo = make([]memoEntry, 1)
	}
	op.inline = op.keyCol >= 0 && len(op.aggs) > 0
	op.inlineWidth = op.keyCol + 1
	for _, a := range op.aggs {
		op.inline = op.inline && a.inline.Kind != 0
		if a.inline.Kind != CountRows {
			op.inlineWidth = max(op.inlineWidth, a.inline.Col+1)
		}
	}
	n := g.add(op, out)
	op.node = n.id
	return n
}

type reduceOp struct {
	g       *Graph
	in, out *stream
	spec    ReduceSpec
	index   *rowIndex
	// groups holds each group by its index position, by value: a delta
	// row reaches its group in one step, not through a pointer.
	groups chunks[group]
	// aggs says where each aggregate's state lives: a FlatAggregate's in
	// the group's words (stride of them per group), the others' in the
	// group's states (nstates of them).
	aggs    []reduceAgg
	stride  int
	nstates int
	// wide holds the groups' words when they do not fit in a group's
	// own: the words of chunkSize groups to a slice, so that, as with
	// groups, growing never copies more than one chunk.
	wide    [][]int64
	bytes   int64
	started bool
	// touched lists the groups changed in this tick, with whether they had
	// an output at the start of the tick (outside words mode).
	touched []touchedGroup
	// spare is the other buffer of sortTouched.
	spare []touchedGroup
	news  []types.Datum
	// retract holds the tick's retractions until its insertions are in.
	retract []pendingRetraction
	// key returns a row's key, a part of the row itself or a buffer it
	// overwrites on its next call (see columnsKey), nil for the empty
	// key: a key is copied only when a group is created. keyCol is the
	// key's column when the key is one column, else -1.
	key    func(types.Row) types.Row
	keyCol int
	// inline is set when the key is one column and every aggregate is a
	// FlatAggregate with a WordsOp, for applyInline to perform, and
	// inlineWidth is the row width they and the key need.
	inline      bool
	inlineWidth int
	// fallible is set when a flat aggregate's result can fail, so that
	// finishing a group in words mode looks for an error only then.
	fallible bool
	// keyed is set when an Output keeps this Reduce's groups (see
	// Graph.Output): groups then carry their key encodings, a tick's
	// touched groups are finished in key order, so that the delta comes
	// out consolidated, and changes lists each changed group's new row
	// for the Output. In words mode they are finished as they came, and
	// the Output sorts the changes it merges (see Output.inPlace) and
	// the delta, when one is asked for.
	keyed   bool
	kbuf    []byte
	changes []groupChange
	// memo maps an inline key's value, by its low bits, to the position
	// of the group last found for it (see inlineGroup): one slot for a
	// key of one column, which grows with the index, up to memoSize
	// slots, at the start of a tick once it has recorded a group.
	memo []memoEntry
	// hashes holds the tick's key hashes when it prefetches, and sink
	// the sum of the prefetching loads.
	hashes []uint64
	sink   uint64
	// wordsMode is set, at the first Step, for a keyed Reduce of flat
	// aggregates in at most 2*groupWords words whose Output is its only
	// reader: the Output then keeps each group's key and words
	// (wordItem) and computes the results when it is read, so a tick
	// builds no output row (see finishWords).
	// olds holds the words of the tick's touched groups as they were
	// before it (wideOlds when they are wider than a group's own, in
	// wide), and wchanges the touched groups (touched is unused), then,
	// once finishWords has left out those that did not change, the
	// changed groups, for the Output, in no particular order.
	wordsMode bool
	node      int
	olds      [][groupWords]int64
	wideOlds  [][2 * groupWords]int64
	wchanges  []wordsChange
	// dropped holds the keys of the groups the tick dropped, which their
	// wchanges still name (wordsChange.drop) until the next tick.
	dropped []groupKey
	// begun is set while a tick is under way (see begin); prefetched
	// when apply prefetched in it; held keeps a final step's chunks
	// when they must be applied at once (see absorb).
	begun      bool
	prefetched bool
	held       Batch
}

// reduceAgg is where one aggregate's state lives in a group: n words from
// off on for a FlatAggregate, else the AggState at states[off]; inline is
// a FlatAggregate's addition when Reduce performs it (see WordsOp).
type reduceAgg struct {
	flat     FlatAggregate
	off, n   int
	fallible bool
	inline   WordsOp
}

// columnsKey returns the key function of a key of columns cols: a part
// of the row itself when they are adjacent, else a buffer it refills.
func columnsKey(cols []int) func(types.Row) types.Row {
	adjacent := true
	for i, c := range cols {
		adjacent = adjacent && c == cols[0]+i
	}
	n := len(cols)
	if adjacent {
		lo, hi := cols[0], cols[0]+n
		return func(r types.Row) types.Row { return r[lo:hi:hi] }
	}
	k := make(types.Row, n)
	return func(r types.Row) types.Row {
		for i, c := range cols {
			k[i] = r[c]
		}
		return k
	}
}

type pendingRetraction struct {
	pos int32
	u   *Update
}

// groupWords is the number of flat aggregate words a group holds itself:
// count(*) with a sum, or an avg.
const groupWords = 4

// group is one group's state. The accumulators of FlatAggregates are
// words inside it (or in reduceOp.wide), and up to two AggStates' interface
// values: with a million groups each separate allocation is one more cache
// and TLB miss for every delta row that reaches the group.
//
// row is the group's output as last emitted: its key columns (which
// index.keys[pos] shares) and the aggregates' values, or before its first
// emission the key and zero values. An emitted row is never modified, so
// the group's next change emits this very row as its retraction instead
// of building the old output again: a tick computes each touched group's
// results once and allocates one row for it, not two. In words mode row
// is the key alone, and the Output keeps the words.
type group struct {
	// The first two cache lines hold what a tick reads and writes of each
	// group it touches; a group is three lines, whole ones in chunks
	// (see sizeGroup), so that a tick over a million groups, where each
	// touched group is a miss, waits for two lines of each, not four.
	n     int64
	tick  uint64
	words [groupWords]int64
	// ikey is the value of a key of one integer, date or timestamp
	// column, and iclass its class (see inlineKey), so that finding the
	// group compares the key here, not in a row of its own.
	ikey int64
	// leaf and slot are where, in words mode, the Output last placed the
	// group's item: items[slot] of its tree's leaf of id leaf (see
	// Output.inPlace). A leaf holds at most 64 items.
	leaf   int32
	slot   int8
	iclass types.Family
	// emitted tells that row has left the operator and must not change.
	emitted bool
	// failed tells, in words mode, that err holds the group's error, so
	// that a tick reads err, on the group's second line, only then.
	failed bool
	row    types.Row
	// err is the group's output instead of row when its aggregates failed.
	err *pgerr.Error
	// kenc is the key encoding of the group's key and head its head,
	// kept only for an Output that holds the groups (reduceOp.keyed).
	kenc string
	head keyHead
	// size is the group's bytes for StateBytes beyond its slot in groups,
	// fixed at creation.
	size int64
	// statesBuf holds the group's AggStates when there are at most two,
	// more (an array of reduceOp.nstates) when there are more (see
	// states): a slice header in every group would make it 200 bytes.
	statesBuf [2]AggState
	more      *AggState
	_         [16]byte
}

// key returns the key of a group in words mode, whose row is its key
// alone.
func (g *group) key() groupKey { return groupKey{head: g.head, kenc: g.kenc, key: g.row} }

// states returns the group's n AggStates.
func (g *group) states(n int) []AggState {
	if n <= len(g.statesBuf) {
		return g.statesBuf[:n:n]
	}
	return unsafe.Slice(g.more, n)
}

// touchedGroup is a group changed in the current tick, with its key's
// head inline so that sorting the touched groups seldom reaches them.
type touchedGroup struct {
	head    keyHead
	pos     int32
	existed bool
	// kenc is the group's key encoding in a keyed Reduce: it orders
	// groups whose heads tie and names the group's change to the Output.
	kenc string
}

// compareTouched orders touched groups by key encoding.
func compareTouched(a, b touchedGroup) int { return compareKeys(a.head, a.kenc, b.head, b.kenc) }

// compareKeys orders two key encodings a and b, of heads ah and bh: by
// head, then in full when the heads tie.
func compareKeys(ah keyHead, a string, bh keyHead, b string) int {
	if c := ah.compare(bh); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// sizeGroup is three cache lines: the chunks of groups, large
// allocations, start at page boundaries, so every group starts at a line.
const sizeGroup = int64(unsafe.Sizeof(group{}))

var _ operator = (*reduceOp)(nil)

func (op *reduceOp) Name() string { return "Reduce" }

func (op *reduceOp) Step(ctx context.Context) error {
	if err := op.absorb(ctx, 0); err != nil {
		return err
	}
	return op.finish(ctx)
}

// absorb feeds a delta, or a final step's chunk, to the groups.
// Aggregates with AggStates see every intermediate multiset
// non-negative (see apply) only within one delta: in a final step whose
// input may retract (EXCEPT ALL's Negate upstream), the chunks are kept
// and applied at once at the end.
func (op *reduceOp) absorb(ctx context.Context, _ int) error {
	op.begin()
	op.out.passErrors(op.in)
	d := op.in.delta
	if !op.in.streaming() {
		op.applyDelta(d)
		return nil
	}
	if op.nstates > 0 && op.in.mayRetract() {
		op.held = append(op.held, d...)
		return nil
	}
	// An aggregate's argument may take long to compute (repeat of ten
	// megabytes): a canceled final step stops between a few rows.
	for start := 0; start < len(d); start += checkEvery {
		if err := ctx.Err(); err != nil {
			return err
		}
		op.applyDelta(d[start:min(start+checkEvery, len(d))])
	}
	return nil
}

// begin starts a tick, once, before its first delta or its finish.
func (op *reduceOp) begin() {
	if op.begun {
		return
	}
	op.begun = true
	clear(op.changes)
	op.changes = op.changes[:0]
	op.wchanges = op.wchanges[:0]
	clear(op.dropped)
	op.dropped = op.dropped[:0]
	op.olds, op.wideOlds = op.olds[:0], op.wideOlds[:0]
	if !op.started {
		op.started = true
		op.wordsMode = op.keyed && op.nstates == 0 && op.stride <= 2*groupWords && op.g.readers[op.node] == 1
		if op.spec.Global {
			// The empty group exists from the first tick on; it had no
			// output before.
			op.touch(op.lookup(nil, op.index.hash(nil)), false)
		}
	}
	// The memo grows once it has recorded a group: a Reduce whose keys
	// are never inline (text, say) keeps its one slot.
	if n, want := len(op.memo), min(memoSize, len(op.index.slots)); n > 0 && n < want && (n > 1 || op.memo[0].pos > 0) {
		op.memo = make([]memoEntry, want)
	}
}

// applyDelta applies a delta to the groups' accumulators.
func (op *reduceOp) applyDelta(d Batch) {
	hashes := op.prefetch(d)
	op.apply(d, hashes)
	op.prefetched = op.prefetched || hashes != nil
}

// finish emits the change of every group the tick touched, flushing the
// output between groups in a final step.
func (op *reduceOp) finish(ctx context.Context) error {
	op.begin()
	if op.held != nil {
		op.applyDelta(op.held)
		op.held = nil
	}
	if op.keyed && !op.wordsMode {
		op.sortTouched()
	}
	if op.prefetched && !op.wordsMode {
		op.prefetchRows()
	}
	if op.wordsMode {
		op.finishWords()
	}
	var err error
	for i := range op.touched {
		op.finishTouched(&op.touched[i])
		if err = op.out.flushIfFull(ctx); err != nil {
			break
		}
	}
	clear(op.touched)
	op.touched = op.touched[:0]
	clear(op.news)
	op.begun, op.prefetched = false, false
	return err
}

// sortTouched puts the tick's touched groups in key order.
func (op *reduceOp) sortTouched() {
	op.touched, op.spare = sortByKey(op.touched, op.spare, func(g *touchedGroup) keyHead { return g.head }, compareTouched)
}

// apply feeds the delta to the groups' accumulators. One pass finds each
// row's group, once for an update's −old +new, adjacent in a
// consolidated delta, counts the row and adds it to the flat aggregates'
// words. AggStates take the insertions in that pass and the retractions
// after it, so that every intermediate multiset they see is non-negative
// (see AggState); the retractions wait in op.retract with their groups.
// hashes, when not nil, holds the hash of each delta row's key (see
// prefetch).
func (op *reduceOp) apply(d Batch, hashes []uint64) {
	if op.inline {
		op.applyInline(d, hashes)
	} else {
		last := int32(-1)
		for i := range d {
			if d[i].Diff != 0 {
				last = op.applyRow(last, &d[i], hashes, i)
			}
		}
	}
	for _, r := range op.retract {
		op.update(r.pos, r.u)
	}
	clear(op.retract)
	op.retract = op.retract[:0]
}

// applyRow is apply's work for delta row u (index i), whose group it
// returns; last is the group of the row before (-1 for none), which an
// update's −old +new share.
func (op *reduceOp) applyRow(last int32, u *Update, hashes []uint64, i int) int32 {
	var pos int32
	if v, class, ok := op.inlineKeyOf(u.Row); ok {
		pos = op.inlineGroup(last, v, class, hashes, i, u.Row)
	} else {
		pos = op.group(last, u.Row, hashes, i)
	}
	grp := op.groups.at(pos)
	if grp.tick != op.g.tick {
		op.touch(pos, op.exists(pos))
	}
	grp.n += u.Diff
	if op.stride > 0 {
		op.addWords(op.words(pos), u)
	}
	if op.nstates == 0 {
		return pos
	}
	if u.Diff < 0 {
		op.retract = append(op.retract, pendingRetraction{pos: pos, u: u})
	} else {
		op.update(pos, u)
	}
	return pos
}

// applyInline is apply for the common GROUP BY view: a key of one column
// and aggregates that all have a WordsOp (count(*), count, sum and avg
// of integer columns), so no AggStates. It does applyRow's work with the
// key's group found by its inline value and the WordsOps written out:
// through applyRow's calls per row and aggregate, a 1,000-row tick of
// count(*) and a sum took a third longer (BenchmarkViewUpdate). A row
// whose key is not inline (NULL, text …) or too short for the columns
// goes through applyRow.
func (op *reduceOp) applyInline(d Batch, hashes []uint64) {
	last := int32(-1)
	for i := range d {
		u := &d[i]
		if u.Diff == 0 {
			continue
		}
		if len(u.Row) < op.inlineWidth {
			last = op.applyRow(last, u, hashes, i)
			continue
		}
		v, class, ok := inlineDatum(&u.Row[op.keyCol])
		if !ok {
			last = op.applyRow(last, u, hashes, i)
			continue
		}
		pos := op.inlineGroup(last, v, class, hashes, i, u.Row)
		last = pos
		grp := op.groups.at(pos)
		if grp.tick != op.g.tick {
			op.touch(pos, op.exists(pos))
		}
		grp.n += u.Diff
		w := op.words(pos)
		for j := range op.aggs {
			a := &op.aggs[j].inline
			off := op.aggs[j].off
			if a.Kind == CountRows {
				w[off] += u.Diff
				continue
			}
			arg := &u.Row[a.Col]
			switch {
			case arg.IsNull():
			case a.Kind == CountColumn:
				w[off] += u.Diff
			default:
				// addSum, written out: the call (not inlined) made the
				// tick 2% longer in process and 4% in the server.
				sum := int128.Int{Hi: w[off], Lo: uint64(w[off+1])}
				if !sum.AddMul(arg.Int(), u.Diff) {
					op.rowFailed(u.Diff, a.Overflow)
					continue
				}
				w[off], w[off+1], w[off+2] = sum.Hi, int64(sum.Lo), w[off+2]+u.Diff
			}
		}
	}
}

// inlineKeyOf returns the value and class of row's key when the group
// keeps it inline (see inlineKey) and it is one input column, the common
// GROUP BY of an integer, a date or a timestamp: its group is then found
// without building the key.
func (op *reduceOp) inlineKeyOf(row types.Row) (int64, types.Family, bool) {
	if op.keyCol < 0 || op.keyCol >= len(row) {
		return 0, 0, false
	}
	return inlineDatum(&row[op.keyCol])
}

// inlineGroup returns the position of the group of the key of row, of
// inline value v and class, creating it if need be; last is the group
// of the row before (-1 for none), which an update's −old +new share,
// and hashes[i], when there are hashes, the key's hash.
//
// The memo is asked before the index: a slot indexed by the value's low
// bits, which names the group last found for a value of those bits. Keys
// of a small range (ids of a few thousand categories, days) then never
// share a slot, and finding their group is one load and one comparison,
// where probing the index, about one and a half slots per key at its
// load, mispredicts the loop's exit: the 1,000-row update tick of
// BenchmarkViewUpdate took 8–11% less with the memo, and
// BenchmarkReduceVsMap's ratio rose from 0.69 to 0.94. A slot holds the
// value's low 32 bits, so that a key the memo does not know (many
// groups over a wide range) costs no read of another group's line; the
// group's own key decides.
func (op *reduceOp) inlineGroup(last int32, v int64, class types.Family, hashes []uint64, i int, row types.Row) int32 {
	if last >= 0 {
		if grp := op.groups.at(last); grp.ikey == v && grp.iclass == class {
			return last
		}
	}
	m := &op.memo[uint64(v)&uint64(len(op.memo)-1)]
	if m.low == uint32(v) && m.pos > 0 {
		if grp := op.groups.at(m.pos - 1); grp.ikey == v && grp.iclass == class {
			return m.pos - 1
		}
	}
	pos := op.probeInline(v, class, hashes, i, row)
	*m = memoEntry{pos: pos + 1, low: uint32(v)}
	return pos
}

// memoEntry is a slot of reduceOp.memo: the low 32 bits of a key's value
// and its group's position plus one (0 for an empty slot).
type memoEntry struct {
	pos int32
	low uint32
}

// memoSize is the most slots reduceOp.memo has: 32 KiB, which stays in
// the first-level cache beside a tick's other work.
const memoSize = 4096

// probeInline is inlineGroup's search of the index, for a key the memo
// did not know.
func (op *reduceOp) probeInline(v int64, class types.Family, hashes []uint64, i int, row types.Row) int32 {
	var h uint64
	if hashes != nil {
		h = hashes[i]
	} else {
		h = op.index.hashInline(v, class)
	}
	// The index's findFunc, written out: through its closure the
	// 1,000-row tick of BenchmarkViewUpdate took 4% longer.
	x := op.index
	mask := uint64(len(x.slots) - 1)
	tag := h >> 32
	for j := h & mask; ; j = (j + 1) & mask {
		s := x.slots[j]
		if s == slotEmpty {
			return op.lookup(op.key(row), h)
		}
		if s != slotTombstone && s>>32 == tag {
			if grp := op.groups.at(slotPos(s)); grp.ikey == v && grp.iclass == class {
				return slotPos(s)
			}
		}
	}
}

// group returns the position of the group of row's key, creating it if
// need be; last and hashes are as for inlineGroup.
func (op *reduceOp) group(last int32, row types.Row, hashes []uint64, i int) int32 {
	var key types.Row
	if op.key != nil {
		key = op.key(row)
	}
	if last >= 0 && op.keyIs(last, key) {
		return last
	}
	var h uint64
	if hashes != nil {
		h = hashes[i]
	} else {
		h = op.index.hash(key)
	}
	return op.lookup(key, h)
}

// addWords adds delta row u to the flat aggregates' words w of its
// group: by their WordsOps when they have one, else by their Add.
func (op *reduceOp) addWords(w []int64, u *Update) {
	for i := range op.aggs {
		a := &op.aggs[i]
		if a.flat == nil {
			continue
		}
		aw := w[a.off : a.off+a.n : a.off+a.n]
		if a.inline.Kind != 0 {
			done, err := a.inline.Add(aw, u.Row, u.Diff)
			if err != nil {
				op.rowFailed(u.Diff, err)
			}
			if done {
				continue
			}
		}
		if err := a.flat.Add(aw, u.Row, u.Diff); err != nil {
			op.rowFailed(u.Diff, err)
		}
	}
}

// prefetch hashes the delta's keys and reads the index slots and groups
// they lead to before apply reaches them, when the index is too large
// for the caches: reads for different rows are independent, so the
// processor overlaps their misses, where apply, one row at a time, waits
// for each in turn (over 8,000 ticks, a million groups cost 1.8–2.3× a
// thousand per delta row, 1.4–1.7× with prefetching). A smaller index
// is only warmed (rowIndex.warm). It returns the keys' hashes, or nil
// when it did not hash them. Go has no prefetch instruction; the loads'
// sum is stored so that the compiler keeps them.
func (op *reduceOp) prefetch(d Batch) []uint64 {
	if len(op.index.slots) < prefetchSlots {
		op.sink = op.index.warm(len(d))
		return nil
	}
	if len(d) < 16 {
		return nil
	}
	hs := slices.Grow(op.hashes[:0], len(d))[:len(d)]
	op.hashes = hs
	slots := op.index.slots
	mask := uint64(len(slots) - 1)
	var sink uint64
	for i := range d {
		var key types.Row
		if op.key != nil {
			key = op.key(d[i].Row)
		}
		h := op.index.hash(key)
		hs[i] = h
		sink += slots[h&mask]
	}
	for _, h := range hs {
		if s := slots[h&mask]; s > slotTombstone && s>>32 == h>>32 {
			grp := op.groups.at(slotPos(s))
			sink += uint64(grp.ikey) + uint64(len(grp.row))
		}
	}
	op.sink = sink
	return hs
}

// prefetchRows reads, after prefetch, the output rows of the touched
// groups, which finish compares with their new results and copies the
// keys of, and their index entries, which finish rewrites.
func (op *reduceOp) prefetchRows() {
	var sink uint64
	for _, t := range op.touched {
		if r := op.groups.at(t.pos).row; len(r) > 0 {
			sink += uint64(r[len(r)-1].Kind()) + uint64(r[0].Kind())
		}
		sink += uint64(len(op.index.keys[t.pos]))
	}
	op.sink += sink
}

// prefetchSlots is the index size from which apply prefetches: 2^17
// slots (1 MiB) and their groups no longer stay in the caches.
const prefetchSlots = 1 << 17

// update adds one row to a group's AggStates.
func (op *reduceOp) update(pos int32, u *Update) {
	states := op.groups.at(pos).states(op.nstates)
	for _, a := range op.aggs {
		if a.flat != nil {
			continue
		}
		var err error
		if sz, ok := states[a.off].(StateSizer); ok {
			// The state's size change is counted here, so that
			// StateBytes walks no group (see statesBytes).
			before := sz.StateBytes()
			err = states[a.off].Update(u.Row, u.Diff)
			op.bytes += sz.StateBytes() - before
		} else {
			err = states[a.off].Update(u.Row, u.Diff)
		}
		if err != nil {
			op.rowFailed(u.Diff, err)
		}
	}
}

// rowFailed records a delta row's failure to update an aggregate: the
// error travels as data with the row's weight.
func (op *reduceOp) rowFailed(diff int64, err error) {
	op.out.errs = append(op.out.errs, ErrorUpdate{Err: dataError(err), Diff: diff})
}

// words returns the flat aggregates' words of the group at pos.
func (op *reduceOp) words(pos int32) []int64 {
	if op.stride <= groupWords {
		return op.groups.at(pos).words[:op.stride:op.stride]
	}
	at := int(pos&(chunkSize-1)) * op.stride
	return op.wide[pos>>chunkBits][at : at+op.stride : at+op.stride]
}

// inlineKey returns the value and class of a key that a group keeps
// inline: one column of an integer (class Int8: integers of all widths
// are equal when their values are, and hash alike), a date or a
// timestamp; ok is false for any other key.
func inlineKey(key types.Row) (v int64, class types.Family, ok bool) {
	if len(key) != 1 {
		return 0, 0, false
	}
	return inlineDatum(&key[0])
}

// inlineDatum returns the value and class of d as the one column of an
// inline key.
func inlineDatum(d *types.Datum) (v int64, class types.Family, ok bool) {
	switch k := d.Kind(); {
	case k.IsInteger():
		return d.Int(), types.Int8, true
	case k == types.Date || k == types.Timestamp || k == types.TimestampTZ:
		return d.Int(), k, true
	}
	return 0, 0, false
}

// keyIs reports whether the group at pos has key.
func (op *reduceOp) keyIs(pos int32, key types.Row) bool {
	if v, class, ok := inlineKey(key); ok {
		grp := op.groups.at(pos)
		return grp.iclass == class && grp.ikey == v
	}
	return equalRows(op.index.keys[pos], key)
}

// lookup returns the position of the group of key (hash h), creating it
// with fresh accumulators.
func (op *reduceOp) lookup(key types.Row, h uint64) int32 {
	if p := op.index.findFunc(h, func(p int32) bool { return op.keyIs(p, key) }); p >= 0 {
		return p
	}
	// The key may share the input row's storage: it is copied. In
	// words mode the group's row is its key alone.
	width := len(key) + len(op.spec.Aggs)
	if op.wordsMode {
		width = len(key)
	}
	row := make(types.Row, width)
	copy(row, key)
	pos := op.index.insert(row[:len(key):len(key)], h)
	if int(pos) == op.groups.len() {
		op.groups.grow()
		if i := int(pos >> chunkBits); op.stride > groupWords {
			if i == len(op.wide) {
				op.wide = append(op.wide, nil)
			}
			op.wide[i] = append(op.wide[i], make([]int64, op.stride)...)
		}
	}
	grp := op.groups.at(pos)
	*grp = group{row: row, size: rowBytes(row)}
	grp.ikey, grp.iclass, _ = inlineKey(key)
	if op.stride > groupWords {
		clear(op.words(pos))
	}
	if op.keyed {
		op.kbuf = types.AppendKeyRow(op.kbuf[:0], key)
		grp.kenc, grp.head = string(op.kbuf), headOf(op.kbuf)
		grp.size += int64(len(grp.kenc))
	}
	if n := op.nstates; n > len(grp.statesBuf) {
		grp.more = unsafe.SliceData(make([]AggState, n))
		grp.size += int64(n) * (2 * sizePointer)
	}
	states := grp.states(op.nstates)
	for i, a := range op.aggs {
		if a.flat == nil {
			states[a.off] = op.spec.Aggs[i].NewState()
		}
	}
	op.bytes += grp.size + statesBytes(states)
	return pos
}

// exists reports whether the group at pos has an output row.
func (op *reduceOp) exists(pos int32) bool {
	return op.groups.at(pos).n > 0 || (op.spec.Global && len(op.index.keys[pos]) == 0)
}

// touch records that the group at pos changes in this tick and whether it
// had an output before (its row or err, which stay as they are until
// finish).
func (op *reduceOp) touch(pos int32, existed bool) {
	grp := op.groups.at(pos)
	grp.tick = op.g.tick
	if op.wordsMode {
		c := wordsChange{pos: pos, drop: -1, had: existed}
		if op.stride > groupWords {
			c.old = int32(len(op.wideOlds))
			var w [2 * groupWords]int64
			copy(w[:], op.words(pos))
			op.wideOlds = append(op.wideOlds, w)
		} else {
			c.old = int32(len(op.olds))
			op.olds = append(op.olds, grp.words)
		}
		op.wchanges = append(op.wchanges, c)
		return
	}
	t := touchedGroup{pos: pos, existed: existed}
	if op.keyed {
		t.head, t.kenc = grp.head, grp.kenc
	}
	op.touched = append(op.touched, t)
}

// finishTouched emits the change of one touched group and drops the
// group if it no longer has rows.
func (op *reduceOp) finishTouched(t *touchedGroup) {
	grp := op.groups.at(t.pos)
	exists := op.exists(t.pos)
	var newErr *pgerr.Error
	op.news = op.news[:0]
	if exists {
		op.news, newErr = op.appendResults(op.news, t.pos)
	}
	nk := len(grp.row) - len(op.aggs)
	order := 0
	if t.existed && exists {
		var same bool
		if same, order = compareResults(grp.row[nk:], grp.err, op.news, newErr); same {
			return
		}
	}
	start := len(op.out.delta)
	op.replace(t, exists, newErr, nk)
	if op.keyed {
		op.changed(t.kenc, exists && newErr == nil, start, order, grp.row)
	}
}

// finishWords is finish in words mode, for the tick's touched groups,
// which touch listed in wchanges with whether they had an output: a
// group whose words did not change has not changed and leaves the list;
// any other stays, with whether it had and has a row. Its results are
// computed only to find an error, when an aggregate's result can fail
// (reduceOp.fallible), which is emitted as in finish.
//
// The common change, of a group that had a row and keeps it, under
// aggregates that cannot fail and words the group holds itself, is
// decided here; finishGroup, a call per group, made the 1,000-row
// update tick of BenchmarkViewUpdate 7% longer. The kept changes are
// compacted in place, each copied to its slot before its fields are
// set there: a copy of the change after its fields were written one by
// one waited on the stores (a store-forwarding stall, 70% of the loop's
// own time in perf; the tick took 4% longer).
func (op *reduceOp) finishWords() {
	common := !op.fallible && op.stride <= groupWords
	n := 0
	for i := range op.wchanges {
		c := &op.wchanges[n]
		*c = op.wchanges[i]
		if grp := op.groups.at(c.pos); common && c.had && grp.n > 0 {
			if grp.words != op.olds[c.old] {
				c.has = true
				n++
			}
			continue
		}
		if op.finishGroup(c) {
			n++
		}
	}
	op.wchanges = op.wchanges[:n]
}

// finishGroup finishes the touched group of c, which says on entry
// whether it had an output, and reports whether the Output must hear
// of its change.
func (op *reduceOp) finishGroup(c *wordsChange) bool {
	grp := op.groups.at(c.pos)
	existed, exists := c.had, op.exists(c.pos)
	var words []int64
	var same bool
	if op.stride > groupWords {
		words = op.words(c.pos)
		same = slices.Equal(words, op.oldWords(c.old))
	} else {
		words, same = grp.words[:op.stride], grp.words == op.olds[c.old]
	}
	if existed && exists && same {
		return false
	}
	var newErr, oldErr *pgerr.Error
	if exists && op.fallible {
		newErr = op.wordsError(words)
	}
	if existed && grp.failed {
		oldErr = grp.err
	}
	if oldErr == nil || newErr == nil || compareErrors(oldErr, newErr) != 0 {
		if oldErr != nil {
			op.emit(nil, oldErr, -1)
		}
		if newErr != nil {
			op.emit(nil, newErr, +1)
		}
	}
	if newErr != nil || grp.failed {
		grp.err, grp.failed = newErr, newErr != nil
	}
	c.had, c.has = existed && oldErr == nil, exists && newErr == nil
	dropped := !exists && grp.n == 0
	if dropped && c.had {
		c.drop = int32(len(op.dropped))
		op.dropped = append(op.dropped, grp.key())
	}
	if dropped {
		op.bytes -= grp.size
		op.index.remove(c.pos)
		*grp = group{}
	}
	return c.had || c.has
}

// oldWords returns the words a touched group had before the tick, in
// words mode; i is its wordsChange.old.
func (op *reduceOp) oldWords(i int32) []int64 {
	if op.stride > groupWords {
		return op.wideOlds[i][:op.stride]
	}
	return op.olds[i][:op.stride]
}

// wordsError returns the error of the first aggregate whose result over
// a group's words w fails, nil if none does.
func (op *reduceOp) wordsError(w []int64) *pgerr.Error {
	for _, a := range op.aggs {
		if !a.fallible {
			continue
		}
		if _, err := a.flat.Result(w[a.off : a.off+a.n : a.off+a.n]); err != nil {
			return dataError(err)
		}
	}
	return nil
}

// appendWordsDelta appends the tick's changes in words mode as rows,
// −old +new in row order, for readers of the Output's delta: the rows
// are built only when one asks for them (Output.Delta).
func (op *reduceOp) appendWordsDelta(dst Batch, changes []keyedChange) Batch {
	for i := range changes {
		c := &changes[i]
		var oldRow, newRow types.Row
		if c.had {
			oldRow = wordsRow(op.aggs, c.key, op.oldWords(c.old))
		}
		if c.has {
			newRow = wordsRow(op.aggs, c.key, op.words(c.pos))
		}
		switch {
		case !c.has:
			dst = append(dst, Update{Row: oldRow, Diff: -1})
		case !c.had:
			dst = append(dst, Update{Row: newRow, Diff: +1})
		default:
			// A result that changed representation only is no change,
			// as consolidation would make it.
			_, order := compareResults(oldRow[len(c.key):], nil, newRow[len(c.key):], nil)
			switch {
			case order < 0:
				dst = append(dst, Update{Row: newRow, Diff: +1}, Update{Row: oldRow, Diff: -1})
			case order > 0:
				dst = append(dst, Update{Row: oldRow, Diff: -1}, Update{Row: newRow, Diff: +1})
			}
		}
	}
	return dst
}

// wordsRow builds the output row of a group in words mode from its key
// and words w. Results are a function of the words, and a group has a
// row only when they did not fail, so a failure here is a broken
// FlatAggregate.
func wordsRow(aggs []reduceAgg, key types.Row, w []int64) types.Row {
	row := make(types.Row, len(key), len(key)+len(aggs))
	copy(row, key)
	for _, a := range aggs {
		d, err := a.flat.Result(w[a.off : a.off+a.n : a.off+a.n])
		if err != nil {
			panic(fmt.Sprintf("dataflow: flat aggregate failed on words it succeeded on: %v", err))
		}
		row = append(row, d)
	}
	return row
}

// appendResults appends the aggregates' results of the group at pos to
// dst; on the first failure it returns the error instead (the group's
// output is the error).
func (op *reduceOp) appendResults(dst []types.Datum, pos int32) ([]types.Datum, *pgerr.Error) {
	start := len(dst)
	grp := op.groups.at(pos)
	var words []int64
	if op.stride > 0 {
		words = op.words(pos)
	}
	for _, a := range op.aggs {
		var d types.Datum
		var err error
		if a.flat != nil {
			d, err = a.flat.Result(words[a.off : a.off+a.n : a.off+a.n])
		} else {
			d, err = grp.states(op.nstates)[a.off].Result()
		}
		if err != nil {
			return append(dst[:start], make([]types.Datum, len(op.aggs))...), dataError(err)
		}
		dst = append(dst, d)
	}
	return dst, nil
}

// replace emits a touched group's −old +new, with its new results in
// op.news (or newErr), and drops the group if it no longer has rows.
func (op *reduceOp) replace(t *touchedGroup, exists bool, newErr *pgerr.Error, nk int) {
	grp := op.groups.at(t.pos)
	if t.existed {
		op.emit(grp.row, grp.err, -1)
	}
	if !exists {
		if grp.n == 0 {
			op.bytes -= grp.size + statesBytes(grp.states(op.nstates))
			op.index.remove(t.pos)
			*grp = group{}
		}
		return
	}
	grp.err = newErr
	if newErr != nil {
		op.emit(nil, newErr, +1)
		return
	}
	if grp.emitted {
		row := make(types.Row, len(grp.row))
		copy(row, grp.row[:nk])
		grp.row = row
		op.index.keys[t.pos] = row[:nk:nk]
	}
	copy(grp.row[nk:], op.news)
	grp.emitted = true
	op.emit(grp.row, nil, +1)
}

// changed records the change of a group in a keyed Reduce: its new row,
// or none when it has none (no rows, or an error). It also puts the
// group's −old +new, emitted from start on, in row order (order compares
// the new row with the old), so that the delta stays consolidated. When
// they compare equal (a result that changed representation only) it
// drops both and leaves the Output its old row, as consolidation would.
func (op *reduceOp) changed(kenc string, hasRow bool, start, order int, row types.Row) {
	if d := op.out.delta[start:]; len(d) == 2 {
		switch {
		case order == 0:
			clear(d)
			op.out.delta = op.out.delta[:start]
			return
		case order < 0:
			d[0], d[1] = d[1], d[0]
		}
	}
	if !hasRow {
		row = nil
	}
	op.changes = append(op.changes, groupChange{kenc: kenc, row: row})
}

// emit outputs a group's row or, when its aggregates failed, the error.
func (op *reduceOp) emit(row types.Row, err *pgerr.Error, diff int64) {
	if err != nil {
		op.out.errs = append(op.out.errs, ErrorUpdate{Err: err, Diff: diff})
		return
	}
	op.out.delta = append(op.out.delta, Update{Row: row, Diff: diff})
	op.out.built(row)
}

func (op *reduceOp) StateBytes() int64 {
	n := op.bytes + op.index.size() + int64(op.groups.slots())*sizeGroup + int64(len(op.memo))*int64(unsafe.Sizeof(memoEntry{})) + int64(cap(op.held))*sizeUpdate
	for _, w := range op.wide {
		n += int64(cap(w)) * 8
	}
	return n
}

// statesBytes returns the bytes of a group's aggregate states. The
// Reduce counts them in its bytes as they change (see update), so that
// StateBytes, which SHOW MATERIALIZED VIEWS asks between ticks, costs
// nothing per group.
func statesBytes(states []AggState) int64 {
	var n int64
	for _, st := range states {
		if s, ok := st.(StateSizer); ok {
			n += s.StateBytes()
		} else if st != nil {
			n += sizeAggState
		}
	}
	return n
}

// sameResults reports whether results b (or error bErr) are the same as
// results a (or aErr); see compareResults.
func sameResults(a []types.Datum, aErr *pgerr.Error, b []types.Datum, bErr *pgerr.Error) bool {
	same, _ := compareResults(a, aErr, b, bErr)
	return same
}

// compareResults reports whether a group's new results b (or error bErr)
// are the same as its old ones a (or aErr), equal and of the same kinds,
// and, when both are rows, how b compares with a (types.CompareRows).
func compareResults(a []types.Datum, aErr *pgerr.Error, b []types.Datum, bErr *pgerr.Error) (same bool, order int) {
	if aErr != nil || bErr != nil {
		return aErr != nil && bErr != nil && compareErrors(aErr, bErr) == 0, 0
	}
	same = true
	for i := range a {
		if c := types.Compare(b[i], a[i]); c != 0 {
			return false, c
		}
		if a[i].Kind() != b[i].Kind() {
			same = false
		}
	}
	return same, 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
