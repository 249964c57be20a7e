package dataflow

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortByHead checks the radix sort against a stable comparison sort
// on heads that differ in few bytes, in many, and not at all, so that
// both skipped and sorted passes and the stability of ties are covered.
func TestSortByHead(t *testing.T) {
	type item struct {
		head keyHead
		i    int
	}
	rng := rand.New(rand.NewPCG(2, 9))
	for _, tc := range []struct {
		name string
		draw func() keyHead
	}{
		{"int-keys", func() keyHead { return keyHead{0x0380000000000000 | uint64(rng.IntN(1000)), 0} }},
		{"random", func() keyHead { return keyHead{rng.Uint64(), rng.Uint64()} }},
		{"second-word", func() keyHead { return keyHead{7, uint64(rng.IntN(50)) << 40} }},
		{"ties", func() keyHead { return keyHead{uint64(rng.IntN(3)), 1} }},
		{"equal", func() keyHead { return keyHead{5, 5} }},
	} {
		for _, n := range []int{0, 1, 2, 10, 1000} {
			items := make([]item, n)
			for i := range items {
				items[i] = item{tc.draw(), i}
			}
			want := slices.Clone(items)
			slices.SortStableFunc(want, func(a, b item) int { return a.head.compare(b.head) })
			got := sortByHead(items, make([]item, n), func(it *item) keyHead { return it.head })
			if !slices.Equal(got, want) {
				t.Fatalf("%s, %d items: radix order differs from a stable sort", tc.name, n)
			}
		}
	}
}
