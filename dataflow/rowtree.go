package dataflow

import (
	"sort"
	"unsafe"
)

// rowTree is the ordered collection behind an Output: a copy-on-write
// B+-tree of items (rows under their ordering key), leaves holding the
// items, inner nodes routing by their children's first keys.
//
// A tick's consolidated delta is sorted by the same key, so it is applied
// in one merge: the delta is split among the children of each node it
// reaches, and each leaf it reaches is rewritten once with all of its
// changes, instead of one search, shift and write per change. A GROUP BY
// view's tick is mostly pairs −old +new of neighbouring rows, which land
// in the same leaf.
//
// Snapshots share nodes with the live tree. Every node carries the
// generation it was made in; taking a snapshot starts a new generation,
// and the live tree copies a node of an older generation before changing
// it, so a snapshot never sees a later tick.
type rowTree struct {
	root *tnode
	gen  uint64
}

// tnode is a leaf (items) or an inner node (kids, with firsts[i] the
// first key of kids[i]). first is the node's own first key; count the
// items beneath it.
type tnode struct {
	gen    uint64
	count  int
	first  string
	items  []item
	kids   []*tnode
	firsts []string
}

// Node sizes: a leaf is rewritten whole when it changes, so it stays
// small enough to copy cheaply and large enough to keep the tree shallow.
// A node below its minimum is joined with a neighbour.
const (
	maxLeaf = 64
	minLeaf = maxLeaf / 4
	maxKids = 64
	minKids = maxKids / 4
)

// change is one consolidated update of an Output under its ordering key.
type change struct {
	key []byte
	u   Update
}

// len returns the number of distinct rows.
func (t *rowTree) len() int {
	if t.root == nil {
		return 0
	}
	return t.root.count
}

// snapshot returns an immutable copy of the tree as it is now.
func (t *rowTree) snapshot() rowTree {
	s := *t
	t.gen++
	return s
}

// ascend calls fn for every item from the key from on, in key order,
// until fn returns false.
func (t *rowTree) ascend(from string, fn func(item) bool) {
	if t.root != nil {
		t.root.ascend(from, fn)
	}
}

func (n *tnode) ascend(from string, fn func(item) bool) bool {
	if n.kids == nil {
		i := sort.Search(len(n.items), func(i int) bool { return n.items[i].key() >= from })
		for _, it := range n.items[i:] {
			if !fn(it) {
				return false
			}
		}
		return true
	}
	for _, kid := range n.kids[n.route(from):] {
		if !kid.ascend(from, fn) {
			return false
		}
		from = ""
	}
	return true
}

// route returns the index of the child whose keys span k: the last one
// whose first key is at most k, or the first.
func (n *tnode) route(k string) int {
	i := sort.Search(len(n.firsts), func(i int) bool { return n.firsts[i] > k })
	return max(i-1, 0)
}

// treeWriter applies deltas to a rowTree, with the scratch space that
// keeps the merge from allocating beyond the nodes it creates.
type treeWriter struct {
	items []item
	// nodes[d] collects the new children of the node being merged at
	// depth d.
	nodes [][]*tnode
	vbuf  []byte
	// bytes is the change of the stored items' size during apply.
	bytes int64
}

// apply merges changes, sorted by key with each key once, into t. A
// change to a present row adds to its multiplicity (dropping it at zero);
// a change to an absent row inserts it with the change's weight.
func (w *treeWriter) apply(t *rowTree, changes []change) {
	if len(changes) == 0 {
		return
	}
	root := t.root
	if root == nil {
		root = &tnode{gen: t.gen}
	}
	nodes := w.merge(t, nil, root, changes, 0)
	for len(nodes) > maxKids {
		var parents []*tnode
		for len(nodes) > 0 {
			k := min(len(nodes), maxKids)
			if len(nodes)-k < minKids && len(nodes) > k {
				k = len(nodes) / 2
			}
			parents = append(parents, w.inner(t, nil, nodes[:k]))
			nodes = nodes[k:]
		}
		nodes = parents
	}
	switch len(nodes) {
	case 0:
		t.root = nil
	case 1:
		t.root = nodes[0]
	default:
		t.root = w.inner(t, nil, nodes)
	}
	for t.root != nil && len(t.root.kids) == 1 {
		t.root = t.root.kids[0]
	}
}

// merge applies changes to n and appends the nodes that replace it (none,
// n itself or a copy, or several after a split) to dst.
func (w *treeWriter) merge(t *rowTree, dst []*tnode, n *tnode, changes []change, depth int) []*tnode {
	if n.kids == nil {
		return w.mergeLeaf(t, dst, n, changes)
	}
	for len(w.nodes) <= depth {
		w.nodes = append(w.nodes, nil)
	}
	kids := w.nodes[depth][:0]
	j := 0
	for i, kid := range n.kids {
		end := len(changes)
		if i+1 < len(n.kids) {
			next := n.firsts[i+1]
			end = j + sort.Search(len(changes)-j, func(x int) bool { return keyString(changes[j+x].key) >= next })
		}
		if end == j {
			kids = append(kids, kid)
			continue
		}
		kids = w.merge(t, kids, kid, changes[j:end], depth+1)
		j = end
	}
	kids = w.rebalance(t, kids)
	w.nodes[depth] = kids
	if len(kids) == 0 {
		return dst
	}
	var own *tnode
	if n.gen == t.gen {
		own = n
	}
	for len(kids) > maxKids {
		k := len(kids) / 2
		if len(kids) >= 2*maxKids {
			k = maxKids
		}
		dst = append(dst, w.inner(t, own, kids[:k]))
		own = nil
		kids = kids[k:]
	}
	dst = append(dst, w.inner(t, own, kids))
	clear(w.nodes[depth])
	return dst
}

