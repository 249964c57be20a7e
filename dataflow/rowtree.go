package dataflow

import (
	"slices"
	"sort"
	"unsafe"
)

// rowTree is the ordered collection behind an Output: a copy-on-write
// B+-tree of items (rows under their ordering key), leaves holding the
// items, inner nodes routing by their children's first keys. The item
// type is a parameter: an Output keeps encoded rows with multiplicities
// (item), a grouped Output its Reduce's rows by group (groupItem).
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
type rowTree[I treeItem] struct {
	root *tnode[I]
	gen  uint64
	// leaves holds the live tree's leaves by id (tnode.id), and free the
	// ids of leaves that left it. A merger records where a change put
	// its item as a leaf id and an index (see placer): an id holds
	// no leaf alive once the leaf leaves the tree, and a leaf's copy for
	// a snapshot takes over its id, so that the items it copies are found
	// at their places again. Only the live tree's writer uses them.
	leaves []*tnode[I]
	free   []int32
}

// register records leaf n of the live tree under the id of prev, the
// leaf it replaces, or under a new id when prev is nil.
func (t *rowTree[I]) register(n, prev *tnode[I]) {
	switch k := len(t.free); {
	case prev != nil:
		n.id = prev.id
	case k > 0:
		n.id, t.free = t.free[k-1], t.free[:k-1]
	default:
		n.id = int32(len(t.leaves))
		t.leaves = append(t.leaves, nil)
	}
	t.leaves[n.id] = n
}

// release forgets leaf n, which left the live tree.
func (t *rowTree[I]) release(n *tnode[I]) {
	t.leaves[n.id] = nil
	t.free = append(t.free, n.id)
}

// leaf returns the live tree's leaf of id, nil if there is none.
func (t *rowTree[I]) leaf(id int32) *tnode[I] {
	if id < 0 || int(id) >= len(t.leaves) {
		return nil
	}
	return t.leaves[id]
}

// treeItem is an element of a rowTree, ordered by its key.
type treeItem interface {
	key() string
}

// tnode is a leaf (items) or an inner node (kids, with firsts[i] the
// first key of kids[i]). first is the node's own first key; count the
// items beneath it; id a leaf's id in the live tree (see rowTree.leaves).
type tnode[I treeItem] struct {
	gen    uint64
	id     int32
	count  int
	first  string
	items  []I
	kids   []*tnode[I]
	firsts []string
}

// Node sizes: a leaf is rewritten whole when it changes, so it stays
// small enough to copy cheaply and large enough to keep the tree shallow.
// A node below its minimum is joined with a neighbour. A leaf holds up to
// 64 items of at most leafBytes/64 bytes, fewer larger ones (see
// maxLeafOf).
const (
	leafBytes = 2048
	maxKids   = 64
	minKids   = maxKids / 4
)

// maxLeafOf returns the most items a leaf of I holds: 64 rows of an
// Output or groups of a grouped one, fewer of a GROUP BY view's words
// (wordItem, 56 bytes), so that a leaf's copy stays within leafBytes.
// With a million groups each change of a tick lands in a leaf of its own,
// which the tick copies whole.
func maxLeafOf[I any]() int {
	var it I
	return min(64, leafBytes/int(unsafe.Sizeof(it)))
}

// merger tells a treeWriter how a change of type C acts on the items of
// its key: it replaces a present item (update) or makes one where the key
// is absent (insert), or drops or makes none when ok is false.
type merger[I treeItem, C any] interface {
	key(c *C) string
	update(it I, c *C) (res I, ok bool)
	insert(c *C) (res I, ok bool)
}

// placer is told where the item a change made or replaced now is: at
// items[i] of the leaf of id leaf, until a later change of the tree moves
// it. Only a words Output records it (see inPlace).
type placer[C any] interface {
	placed(c *C, leaf int32, i int)
}

// len returns the number of distinct rows.
func (t *rowTree[I]) len() int {
	if t.root == nil {
		return 0
	}
	return t.root.count
}

// keep leaves the tree's nodes as they are for the copies of it made
// so far (snapshots): the tree starts a new generation, and later
// changes copy a node of an older one before changing it.
func (t *rowTree[I]) keep() { t.gen++ }

// forget undoes the last keep, when the copies made for it are gone and
// the tree did not change since: the nodes of the generation before it
// are again the live tree's alone.
func (t *rowTree[I]) forget() { t.gen-- }

// ascend calls fn for every item from the key from on, in key order,
// until fn returns false.
func (t *rowTree[I]) ascend(from string, fn func(I) bool) {
	if t.root != nil {
		t.root.ascend(from, fn)
	}
}

