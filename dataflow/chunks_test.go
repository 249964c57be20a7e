package dataflow

import "testing"

// TestChunks grows chunks across several chunk boundaries and checks
// that every value stays where it was put and that later chunks are not
// moved by growth.
func TestChunks(t *testing.T) {
	var c chunks[int]
	const n = 3*chunkSize + 5
	var second *int
	for i := range n {
		c.grow()
		*c.at(int32(i)) = i * 7
		if i == chunkSize {
			second = c.at(int32(i))
		}
	}
	if c.len() != n || c.slots() < n || c.slots() > n+chunkSize {
		t.Fatalf("len %d, slots %d for %d values", c.len(), c.slots(), n)
	}
	for i := range n {
		if got := *c.at(int32(i)); got != i*7 {
			t.Fatalf("value %d = %d, want %d", i, got, i*7)
		}
	}
	if second != c.at(chunkSize) {
		t.Error("a value past the first chunk moved")
	}
}
