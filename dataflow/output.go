package dataflow

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"unsafe"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// Output returns a maintained, readable collection: the full consolidated
// contents of src (row → multiplicity) and the consolidated errors of
// everything upstream of it. It backs materialized views and tables.
//
// An Output that reads a Reduce directly keeps the Reduce's groups (see
// groupItem) rather than a consolidated copy of its delta, unless the
// Reduce forgets closed groups (GroupExpiry) whose rows the Output keeps.
func (g *Graph) Output(src Node) *Output {
	o := newOutput(g.input(src), nil)
	o.persistAs(g.stateKeys())
	if r, ok := g.ops[src.id].(*reduceOp); ok && !r.keyed && !r.started && r.spec.Expire == nil {
		r.keyed, o.red, o.wm.red, o.wideM.red = true, r, r, r
		o.gw.m, o.ww.m, o.wideW.m = &o.gm, &o.wm, &o.wideM
		o.ww.p, o.wideW.p = &o.wm, &o.wideM
	}
	g.add(&outputOp{o: o}, new(stream))
	return o
}

// Output is a collection maintained by a graph and read by other
// goroutines. The graph's goroutine merges each tick's consolidated delta
// into an ordered copy-on-write B+-tree of encoded rows (rowTree), keyed
// by the memcomparable encoding of the row (for an Index: of the index key,
// then the row), under a mutex held only while one tick's delta is applied.
// Snapshot takes an O(1) copy of the tree: the copy and the live tree
// share nodes, and the live tree copies a node before its first change
// after a snapshot, so a snapshot stays immutable while later ticks proceed
// and readers iterate it without locks. An Output that reads a Reduce
// keeps the Reduce's rows by group instead (output_group.go).
type Output struct {
	in  *stream
	key func(types.Row) types.Row

	// Owned by the graph's goroutine.
	cons      consolidator
	delta     Batch
	deltaErrs []ErrorUpdate
	kbuf      []byte
	changes   []change
	w         treeWriter[item, change]
	m         itemMerger
	// red is the Reduce whose groups a grouped Output keeps, nil for any
	// other Output; gw and gm merge its changes into groups.
	red *reduceOp
	gw  treeWriter[groupItem, groupChange]
	gm  groupMerger
	// In words mode (see output_group.go), ww and wm merge the Reduce's
	// wchanges into words (wideW and wideM into wide, for wider words),
	// and wdelta is the tick's delta, built when asked for.
	ww    treeWriter[wordItem, keyedChange]
	wm    wordMerger
	wideW treeWriter[wideWordItem, keyedChange]
	wideM wideWordMerger
	// rest holds the tick's wchanges that inPlace leaves to the merge,
	// keyed all of them for the delta's rows, and spare is scratch space
	// for sorting either.
	rest, keyed, spare []keyedChange
	wdelta             Batch
	built              bool

	mu sync.Mutex
	// wanted asks the next Publish for a held snapshot: a read found
	// the last one revoked. last is the last published snapshot.
	wanted bool
	last   *Snapshot
	tree   rowTree[item]
	groups rowTree[groupItem]
	words  rowTree[wordItem]
	wide   rowTree[wideWordItem]
	errs   []ErrorUpdate
	bytes  int64
	// snap is the snapshot of the current contents, nil until asked for
	// after a change.
	snap *Snapshot
	// sk is where the Output persists its contents (output_persist.go).
	sk *stateKeys
}

// ErrSnapshotGone is the error of a read of a published snapshot that
// was revoked before the read began (see Output.Publish): the reader
// must read a newer one. It is a serialization failure, should it reach
// a client.
var ErrSnapshotGone error = pgerr.New(pgerr.SerializationFailure, "a materialized view changed before the statement could read it").WithHint("Retry the statement.")

// item is one row of an Output: its ordering key and its value encoding,
// in one string, and its multiplicity. Items are values, never mutated in
// place, because snapshots share them.
type item struct {
	kv   string
	klen int
	n    int64
}

const sizeItem = int64(unsafe.Sizeof(item{}))

func (it item) key() string { return it.kv[:it.klen] }
func (it item) val() string { return it.kv[it.klen:] }

// change is one consolidated update of an Output under its ordering key.
type change struct {
	key []byte
	u   Update
}

