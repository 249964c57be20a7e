package types

import (
	"hash/maphash"
	"math"
	"math/rand/v2"
	"testing"
)

func hashOf(seed maphash.Seed, d Datum) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	Hash(&h, d)
	return h.Sum64()
}

// TestHashConsistentWithEqual: Equal values hash alike, for random pairs
// and for the known cases of equal values with different representations.
func TestHashConsistentWithEqual(t *testing.T) {
	seed := maphash.MakeSeed()
	rng := rand.New(rand.NewPCG(13, 14))
	for _, f := range keyFamilies {
		for i := 0; i < 3000; i++ {
			a, b := randomDatum(rng, f), randomDatum(rng, f)
			if Equal(a, b) && hashOf(seed, a) != hashOf(seed, b) {
				t.Fatalf("%v and %v are equal but hash differently", debugDatum(a), debugDatum(b))
			}
		}
	}
	num := func(s string) Datum {
		d, _ := parseDecimalText(s)
		return NewNumeric(d)
	}
	pairs := [][2]Datum{
		{NewInt4(7), NewInt8(7)}, {NewInt2(-1), NewInt8(-1)},
		{NewFloat4(1.5), NewFloat8(1.5)}, {NewText("ab"), NewString(Varchar, "ab")}, {NewString(Char, "ab "), NewText("ab")},
		{NewFloat8(0), NewFloat8(math.Copysign(0, -1))},
		{NewFloat8(math.NaN()), NewFloat8(float64Bits(0x7ff8000000000001))},
		{num("1.0"), num("1.000")}, {NewString(Char, "a  "), NewString(Char, "a")},
		{NewInterval(IntervalValue{Months: 1}), NewInterval(IntervalValue{Days: 30})},
	}
	for _, p := range pairs {
		if !Equal(p[0], p[1]) || hashOf(seed, p[0]) != hashOf(seed, p[1]) {
			t.Errorf("%v and %v: equal %v, hashes %x %x", debugDatum(p[0]), debugDatum(p[1]),
				Equal(p[0], p[1]), hashOf(seed, p[0]), hashOf(seed, p[1]))
		}
	}
	if hashOf(seed, NewInt4(1)) == hashOf(seed, NewInt4(2)) || hashOf(seed, NewText("a")) == hashOf(seed, NewText("b")) {
		t.Error("distinct values collide")
	}
}

func BenchmarkHash(b *testing.B) {
	row := benchRow()
	var h maphash.Hash
	b.ReportAllocs()
	for b.Loop() {
		h.Reset()
		HashRow(&h, row)
		_ = h.Sum64()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkHashViaKey is the alternative Hash was measured against:
// encode the row's key, then hash the bytes.
func BenchmarkHashViaKey(b *testing.B) {
	row := benchRow()
	var h maphash.Hash
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		h.Reset()
		buf = AppendKeyRow(buf[:0], row)
		h.Write(buf)
		_ = h.Sum64()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func float64Bits(u uint64) float64 { return math.Float64frombits(u) }

func TestHashRowMatchesHash(t *testing.T) {
	seed := maphash.MakeSeed()
	rng := rand.New(rand.NewPCG(19, 20))
	for i := 0; i < 2000; i++ {
		row := make(Row, 1+rng.IntN(6))
		for c := range row {
			row[c] = randomDatum(rng, keyFamilies[rng.IntN(len(keyFamilies))])
		}
		var a, b maphash.Hash
		a.SetSeed(seed)
		b.SetSeed(seed)
		HashRow(&a, row)
		for _, d := range row {
			Hash(&b, d)
		}
		if a.Sum64() != b.Sum64() {
			t.Fatalf("HashRow and Hash disagree on %v", row)
		}
	}
}
