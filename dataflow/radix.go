package dataflow

import "slices"

// sortByKey sorts items by key: by head with a radix sort, then items of
// equal heads with cmp, which compares whole keys. spare is scratch space
// of the sort; it returns the sorted items and the spare for the next
// sort (the two buffers trade places when the sort ends in the spare).
func sortByKey[T any](items, spare []T, head func(*T) keyHead, cmp func(a, b T) int) ([]T, []T) {
	if len(items) < 32 {
		slices.SortFunc(items, cmp)
		return items, spare
	}
	if cap(spare) < len(items) {
		spare = make([]T, len(items), cap(items))
	}
	spare = spare[:len(items)]
	sorted := sortByHead(items, spare, head)
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && head(&sorted[j]) == head(&sorted[i]) {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(sorted[i:j], cmp)
		}
		i = j
	}
	if &sorted[0] == &spare[0] {
		spare = items
	}
	clear(spare)
	return sorted, spare
}

// sortByHead sorts items by their keys' heads with a least-significant-
// digit radix sort, one pass per byte of the heads that differs between
// items (two or three for a tick's groups of an integer key, whose heads
// share their tag and high bytes), stably, and returns the sorted items,
// which are in items or in tmp (of the same length). Items whose heads
// are equal are in their original order: the caller orders them by their
// whole keys. For the few hundred to thousands of groups a tick touches
// this is several times faster than a comparison sort.
func sortByHead[T any](items, tmp []T, head func(*T) keyHead) []T {
	if len(items) < 2 {
		return items
	}
	first := head(&items[0])
	var differ keyHead
	for i := range items {
		h := head(&items[i])
		differ[0] |= h[0] ^ first[0]
		differ[1] |= h[1] ^ first[1]
	}
	var count [256]int
	src, dst := items, tmp
	for pass := 15; pass >= 0; pass-- {
		word, shift := pass/8, uint(56-8*(pass%8))
		if byte(differ[word]>>shift) == 0 {
			continue
		}
		clear(count[:])
		for i := range src {
			count[byte(head(&src[i])[word]>>shift)]++
		}
		at := 0
		for b, n := range count {
			count[b] = at
			at += n
		}
		for i := range src {
			b := byte(head(&src[i])[word] >> shift)
			dst[count[b]] = src[i]
			count[b]++
		}
		src, dst = dst, src
	}
	return src
}
