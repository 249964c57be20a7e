package dataflow

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// TestRowTree merges random sorted deltas, from single changes to bulk
// loads and mass deletions, into a rowTree and checks it against a map
// after every merge, along with its shape (sorted leaves, sizes, counts,
// first keys) and its leaves' ids, and checks that every snapshot taken
// on the way still holds what it held when taken.
func TestRowTree(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var tree rowTree[item]
		w := treeWriter[item, change]{m: &itemMerger{}}
		want := map[string]int64{}
		type snap struct {
			tree rowTree[item]
			want map[string]int64
		}
		var snaps []snap
		for step := range 60 {
			keys := 1 + rng.IntN(8000)
			n := rng.IntN(400)
			if step%10 == 9 {
				n = 3000
			}
			batch := map[string]int64{}
			if step%10 == 4 {
				// Delete a range of keys: whole leaves empty.
				lo := fmt.Sprintf("%05d", rng.IntN(keys))
				hi := fmt.Sprintf("%05d", rng.IntN(keys))
				for k, v := range want {
					if lo <= k && k <= hi {
						batch[k] = -v
					}
				}
			}
			for range n {
				k := fmt.Sprintf("%05d", rng.IntN(keys))
				d := int64(1)
				if want[k] > 0 && rng.IntN(3) > 0 {
					d = -want[k]
				}
				batch[k] = d
			}
			var changes []change
			for _, k := range slices.Sorted(maps.Keys(batch)) {
				changes = append(changes, change{key: []byte(k), u: Update{Row: types.Row{types.NewText(k)}, Diff: batch[k]}})
				if want[k] += batch[k]; want[k] == 0 {
					delete(want, k)
				}
			}
			w.apply(&tree, changes)
			checkTree(t, &tree, want)
			checkLeafIDs(t, &tree)
			if rng.IntN(3) == 0 {
				snaps = append(snaps, snap{tree, maps.Clone(want)})
				tree.keep()
			}
		}
		for _, s := range snaps {
			checkTree(t, &s.tree, s.want)
		}
	}
}

func checkTree(t *testing.T, tree *rowTree[item], want map[string]int64) {
	t.Helper()
	got := map[string]int64{}
	last := ""
	tree.ascend("", func(it item) bool {
		if it.key() <= last && last != "" {
			t.Fatalf("key %q after %q", it.key(), last)
		}
		last = it.key()
		got[it.key()] = it.n
		return true
	})
	if !maps.Equal(got, want) {
		t.Fatalf("tree has %d rows, want %d", len(got), len(want))
	}
	if tree.len() != len(want) {
		t.Fatalf("len %d, want %d", tree.len(), len(want))
	}
	if tree.root != nil {
		checkNode(t, tree.root, true)
	}
	// A scan from any key starts at the first row at or after it.
	for k := range want {
		tree.ascend(k, func(it item) bool {
			if it.key() != k {
				t.Fatalf("ascend(%q) starts at %q", k, it.key())
			}
			return false
		})
		break
	}
}

// checkLeafIDs checks that the live tree's leaves by id are its leaves,
// each under its own id, and nothing else: a leaf that left the tree, or
// the original of a leaf copied for a snapshot, would keep items that a
// merger's recorded places could find.
func checkLeafIDs(t *testing.T, tree *rowTree[item]) {
	t.Helper()
	var leaves func(n *tnode[item]) int
	leaves = func(n *tnode[item]) int {
		if n.kids == nil {
			if tree.leaf(n.id) != n {
				t.Fatalf("leaf of id %d is not registered under it", n.id)
			}
			return 1
		}
		k := 0
		for _, kid := range n.kids {
			k += leaves(kid)
		}
		return k
	}
	want := 0
	if tree.root != nil {
		want = leaves(tree.root)
	}
	got := 0
	for _, n := range tree.leaves {
		if n != nil {
			got++
		}
	}
	if got != want || len(tree.leaves)-len(tree.free) != want {
		t.Fatalf("%d leaves by id (%d ids, %d free), the tree has %d", got, len(tree.leaves), len(tree.free), want)
	}
}

func checkNode(t *testing.T, n *tnode[item], root bool) int {
	t.Helper()
	if n.kids == nil {
		if len(n.items) == 0 || len(n.items) > maxLeafOf[item]() || n.count != len(n.items) || n.first != n.items[0].key() {
			t.Fatalf("bad leaf: %d items, count %d", len(n.items), n.count)
		}
		return n.count
	}
	if len(n.kids) > maxKids || len(n.kids) != len(n.firsts) || !root && len(n.kids) < 2 {
		t.Fatalf("bad inner node: %d kids, %d firsts", len(n.kids), len(n.firsts))
	}
	count := 0
	for i, k := range n.kids {
		if n.firsts[i] != k.first || i > 0 && n.firsts[i] <= n.firsts[i-1] {
			t.Fatalf("bad first key %q of child %d", n.firsts[i], i)
		}
		count += checkNode(t, k, false)
	}
	if n.count != count || n.first != n.firsts[0] {
		t.Fatalf("inner node count %d, want %d", n.count, count)
	}
	return count
}
