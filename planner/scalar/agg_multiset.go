package scalar

import (
	"github.com/tidwall/btree"

	"github.com/streamdb/streamdb/types"
)

// multiset is the per-group state of the aggregates that cannot be
// inverted: min, max, string_agg, array_agg, jsonb_agg, jsonb_object_agg,
// and DISTINCT aggregates with ORDER BY. It counts each distinct input
// (ORDER BY keys, then arguments) in a B-tree ordered by the memcomparable
// key encoding, so deleting any value, including the current extreme, is
// O(log n), and the accumulator reads the inputs in ORDER BY order.
//
// Equal values may be written differently (numerics 7 and 7.0): each
// form is an entry of its own, its exact encoding after the key, so that
// array_agg shows every row's form and min, max and DISTINCT pick a form
// by its encoding, not by the order rows came in (DISTINCT the first of
// the equal entries).
type multiset struct {
	tree     *btree.BTreeG[*msEntry]
	distinct bool
	// byValue orders the entries by their arguments before the ORDER BY
	// keys, for the aggregates that fold values whatever their order
	// (min(x ORDER BY y) is still the least x; the keys are evaluated,
	// and fail, all the same).
	byValue bool
	acc     orderedAccumulator
	keyBuf  []byte
	probe   msEntry
	bytes   int64 // estimated memory of the entries
}

type msEntry struct {
	key string
	// eq is the length of key's part that equal values share: the
	// ORDER BY keys and the arguments' key encoding (byValue: the
	// arguments' key encoding alone).
	eq   int
	args []types.Datum
	n    int64
}

// orderedAccumulator computes a result from the multiset's entries.
type orderedAccumulator interface {
	fold(m *multiset) (types.Datum, error)
}

func newMultiset(distinct, byValue bool, acc orderedAccumulator) *multiset {
	less := func(a, b *msEntry) bool { return a.key < b.key }
	return &multiset{tree: btree.NewBTreeGOptions(less, btree.Options{NoLocks: true}), distinct: distinct, byValue: byValue, acc: acc}
}

// appendOrderKey encodes one ORDER BY value: a NULL-placement byte, then
// the value's key (descending keys are inverted by AppendKey).
func appendOrderKey(dst []byte, d types.Datum, o *AggOrder) []byte {
	switch {
	case d.IsNull() && o.NullsFirst:
		return append(dst, 0)
	case d.IsNull():
		return append(dst, 2)
	}
	return types.AppendKey(append(dst, 1), d, o.Desc)
}

func (m *multiset) add(spec *AggSpec, row types.Row, args []types.Datum, diff int64) error {
	key := m.keyBuf[:0]
	eq := 0
	if m.byValue {
		key = types.AppendKeyRow(key, args)
		eq = len(key)
	}
	for i := range spec.Order {
		o := &spec.Order[i]
		d, err := o.Eval(spec.Eval, row)
		if err != nil {
			return err
		}
		key = appendOrderKey(key, d, o)
	}
	if !m.byValue {
		key = types.AppendKeyRow(key, args)
		eq = len(key)
	}
	key = types.AppendRow(key, args)
	m.keyBuf = key
	m.probe.key = string(key)
	if e, ok := m.tree.Get(&m.probe); ok {
		e.n += diff
		if e.n == 0 {
			m.tree.Delete(e)
			m.bytes -= e.size()
		}
		return nil
	}
	if diff == 0 {
		return nil
	}
	e := &msEntry{key: m.probe.key, eq: eq, args: append([]types.Datum(nil), args...), n: diff}
	m.tree.Set(e)
	m.bytes += e.size()
	return nil
}

// size estimates an entry's memory: the struct, its key, its argument
// Datums and their string payloads, plus the tree's slot.
func (e *msEntry) size() int64 {
	n := int64(64 + len(e.key) + 56*len(e.args))
	for _, a := range e.args {
		n += int64(len(a.Str()))
	}
	return n
}

// each calls fn for every value with its multiplicity (for DISTINCT,
// once for equal values, with the first of their forms), in order, until
// fn returns false.
func (m *multiset) each(fn func(args []types.Datum, n int64) bool) {
	var prev string
	started := false
	m.tree.Scan(func(e *msEntry) bool {
		if e.n <= 0 {
			return true
		}
		n := e.n
		if m.distinct {
			p := e.key[:e.eq]
			if started && p == prev {
				return true
			}
			prev, started = p, true
			n = 1
		}
		return fn(e.args, n)
	})
}

// first and last return the extreme entries with a positive count.
func (m *multiset) first() ([]types.Datum, bool) {
	var out []types.Datum
	m.each(func(args []types.Datum, _ int64) bool { out = args; return false })
	return out, out != nil
}

func (m *multiset) last() ([]types.Datum, bool) {
	var out []types.Datum
	m.tree.Reverse(func(e *msEntry) bool {
		if e.n > 0 {
			out = e.args
			return false
		}
		return true
	})
	return out, out != nil
}

func (m *multiset) result() (types.Datum, error) { return m.acc.fold(m) }