// itemMerger merges changes into an Output's items: a change to a present
// row adds to its multiplicity (dropping it at zero); a change to an
// absent row inserts it with the change's weight.
type itemMerger struct {
	vbuf []byte
	// bytes is the change of the stored items' size during a merge.
	bytes int64
	// sk is where the items' changes are persisted (output_persist.go),
	// index whether they are an Index's.
	sk    *stateKeys
	index bool
	row   types.Row // scratch for storedDetermined
}

func (m *itemMerger) key(c *change) string { return keyString(c.key) }

func (m *itemMerger) update(it item, c *change) (item, bool) {
	// A present row keeps its first stored form (rows that compare equal
	// may differ in representation, numeric 1.0 and 1.00).
	it.n += c.u.Diff
	if m.sk.on() {
		m.persist(it, m.storedDetermined(it))
	}
	if it.n == 0 {
		m.bytes -= sizeItem + int64(len(it.kv))
		return it, false
	}
	return it, true
}

func (m *itemMerger) insert(c *change) (item, bool) {
	m.vbuf = appendRowValue(append(m.vbuf[:0], c.key...), c.u.Row)
	it := item{kv: string(m.vbuf), klen: len(c.key), n: c.u.Diff}
	m.bytes += sizeItem + int64(len(it.kv))
	if m.sk.on() {
		m.persist(it, !m.index && keyDetermines(c.u.Row))
	}
	return it, true
}

func newOutput(in *stream, key func(types.Row) types.Row) *Output {
	o := &Output{in: in, key: key}
	o.w.m = &o.m
	return o
}

// Snapshot returns an immutable view of the collection as of the last
// completed Step. It is safe to call from any goroutine, and the view may
// be read while later Steps run. To read several outputs at one
// consistent tick, take their snapshots between Steps. The snapshot is
// never revoked: later Steps copy every tree node they change.
func (o *Output) Snapshot() *Snapshot {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.published()
	o.hold(s)
	s.state.Or(snapKept)
	return s
}

// Publish is Snapshot for a snapshot that may never be read, or read
// once: the engine publishes every changed view after every tick, and
// most of those snapshots are never read before the next tick. Holding
// a snapshot makes the next Step copy every tree node it changes (a
// GROUP BY view of a million groups copies a leaf per changed group,
// and a view read after every tick copies all of its leaves), so a Step
// that changes the collection first revokes the published snapshot
// unless a reader pins it (see Snapshot.Pin), and changes its nodes in
// place. A snapshot is held when it is first pinned. A read of a revoked
// snapshot fails with ErrSnapshotGone, and the next Publish returns a
// held snapshot that no Step revokes before its first read, so that the
// retry finds one. While reads keep coming, snapshots are held at once:
// Publish holds its snapshot when the last one was read, and stops when
// one was not.
func (o *Output) Publish() *Snapshot {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.published()
	if o.wanted || o.last != nil && o.last != s && o.last.state.Load()&snapRead != 0 {
		o.hold(s)
	}
	o.wanted, o.last = false, s
	return s
}

// published returns the snapshot of the current contents, held or not.
// The caller holds o.mu.
func (o *Output) published() *Snapshot {
	if o.snap == nil {
		o.snap = &Snapshot{out: o, tree: o.tree, errs: slices.Clone(o.errs), keyed: o.key != nil, n: o.tree.len()}
		if o.red != nil {
			o.snap.grouped, o.snap.groups, o.snap.aggs, o.snap.n = true, o.groups, len(o.red.spec.Aggs), o.groups.len()
			if o.red.wordsMode {
				o.snap.words, o.snap.wgroups, o.snap.flat, o.snap.n = true, o.words, o.red.aggs, o.words.len()
				if o.red.stride > groupWords {
					o.snap.wide, o.snap.wideGroups, o.snap.n = true, o.wide, o.wide.len()
				}
			}
		}
	}
	return o.snap
}

// hold keeps s, the current snapshot, as it is: the trees start a new
// generation, so that later Steps copy the nodes they change. The caller
// holds o.mu.
func (o *Output) hold(s *Snapshot) {
	if s.state.Load()&snapHeld != 0 {
		return
	}
	o.tree.keep()
	o.groups.keep()
	o.words.keep()
	o.wide.keep()
	s.state.Or(snapHeld)
}

