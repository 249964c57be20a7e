package int128

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestAddMul checks AddMul against math/big, at the edges of 64 and 128
// bits: a sum that would leave 128 bits is refused and left as it was.
func TestAddMul(t *testing.T) {
	limit := new(big.Int).Lsh(big.NewInt(1), 127)
	tests := []struct {
		start Int
		v, n  int64
	}{
		{Int{}, 5, 3},
		{Int{}, -5, 3},
		{Int{}, math.MaxInt64, math.MaxInt64},
		{Int{}, math.MinInt64, math.MinInt64},
		{Int{}, math.MinInt64, -1},
		{Int{}, math.MinInt64, 1},
		{Int{Hi: -1, Lo: math.MaxUint64}, 1, 1},
		{Int{Hi: 0, Lo: math.MaxUint64}, 1, 1},
		{Int{Hi: math.MaxInt64, Lo: math.MaxUint64 - 10}, 11, 1},
		{Int{Hi: math.MaxInt64, Lo: math.MaxUint64 - 10}, 10, 1},
		{Int{Hi: math.MinInt64}, -1, 1},
		{Int{Hi: math.MinInt64, Lo: 1}, -1, 1},
		{Int{Hi: math.MaxInt64 / 2}, math.MaxInt64, math.MaxInt64},
		{Int{Hi: math.MinInt64 / 2}, math.MaxInt64, math.MinInt64},
		{Int{Hi: math.MinInt64/2 + 1}, math.MaxInt64, math.MinInt64},
		{Int{Hi: 7, Lo: 3}, -123456789, -987654321},
		{Int{Hi: -7, Lo: 3}, 123456789, -987654321},
	}
	// Random starts and factors, half of them at the edges of 64 bits,
	// where the product's high word and its sign corrections matter.
	rng := rand.New(rand.NewPCG(1, 2))
	edges := []int64{0, 1, -1, 2, -2, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1, 1 << 32, -1 << 32}
	factor := func() int64 {
		if rng.IntN(2) == 0 {
			return edges[rng.IntN(len(edges))]
		}
		return int64(rng.Uint64()) >> rng.IntN(64)
	}
	for range 20000 {
		start := Int{Hi: int64(rng.Uint64()) >> rng.IntN(64), Lo: rng.Uint64()}
		tests = append(tests, struct {
			start Int
			v, n  int64
		}{start, factor(), factor()})
	}
	for _, tc := range tests {
		want := new(big.Int).Mul(big.NewInt(tc.v), big.NewInt(tc.n))
		want.Add(want, toBig(tc.start))
		fits := want.Cmp(limit) < 0 && want.Cmp(new(big.Int).Neg(limit)) >= 0
		got := tc.start
		if ok := got.AddMul(tc.v, tc.n); ok != fits {
			t.Errorf("%v + %d*%d: fits %v, want %v", tc.start, tc.v, tc.n, ok, fits)
			continue
		}
		if !fits {
			want = toBig(tc.start)
		}
		if toBig(got).Cmp(want) != 0 || got.Decimal().String() != want.String() {
			t.Errorf("%v + %d*%d = %v (%s), want %s", tc.start, tc.v, tc.n, got, got.Decimal(), want)
		}
		v, ok := got.Int64()
		if ok != want.IsInt64() || ok && v != want.Int64() {
			t.Errorf("%s: Int64 %d %v", want, v, ok)
		}
	}
}

// toBig returns a as a big integer.
func toBig(a Int) *big.Int {
	b := new(big.Int).Lsh(big.NewInt(a.Hi), 64)
	return b.Add(b, new(big.Int).SetUint64(a.Lo))
}
