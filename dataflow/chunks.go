package dataflow

// chunks holds values by dense position (0, 1, 2 …) in chunks of
// chunkSize, so that growing it never copies what it holds: a Reduce of a
// million groups kept them in one slice grown by doubling, and each
// doubling copied hundreds of megabytes into fresh memory, which this
// machine faults in at a few nanoseconds a byte. The first chunk grows
// by appending, so that a structure of a few values stays small.
type chunks[T any] struct {
	c [][]T
	n int
}

const (
	chunkBits = 10
	chunkSize = 1 << chunkBits
)

// at returns the value at position i, which must be below len.
func (c *chunks[T]) at(i int32) *T { return &c.c[i>>chunkBits][i&(chunkSize-1)] }

func (c *chunks[T]) len() int { return c.n }

// grow appends a zero value. Pointers to values in the first chunk do
// not survive it.
func (c *chunks[T]) grow() {
	var zero T
	switch {
	case c.n < chunkSize && len(c.c) == 0:
		c.c = append(c.c, []T{zero})
	case c.n < chunkSize:
		c.c[0] = append(c.c[0], zero)
	case c.n%chunkSize == 0:
		c.c = append(c.c, make([]T, chunkSize))
	}
	c.n++
}

// slots returns the number of values the chunks have room for.
func (c *chunks[T]) slots() int {
	if len(c.c) == 0 {
		return 0
	}
	return min(cap(c.c[0]), chunkSize) + (len(c.c)-1)*chunkSize
}
