package types

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// identical reports whether two Datums hold exactly the same value,
// including the detail Compare ignores; a numeric's two forms are alike.
func identical(a, b Datum) bool {
	if a.kind == Numeric && b.kind == Numeric {
		x, y := a.Decimal(), b.Decimal()
		return x.Form == y.Form && x.Negative == y.Negative &&
			x.Exponent == y.Exponent && x.Coeff.Cmp(&y.Coeff) == 0
	}
	if a.kind != b.kind || a.i != b.i || a.e != b.e || a.n != b.n || a.str() != b.str() {
		return false
	}
	switch a.kind {
	case Record:
		if a.rec().Desc != b.rec().Desc || len(a.rec().Fields) != len(b.rec().Fields) {
			return false
		}
		for i := range a.rec().Fields {
			if !identical(a.rec().Fields[i], b.rec().Fields[i]) {
				return false
			}
		}
	case Array:
		if a.arr().Elem != b.arr().Elem || len(a.arr().Elems) != len(b.arr().Elems) || !slices.Equal(a.arr().Dims, b.arr().Dims) {
			return false
		}
		for i := range a.arr().Elems {
			if !identical(a.arr().Elems[i], b.arr().Elems[i]) {
				return false
			}
		}
	}
	return true
}

func TestValueRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	big, err := parseDecimalText("-123456789012345678901234567890.1234567890")
	if err != nil {
		t.Fatal(err)
	}
	fixed := []Datum{NewNumeric(big), NewFloat8(math.Copysign(0, -1)), NewFloat8(math.Float64frombits(0x7ff8000000000123)),
		NewString(Char, "ab   "), NewString(JSON, `{"b":1,  "a":2}`),
		NewInterval(IntervalValue{Months: math.MinInt32, Days: math.MaxInt32, Micros: math.MinInt64})}
	for _, d := range fixed {
		enc := AppendValue(nil, d)
		got, rest, err := DecodeValue(enc)
		if err != nil || len(rest) != 0 || !identical(got, d) {
			t.Errorf("%v: got %v rest %x err %v", debugDatum(d), debugDatum(got), rest, err)
		}
	}
	for i := 0; i < 20000; i++ {
		row := make(Row, 1+rng.IntN(5))
		for c := range row {
			row[c] = randomDatum(rng, keyFamilies[rng.IntN(len(keyFamilies))])
		}
		enc := AppendRow(nil, row)
		got, err := DecodeRow(enc, nil)
		if err != nil || len(got) != len(row) {
			t.Fatalf("DecodeRow(%x) = %v, %v", enc, got, err)
		}
		shared, err := DecodeRowShared(string(enc), nil)
		if err != nil || len(shared) != len(row) {
			t.Fatalf("DecodeRowShared(%x) = %v, %v", enc, shared, err)
		}
		for c := range row {
			if !identical(got[c], row[c]) || !identical(shared[c], row[c]) {
				t.Fatalf("column %d: got %v and %v shared, want %v", c, debugDatum(got[c]), debugDatum(shared[c]), debugDatum(row[c]))
			}
		}
	}
}

func TestDecodeValueErrors(t *testing.T) {
	for _, in := range [][]byte{nil, {byte(numFamilies)}, {byte(Text), 5, 'a'}, {byte(Int8)}, {byte(Bool), 3},
		{byte(Numeric), 9}, {byte(Array), byte(Int4), 0, 5, byte(Int4)}} {
		if _, _, err := DecodeValue(in); err == nil {
			t.Errorf("DecodeValue(%x) succeeded", in)
		}
	}
	if _, err := DecodeRow([]byte{1, 0, 0}, nil); err == nil {
		t.Error("DecodeRow accepted trailing bytes")
	}
}

// TestDecodeRowColumns checks that decoding some columns gives exactly
// those of the whole row and NULL elsewhere, over every family, and that
// a skipped column still fails on a corrupt value.
func TestDecodeRowColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		row := make(Row, 1+rng.IntN(6))
		for c := range row {
			row[c] = randomDatum(rng, keyFamilies[rng.IntN(len(keyFamilies))])
		}
		mask := rng.Uint64()
		keep := func(c int) bool { return mask&(1<<c) != 0 }
		enc := AppendRow(nil, row)
		got, err := DecodeRowColumns(enc, nil, keep)
		if err != nil || len(got) != len(row) {
			t.Fatalf("DecodeRowColumns(%x) = %v, %v", enc, got, err)
		}
		for c := range row {
			want := Null
			if keep(c) {
				want = row[c]
			}
			if !identical(got[c], want) {
				t.Fatalf("column %d (kept %v): got %v, want %v", c, keep(c), debugDatum(got[c]), debugDatum(want))
			}
		}
	}
	skipNone := func(int) bool { return false }
	for _, enc := range [][]byte{{1, byte(Text), 5, 'a'}, {1, byte(UUID), 1, 2}, {1, byte(Int8)}, {2, byte(Int8), 2}, {1, byte(Text), 0, 0}} {
		if _, err := DecodeRowColumns(enc, nil, skipNone); err == nil {
			t.Errorf("DecodeRowColumns(%x) skipping every column succeeded", enc)
		}
	}
}

func FuzzDecodeValue(f *testing.F) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, fam := range keyFamilies {
		f.Add(AppendValue(nil, randomDatum(rng, fam)))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, rest, err := DecodeValue(b)
		if err != nil {
			return
		}
		enc := AppendValue(nil, d)
		d2, rest2, err := DecodeValue(enc)
		if err != nil || len(rest2) != 0 || !identical(d, d2) {
			t.Fatalf("round trip of %v (from %x, rest %x): %v %v", debugDatum(d), b, rest, debugDatum(d2), err)
		}
		if !bytes.Equal(AppendValue(nil, d2), enc) {
			t.Fatal("unstable encoding")
		}
	})
}

func BenchmarkAppendRow(b *testing.B) {
	row := benchRow()
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendRow(buf[:0], row)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkDecodeRow(b *testing.B) {
	row := benchRow()
	enc := AppendRow(nil, row)
	dst := make(Row, 0, len(row))
	// first decodes the first column alone, as a query reading one
	// column of the row does.
	first := func(c int) bool { return c == 0 }
	for _, bc := range []struct {
		name string
		keep func(int) bool
	}{{"all", nil}, {"first", first}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if dst, err = DecodeRowColumns(enc, dst, bc.keep); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
