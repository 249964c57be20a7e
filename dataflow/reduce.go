package dataflow

import (
	"context"
	"strings"
	"unsafe"

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
	// Expire, when set, forgets the groups that can no longer change.
	Expire *GroupExpiry
}

// GroupExpiry closes the groups of a Reduce whose key column the
// watermark has passed (a window that has ended): no change can reach
// them any more, so their state is dropped, emitting nothing. Their
// rows stay downstream as they were. Key is the position of the column
// in ReduceSpec.KeyCols.
type GroupExpiry struct {
	Key       int
	Watermark Watermark
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
	op := &reduceOp{g: g, in: g.input(src), out: out, spec: spec, index: newRowIndex(), keyCol: -1, sk: g.stateKeys()}
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
		if _, ok := a.NewState().(ElementState); ok {
			op.elements = true
		}
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
	// sk is the Reduce's persisted state (reduce_persist.go); elements
	// is set when an aggregate's states are ElementStates, and rbuf is
	// scratch space for encoding.
	sk       *stateKeys
	elements bool
	rbuf     []byte
	// closing orders the groups by the value of the expiring key column
	// (spec.Expire), for expire.
	closing expiryHeap[groupClosing]
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
// output between groups in a final step, and persists the touched groups.
func (op *reduceOp) finish(ctx context.Context) error {
	op.begin()
	if op.held != nil {
		op.applyDelta(op.held)
		op.held = nil
	}
	if op.sk.on() {
		op.persistTouched()
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
	if err == nil && op.spec.Expire != nil {
		op.expire()
	}
	return err
}

// sortTouched puts the tick's touched groups in key order.
func (op *reduceOp) sortTouched() {
	op.touched, op.spare = sortByKey(op.touched, op.spare, func(g *touchedGroup) keyHead { return g.head }, compareTouched)
}

func (op *reduceOp) StateBytes() int64 {
	n := op.bytes + int64(cap(op.closing))*sizeGroupClosing + op.index.size() + int64(op.groups.slots())*sizeGroup + int64(len(op.memo))*int64(unsafe.Sizeof(memoEntry{})) + int64(cap(op.held))*sizeUpdate
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
