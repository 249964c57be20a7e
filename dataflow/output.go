package dataflow

import (
	"context"
	"slices"
	"sync"
	"unsafe"

	"github.com/tidwall/btree"

	"github.com/streamdb/streamdb/sql/types"
)

// Output returns a maintained, readable collection: the full consolidated
// contents of src (row → multiplicity) and the consolidated errors of
// everything upstream of it. It backs materialized views and tables.
func (g *Graph) Output(src Node) *Output {
	o := newOutput(g.input(src), nil)
	g.add(&outputOp{o: o}, new(stream))
	return o
}

// Output is a collection maintained by a graph and read by other
// goroutines. The graph's goroutine applies each tick's consolidated delta
// to an ordered copy-on-write B-tree (tidwall/btree) of encoded rows, keyed
// by the memcomparable encoding of the row (for an Index: of the index key,
// then the row), under a mutex held only while one tick's delta is applied.
// Snapshot takes a lazy O(1) copy of the tree: the copy and the live tree
// share nodes, and the live tree clones a node before its first mutation
// after a copy, so a snapshot stays immutable while later ticks proceed and
// readers iterate it without locks.
type Output struct {
	in  *stream
	key func(types.Row) types.Row

	// Owned by the graph's goroutine.
	cons      consolidator
	delta     Batch
	deltaErrs []ErrorUpdate
	kbuf      []byte
	vbuf      []byte
	hint      btree.PathHint

	mu    sync.Mutex
	tree  *btree.BTreeG[item]
	errs  []ErrorUpdate
	bytes int64
	// snap is the snapshot of the current contents, nil until asked for
	// after a change.
	snap *Snapshot
}

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

func itemLess(a, b item) bool { return a.kv[:a.klen] < b.kv[:b.klen] }

func newOutput(in *stream, key func(types.Row) types.Row) *Output {
	return &Output{in: in, key: key, tree: btree.NewBTreeGOptions(itemLess, btree.Options{NoLocks: true})}
}

// Snapshot returns an immutable view of the collection as of the last
// completed Step. It is safe to call from any goroutine, and the view may
// be read while later Steps run. To read several outputs at one
// consistent tick, take their snapshots between Steps.
func (o *Output) Snapshot() *Snapshot {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.snap == nil {
		o.snap = &Snapshot{tree: o.tree.Copy(), errs: slices.Clone(o.errs), keyed: o.key != nil}
	}
	return o.snap
}

// Delta returns the consolidated change of the last Step, to feed
// dependent graphs. It belongs to the graph's goroutine and is valid until
// the next Step.
func (o *Output) Delta() Batch { return o.delta }

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
	clear(o.delta)
	o.delta = o.cons.consolidate(append(o.delta[:0], o.in.delta...))
	clear(o.deltaErrs)
	o.deltaErrs = ConsolidateErrors(append(o.deltaErrs[:0], o.in.errs...))
	if len(o.delta) == 0 && len(o.deltaErrs) == 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for i, u := range o.delta {
		k := o.cons.key(i)
		if o.key != nil {
			o.kbuf = types.AppendKeyRow(o.kbuf[:0], o.key(u.Row))
			o.kbuf = append(o.kbuf, k...)
			k = o.kbuf
		}
		o.apply(k, u)
	}
	if len(o.deltaErrs) > 0 {
		o.errs = ConsolidateErrors(append(slices.Clone(o.errs), o.deltaErrs...))
	}
	o.snap = nil
}

// apply adds one consolidated update under its ordering key. Each
// change costs one search in the common case: a retraction deletes its
// row outright and puts it back only if copies remain, an insertion sets
// its row and merges with the row it replaced only if there was one.
func (o *Output) apply(k []byte, u Update) {
	if u.Diff < 0 {
		probe := item{kv: unsafe.String(unsafe.SliceData(k), len(k)), klen: len(k)}
		if cur, ok := o.tree.DeleteHint(probe, &o.hint); ok {
			if cur.n += u.Diff; cur.n != 0 {
				o.tree.SetHint(cur, &o.hint)
				return
			}
			o.bytes -= sizeItem + int64(len(cur.kv))
			return
		}
	}
	o.vbuf = appendRowValue(append(o.vbuf[:0], k...), u.Row)
	it := item{kv: string(o.vbuf), klen: len(k), n: u.Diff}
	prev, replaced := o.tree.SetHint(it, &o.hint)
	if !replaced {
		o.bytes += sizeItem + int64(len(it.kv))
		return
	}
	// The row was present: it keeps its first stored form (rows that
	// compare equal may differ in representation, numeric 1.0 and 1.00).
	if prev.n += u.Diff; prev.n == 0 {
		o.tree.DeleteHint(prev, &o.hint)
		o.bytes -= sizeItem + int64(len(prev.kv))
		return
	}
	o.tree.SetHint(prev, &o.hint)
}

// outputOp is the operator that maintains an Output (or Index).
type outputOp struct {
	o *Output
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

func (op *outputOp) StateBytes() int64 { return op.o.StateBytes() }
