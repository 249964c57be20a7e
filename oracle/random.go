package oracle

import "math/rand/v2"

// rng is the one source of randomness of a scenario. Everything a
// scenario contains is drawn from it up front, in a fixed order, so a seed
// names one scenario forever (for a given version of the generator).
type rng struct{ *rand.Rand }

// newRng returns stream number stream of a seed. A scenario draws its
// schema, its views and its changes from separate streams, so that a
// change to one generator leaves the others' output for a seed alone.
func newRng(seed int64, stream uint64) rng {
	return rng{rand.New(rand.NewPCG(uint64(seed), 0x5eed0f0a0c1e+stream))}
}

// chance returns true with probability p.
func (r rng) chance(p float64) bool { return r.Float64() < p }

// between returns an integer in [lo, hi].
func (r rng) between(lo, hi int) int { return lo + r.IntN(hi-lo+1) }

// pick returns a random element of xs.
func pick[T any](r rng, xs []T) T { return xs[r.IntN(len(xs))] }

// weighted returns an index chosen with the given relative weights.
func (r rng) weighted(ws ...int) int {
	total := 0
	for _, w := range ws {
		total += w
	}
	n := r.IntN(total)
	for i, w := range ws {
		if n < w {
			return i
		}
		n -= w
	}
	return len(ws) - 1
}

// words is the text domain: short, colliding strings, the empty string,
// case variants, a quote (escaping), LIKE metacharacters and a space.
var words = []string{"", "a", "a", "b", "ab", "abc", "B", "b a", "it's", "%", "x_y", "zz"}

// randomValue draws a value of type t from a small domain, so that joins
// match, groups collide and duplicates are common; nullable columns are
// NULL about one time in seven.
func (r rng) randomValue(t typ, nullable bool) value {
	if nullable && r.chance(0.15) {
		return null
	}
	switch t {
	case tInt:
		return value{i: int64(r.between(-3, 12))}
	case tBigint:
		if r.chance(0.2) {
			return value{i: int64(r.between(-2, 2)) * 1_000_000_000_000}
		}
		return value{i: int64(r.between(-3, 12))}
	case tNumeric:
		switch r.IntN(3) {
		case 0:
			return value{i: int64(r.between(-3, 12)) * 100}
		case 1:
			return value{i: int64(r.between(-30, 120)) * 10, scale: 1}
		}
		return value{i: int64(r.between(-300, 1200)), scale: 2}
	case tText:
		return value{s: pick(r, words)}
	case tBool:
		return value{i: int64(r.IntN(2))}
	case tDate:
		return value{i: int64(r.between(0, 9))}
	case tTimestamp:
		return value{i: int64(r.between(0, 4))*86400 + int64(r.between(0, 47))*1800}
	}
	panic("oracle: random value of opaque type")
}