// inner returns an inner node over kids (copied), reusing n if it is
// given.
func (w *treeWriter) inner(t *rowTree, n *tnode, kids []*tnode) *tnode {
	if n == nil {
		n = &tnode{gen: t.gen}
	}
	n.kids = append(n.kids[:0], kids...)
	n.firsts = n.firsts[:0]
	n.count = 0
	for _, k := range n.kids {
		n.firsts = append(n.firsts, k.first)
		n.count += k.count
	}
	n.first = n.firsts[0]
	return n
}

// mergeLeaf merges changes into leaf n's items.
func (w *treeWriter) mergeLeaf(t *rowTree, dst []*tnode, n *tnode, changes []change) []*tnode {
	out := w.items[:0]
	i := 0
	for _, c := range changes {
		k := keyString(c.key)
		for i < len(n.items) && n.items[i].key() < k {
			out = append(out, n.items[i])
			i++
		}
		if i < len(n.items) && n.items[i].key() == k {
			it := n.items[i]
			i++
			// A present row keeps its first stored form (rows that compare
			// equal may differ in representation, numeric 1.0 and 1.00).
			if it.n += c.u.Diff; it.n == 0 {
				w.bytes -= sizeItem + int64(len(it.kv))
				continue
			}
			out = append(out, it)
			continue
		}
		w.vbuf = appendRowValue(append(w.vbuf[:0], c.key...), c.u.Row)
		it := item{kv: string(w.vbuf), klen: len(c.key), n: c.u.Diff}
		w.bytes += sizeItem + int64(len(it.kv))
		out = append(out, it)
	}
	out = append(out, n.items[i:]...)
	w.items = out
	own := n
	if n.gen != t.gen {
		own = nil
	}
	for len(out) > 0 {
		k := len(out)
		if k > maxLeaf {
			// Split evenly, so that every part is well above minLeaf.
			parts := (k + maxLeaf - 1) / maxLeaf
			k = (k + parts - 1) / parts
		}
		dst = append(dst, w.leaf(t, own, out[:k]))
		own = nil
		out = out[k:]
	}
	clear(w.items)
	return dst
}

// leaf returns a leaf holding items (copied), reusing n if it is given.
func (w *treeWriter) leaf(t *rowTree, n *tnode, items []item) *tnode {
	if n == nil {
		n = &tnode{gen: t.gen, items: make([]item, 0, maxLeaf)}
	}
	old := len(n.items)
	n.items = append(n.items[:0], items...)
	if old > len(items) {
		clear(n.items[len(items):old])
	}
	n.count = len(n.items)
	n.first = n.items[0].key()
	return n
}

// rebalance joins each node of a list of siblings that fell below its
// minimum size with a neighbour, splitting the join again if it is too
// large.
func (w *treeWriter) rebalance(t *rowTree, nodes []*tnode) []*tnode {
	for i := 0; i < len(nodes) && len(nodes) > 1; i++ {
		n := nodes[i]
		if n.kids == nil && len(n.items) >= minLeaf || len(n.kids) >= minKids {
			continue
		}
		a := max(i-1, 0)
		joined := w.join(t, nodes[a], nodes[a+1])
		nodes = append(append(nodes[:a], joined...), nodes[a+2:]...)
		i = a
	}
	return nodes
}

// join returns the contents of siblings a and b (a before b) in one node,
// or two if they do not fit in one.
func (w *treeWriter) join(t *rowTree, a, b *tnode) []*tnode {
	own := a
	if a.gen != t.gen {
		own = nil
	}
	if a.kids == nil {
		items := append(append(w.items[:0], a.items...), b.items...)
		w.items = items
		var res []*tnode
		if len(items) > maxLeaf {
			h := len(items) / 2
			res = []*tnode{w.leaf(t, own, items[:h]), w.leaf(t, nil, items[h:])}
		} else {
			res = []*tnode{w.leaf(t, own, items)}
		}
		clear(w.items)
		return res
	}
	kids := append(append([]*tnode(nil), a.kids...), b.kids...)
	if len(kids) > maxKids {
		h := len(kids) / 2
		return []*tnode{w.inner(t, own, kids[:h]), w.inner(t, nil, kids[h:])}
	}
	return []*tnode{w.inner(t, own, kids)}
}

// keyString views a key's bytes as a string for comparison, without
// copying.
func keyString(k []byte) string { return unsafe.String(unsafe.SliceData(k), len(k)) }