// revoke gives up the current snapshot, before a Step changes the trees,
// unless it is kept for good, pinned, or held for a first reader still to
// come. A held snapshot given up gives its generation back to the trees,
// which the Step then changes in place: no other copy of them was made
// since hold. The caller holds o.mu.
func (o *Output) revoke() {
	s := o.snap
	o.snap = nil
	if s == nil {
		return
	}
	for {
		st := s.state.Load()
		if st&snapHeld != 0 && (st&(snapKept|snapPins) != 0 || st&snapRead == 0) {
			return
		}
		if s.state.CompareAndSwap(st, st|snapGone) {
			if st&snapHeld != 0 {
				o.tree.forget()
				o.groups.forget()
				o.words.forget()
				o.wide.forget()
			}
			return
		}
	}
}

// Delta returns the consolidated change of the last Step, to feed
// dependent graphs. It belongs to the graph's goroutine and is valid until
// the next Step.
func (o *Output) Delta() Batch {
	if o.red != nil && o.red.wordsMode {
		return o.wordsDelta()
	}
	return o.delta
}

// DeltaErrors returns the consolidated change of the error collection in
// the last Step; see Delta.
func (o *Output) DeltaErrors() []ErrorUpdate { return o.deltaErrs }

// Errors returns the consolidated error collection: every error upstream
// of the output whose rows are still present. When it is non-empty, reads
// of the view fail with its first error.
func (o *Output) Errors() []ErrorUpdate {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.errs)
}

// StateBytes returns the approximate bytes of the maintained collection.
func (o *Output) StateBytes() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.bytes
}

// step consolidates the tick's delta and applies it.
func (o *Output) step() {
	if o.red != nil {
		o.stepGroups()
		return
	}
	clear(o.delta)
	o.delta = o.cons.into(o.delta[:0], o.in.delta)
	clear(o.deltaErrs)
	o.deltaErrs = ConsolidateErrors(append(o.deltaErrs[:0], o.in.errs...))
	if len(o.delta) == 0 && len(o.deltaErrs) == 0 {
		return
	}
	o.changes = o.changes[:0]
	o.kbuf = o.kbuf[:0]
	for i, u := range o.delta {
		k := o.cons.key(i)
		if o.key != nil {
			start := len(o.kbuf)
			o.kbuf = types.AppendKeyRow(o.kbuf, o.key(u.Row))
			o.kbuf = append(o.kbuf, k...)
			k = o.kbuf[start:len(o.kbuf):len(o.kbuf)]
		}
		o.changes = append(o.changes, change{key: k, u: u})
	}
	if o.key != nil {
		// The delta is in row order; an index orders by its key first.
		slices.SortFunc(o.changes, func(a, b change) int { return bytes.Compare(a.key, b.key) })
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.revoke()
	o.m.bytes = 0
	o.w.apply(&o.tree, o.changes)
	o.bytes += o.m.bytes
	clear(o.changes)
	o.mergeErrors()
}

// mergeErrors adds the tick's error delta to the error collection, a new
// slice since snapshots share the old one. The caller holds o.mu.
func (o *Output) mergeErrors() {
	if len(o.deltaErrs) > 0 {
		o.errs = ConsolidateErrors(append(slices.Clone(o.errs), o.deltaErrs...))
		if o.sk.on() {
			o.persistErrors()
		}
	}
}

// outputOp is the operator that maintains an Output (or Index).
type outputOp struct {
	o *Output
	// staged gathers a final step's chunks, which the Output takes in
	// at once at the end (an Output is read between ticks).
	staged heldInput
	// derived marks an Output whose rows and errors are derived state
	// (see derive.go): not persisted, rebuilt at restore.
	derived bool
}

var _ operator = (*outputOp)(nil)

func (op *outputOp) Name() string {
	if op.o.key != nil {
		return "Index"
	}
	return "Output"
}

func (op *outputOp) Step(context.Context) error {
	op.o.step()
	return nil
}

func (op *outputOp) absorb(context.Context, int) error {
	op.staged.absorb(op.o.in)
	return nil
}

// finish steps the Output on the final step's whole input.
func (op *outputOp) finish(ctx context.Context) error {
	return op.staged.finish(ctx, op.o.in, op.Step)
}

func (op *outputOp) StateBytes() int64 { return op.o.StateBytes() }