func (n *tnode[I]) ascend(from string, fn func(I) bool) bool {
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
func (n *tnode[I]) route(k string) int {
	i := sort.Search(len(n.firsts), func(i int) bool { return n.firsts[i] > k })
	return max(i-1, 0)
}

// treeWriter applies deltas of changes C to a rowTree, with the scratch
// space that keeps the merge from allocating beyond the nodes it creates.
type treeWriter[I treeItem, C any] struct {
	m     merger[I, C]
	items []I
	// p, when not nil, is told where changed items go; at lists, during
	// mergeLeaf, which changes made which of items, for p.
	p  placer[C]
	at []placement
	// nodes[d] collects the new children of the node being merged at
	// depth d, and same[d] the positions among them of the children
	// that replaced one child each (see merge).
	nodes [][]*tnode[I]
	same  [][]int
}

// placement is the item (index in treeWriter.items) that a change made.
type placement struct{ change, item int32 }

// apply merges changes, sorted by key with each key once, into t.
func (w *treeWriter[I, C]) apply(t *rowTree[I], changes []C) {
	if len(changes) == 0 {
		return
	}
	root := t.root
	if root == nil {
		root = &tnode[I]{gen: t.gen}
		t.register(root, nil)
	}
	nodes := w.merge(t, nil, root, changes, 0)
	for len(nodes) > maxKids {
		var parents []*tnode[I]
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
func (w *treeWriter[I, C]) merge(t *rowTree[I], dst []*tnode[I], n *tnode[I], changes []C, depth int) []*tnode[I] {
	if n.kids == nil {
		return w.mergeLeaf(t, dst, n, changes)
	}
	for len(w.nodes) <= depth {
		w.nodes = append(w.nodes, nil)
		w.same = append(w.same, nil)
	}
	kids := w.nodes[depth][:0]
	// While every merged child is replaced by one node large enough,
	// the children stay where they were: only their entries change, and
	// the node is patched without reading its other children, which
	// under a large tree are a cache miss each.
	same, simple, delta := w.same[depth][:0], true, 0
	j := 0
	for i := 0; i < len(n.kids); i++ {
		if j == len(changes) {
			kids = append(kids, n.kids[i:]...)
			break
		}
		if len(changes)-j < len(n.kids)-i {
			// Fewer changes than kids left (a tick's scattered changes
			// under a large tree): skip to the kid of the next change
			// by searching the firsts, not by searching the changes
			// once per kid.
			to := max(i, n.route(w.m.key(&changes[j])))
			kids = append(kids, n.kids[i:to]...)
			i = to
		}
		end := len(changes)
		if i+1 < len(n.kids) {
			next := n.firsts[i+1]
			end = j + sort.Search(len(changes)-j, func(x int) bool { return w.m.key(&changes[j+x]) >= next })
		}
		if end == j {
			kids = append(kids, n.kids[i])
			continue
		}
		at, old := len(kids), n.kids[i].count
		kids = w.merge(t, kids, n.kids[i], changes[j:end], depth+1)
		if simple = simple && len(kids) == at+1 && !underfull(kids[at]); simple {
			same = append(same, at)
			delta += kids[at].count - old
		}
		j = end
	}
	w.same[depth] = same
	if simple {
		dst = append(dst, w.patch(t, n, kids, same, delta))
		clear(kids)
		w.nodes[depth] = kids
		return dst
	}
	kids = w.rebalance(t, kids)
	w.nodes[depth] = kids
	if len(kids) == 0 {
		return dst
	}
	var own *tnode[I]
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

// patch returns inner node n (or its copy, when a snapshot shares it)
// with the children at positions same among kids in place of its own, and
// count changed by delta.
func (w *treeWriter[I, C]) patch(t *rowTree[I], n *tnode[I], kids []*tnode[I], same []int, delta int) *tnode[I] {
	if n.gen != t.gen {
		n = &tnode[I]{gen: t.gen, count: n.count, kids: slices.Clone(n.kids), firsts: slices.Clone(n.firsts)}
	}
	for _, i := range same {
		n.kids[i], n.firsts[i] = kids[i], kids[i].first
	}
	n.count += delta
	n.first = n.firsts[0]
	return n
}

// underfull reports whether a node is below its minimum size.
func underfull[I treeItem](n *tnode[I]) bool {
	if n.kids == nil {
		return len(n.items) < maxLeafOf[I]()/4
	}
	return len(n.kids) < minKids
}

// inner returns an inner node over kids (copied), reusing n if it is
// given.
func (w *treeWriter[I, C]) inner(t *rowTree[I], n *tnode[I], kids []*tnode[I]) *tnode[I] {
	if n == nil {
		n = &tnode[I]{gen: t.gen}
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
func (w *treeWriter[I, C]) mergeLeaf(t *rowTree[I], dst []*tnode[I], n *tnode[I], changes []C) []*tnode[I] {
	// A few changes to a leaf no snapshot shares are made in place; a
	// shared leaf, or one most of whose items change, is rebuilt in one
	// pass (editing shifts the items after each insertion and deletion).
	if n.gen == t.gen && 4*len(changes) <= len(n.items) {
		var done bool
		if dst, done = w.editLeaf(dst, n, &changes); done {
			return dst
		}
	}
	out, at := w.items[:0], w.at[:0]
	i := 0
	for j := range changes {
		c := &changes[j]
		k := w.m.key(c)
		for i < len(n.items) && n.items[i].key() < k {
			out = append(out, n.items[i])
			i++
		}
		var it I
		var ok bool
		if i < len(n.items) && n.items[i].key() == k {
			it, ok = w.m.update(n.items[i], c)
			i++
		} else {
			it, ok = w.m.insert(c)
		}
		if ok {
			if w.p != nil {
				at = append(at, placement{int32(j), int32(len(out))})
			}
			out = append(out, it)
		}
	}
	out = append(out, n.items[i:]...)
	w.items, w.at = out, at
	own := n
	if n.gen != t.gen {
		own = nil
	}
	// The first leaf made takes n's place (and id); prev is nil after.
	prev := n
	maxLeaf := maxLeafOf[I]()
	for start := 0; start < len(out); {
		k := len(out) - start
		if k > maxLeaf {
			// Split evenly, so that every part is well above a quarter.
			parts := (k + maxLeaf - 1) / maxLeaf
			k = (k + parts - 1) / parts
		}
		leaf := w.leaf(t, own, out[start:start+k], prev)
		dst = append(dst, leaf)
		own, prev = nil, nil
		for ; len(at) > 0 && int(at[0].item) < start+k; at = at[1:] {
			w.p.placed(&changes[at[0].change], leaf.id, int(at[0].item)-start)
		}
		start += k
	}
	if prev != nil {
		t.release(n)
	}
	clear(w.items)
	return dst
}

// editLeaf merges changes into leaf n of the current generation, which
// no snapshot shares, in place: with no snapshot held between ticks, a
// tick's changes scattered over a large tree would otherwise copy a leaf
// out and back for each. It stops before an insertion into a full leaf,
// leaving n with the changes before it merged and changes cut to the
// rest, and reports whether it merged them all. It is given at most a
// quarter as many changes as n has items (see mergeLeaf), so n never
// empties.
func (w *treeWriter[I, C]) editLeaf(dst []*tnode[I], n *tnode[I], changes *[]C) ([]*tnode[I], bool) {
	items := n.items
	i := 0
	for j := range *changes {
		c := &(*changes)[j]
		k := w.m.key(c)
		for i < len(items) && items[i].key() < k {
			i++
		}
		switch {
		case i < len(items) && items[i].key() == k:
			if it, ok := w.m.update(items[i], c); ok {
				items[i] = it
				w.place(c, n.id, i)
				i++
			} else {
				items = slices.Delete(items, i, i+1)
			}
			continue
		case len(items) == maxLeafOf[I]():
			n.items, n.count = items, len(items)
			*changes = (*changes)[j:]
			return dst, false
		}
		if it, ok := w.m.insert(c); ok {
			items = slices.Insert(items, i, it)
			w.place(c, n.id, i)
			i++
		}
	}
	n.items, n.count = items, len(items)
	n.first = items[0].key()
	return append(dst, n), true
}

// place tells the placer, if any, where change c's item is.
func (w *treeWriter[I, C]) place(c *C, leaf int32, i int) {
	if w.p != nil {
		w.p.placed(c, leaf, i)
	}
}

// leaf returns a leaf holding items (copied), reusing n if it is given;
// a new leaf takes the place of prev in the live tree's leaves, or a new
// one when prev is nil.
func (w *treeWriter[I, C]) leaf(t *rowTree[I], n *tnode[I], items []I, prev *tnode[I]) *tnode[I] {
	if n == nil {
		n = &tnode[I]{gen: t.gen, items: make([]I, 0, maxLeafOf[I]())}
		t.register(n, prev)
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
func (w *treeWriter[I, C]) rebalance(t *rowTree[I], nodes []*tnode[I]) []*tnode[I] {
	for i := 0; i < len(nodes) && len(nodes) > 1; i++ {
		n := nodes[i]
		if !underfull(n) {
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
func (w *treeWriter[I, C]) join(t *rowTree[I], a, b *tnode[I]) []*tnode[I] {
	own := a
	if a.gen != t.gen {
		own = nil
	}
	if a.kids == nil {
		items := append(append(w.items[:0], a.items...), b.items...)
		w.items = items
		var res []*tnode[I]
		if len(items) > maxLeafOf[I]() {
			h := len(items) / 2
			res = []*tnode[I]{w.leaf(t, own, items[:h], a), w.leaf(t, nil, items[h:], b)}
		} else {
			res = []*tnode[I]{w.leaf(t, own, items, a)}
			t.release(b)
		}
		clear(w.items)
		return res
	}
	kids := append(append([]*tnode[I](nil), a.kids...), b.kids...)
	if len(kids) > maxKids {
		h := len(kids) / 2
		return []*tnode[I]{w.inner(t, own, kids[:h]), w.inner(t, nil, kids[h:])}
	}
	return []*tnode[I]{w.inner(t, own, kids)}
}

// keyString views a key's bytes as a string for comparison, without
// copying.
func keyString(k []byte) string { return unsafe.String(unsafe.SliceData(k), len(k)) }
