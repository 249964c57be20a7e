package loadgen

import "math/bits"

// rng is a SplitMix64 generator: one add and three xor-shift-multiplies per
// draw, no allocation, and a state small enough to seed afresh for every
// generated unit.
type rng struct{ s uint64 }

const golden = 0x9e3779b97f4a7c15

// mix64 is SplitMix64's output function, a bijective avalanche over uint64.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Streams separate the random choices of different tables that share a
// seed and unit numbering.
const (
	streamAuction uint64 = iota + 1
	streamNexmark
	streamRegion
	streamNation
	streamSupplier
	streamCustomer
	streamPart
	streamPartsupp
	streamOrders
	streamTextPool
	streamChannelURL
	streamChannelID
	streamOrderUpdates
)

// unitRNG returns the generator of unit n of stream under seed. The unit
// number goes through mix64, so neighbouring units start from unrelated
// states instead of overlapping shifted sequences.
func unitRNG(seed int64, stream uint64, n int64) rng {
	return rng{s: mix64(mix64(uint64(seed)^stream*golden) ^ uint64(n))}
}

func (r *rng) next() uint64 {
	r.s += golden
	return mix64(r.s)
}

// intn returns a value in [0, n) for n > 0 (Lemire's multiply-shift; the
// bias is below 2^-32 for the bounds used here).
func (r *rng) intn(n int64) int64 {
	hi, _ := bits.Mul64(r.next(), uint64(n))
	return int64(hi)
}

// between returns a value in [lo, hi].
func (r *rng) between(lo, hi int64) int64 { return lo + r.intn(hi-lo+1) }

// float64 returns a value in [0, 1).
func (r *rng) float64() float64 { return float64(r.next()>>11) * 0x1p-53 }
