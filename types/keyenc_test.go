package types

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

// TestKeyOrderMatchesCompare is the defining property of the key encoding:
// for random pairs of one family, byte order equals Compare's order (and is
// reversed for desc), and decoding yields a Compare-equal value whose
// encoding is identical.
func TestKeyOrderMatchesCompare(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, f := range keyFamilies {
		for i := 0; i < 3000; i++ {
			a, b := randomDatum(rng, f), randomDatum(rng, f)
			want := sign(Compare(a, b))
			for _, desc := range []bool{false, true} {
				ka, kb := AppendKey(nil, a, desc), AppendKey(nil, b, desc)
				got := sign(bytes.Compare(ka, kb))
				if desc {
					got = -got
				}
				if got != want {
					t.Fatalf("%v desc=%v: Compare(%v, %v)=%d but keys %x %x compare %d", f, desc, debugDatum(a), debugDatum(b), want, ka, kb, got)
				}
				d, rest, err := DecodeKey(append(ka, 0xAB), desc)
				if err != nil || !bytes.Equal(rest, []byte{0xAB}) {
					t.Fatalf("%v: DecodeKey(%x) = %v, rest %x, %v", f, ka, debugDatum(d), rest, err)
				}
				if !Equal(d, a) || d.Kind() != a.Kind() {
					t.Fatalf("%v: decoded %v, want %v", f, debugDatum(d), debugDatum(a))
				}
				if k2 := AppendKey(nil, d, desc); !bytes.Equal(k2, ka) {
					t.Fatalf("%v: re-encoding %v gave %x, want %x", f, debugDatum(d), k2, ka)
				}
			}
		}
	}
}

func TestKeyEqualValuesEncodeIdentically(t *testing.T) {
	num := func(s string) Datum {
		d, err := parseDecimalText(s)
		if err != nil {
			t.Fatal(err)
		}
		return NewNumeric(d)
	}
	jb := func(s string) Datum {
		c, err := CanonicalJSONB(s)
		if err != nil {
			t.Fatal(err)
		}
		return NewString(JSONB, c)
	}
	pairs := [][2]Datum{
		{num("1.0"), num("1.00")},
		{num("0"), num("-0.000")},
		{num("100"), num("1e2")},
		{NewFloat8(0), NewFloat8(math.Copysign(0, -1))},
		{NewFloat8(math.NaN()), NewFloat8(-math.NaN())},
		{NewFloat4(0), NewFloat4(float32(math.Copysign(0, -1)))},
		{NewString(Char, "ab  "), NewString(Char, "ab")},
		{jb(`{"a": 1.0}`), jb(`{"a":1.00}`)},
		{NewInterval(IntervalValue{Months: 1}), NewInterval(IntervalValue{Days: 30})},
		{NewInterval(IntervalValue{Days: 1}), NewInterval(IntervalValue{Micros: 86400e6})},
	}
	for _, p := range pairs {
		if !Equal(p[0], p[1]) {
			t.Errorf("%v and %v should compare equal", debugDatum(p[0]), debugDatum(p[1]))
		}
		if a, b := AppendKey(nil, p[0], false), AppendKey(nil, p[1], false); !bytes.Equal(a, b) {
			t.Errorf("%v → %x but %v → %x", debugDatum(p[0]), a, debugDatum(p[1]), b)
		}
	}
}

func TestKeyRowOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 5000; i++ {
		fams := []Family{Int4, Text, Numeric}
		a, b := make(Row, 3), make(Row, 3)
		for c, f := range fams {
			a[c], b[c] = randomDatum(rng, f), randomDatum(rng, f)
			if rng.IntN(2) == 0 {
				b[c] = a[c]
			}
		}
		ka, kb := AppendKeyRow(nil, a), AppendKeyRow(nil, b)
		if got, want := sign(bytes.Compare(ka, kb)), sign(CompareRows(a, b)); got != want {
			t.Fatalf("rows %v %v: key order %d, CompareRows %d", a, b, got, want)
		}
	}
}

func TestKeyNullPlacement(t *testing.T) {
	v := NewInt8(math.MaxInt64)
	if bytes.Compare(AppendKey(nil, v, false), AppendKey(nil, Null, false)) >= 0 {
		t.Error("ascending: NULL must sort last")
	}
	if bytes.Compare(AppendKey(nil, v, true), AppendKey(nil, Null, true)) <= 0 {
		t.Error("descending: NULL must sort first")
	}
}

func TestDecodeKeyErrors(t *testing.T) {
	for _, in := range [][]byte{nil, {0x00}, {keyTagBase + byte(Int4), 1, 2}, {keyTagBase + byte(Text), 'a'},
		{keyTagBase + byte(Text), 0, 7}, {keyTagBase + byte(Numeric), 9}, {keyTagBase + byte(Bool), 2}} {
		if _, _, err := DecodeKey(in, false); err == nil {
			t.Errorf("DecodeKey(%x) succeeded", in)
		}
	}
}

func FuzzDecodeKey(f *testing.F) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, fam := range keyFamilies {
		f.Add(AppendKey(nil, randomDatum(rng, fam), false), false)
		f.Add(AppendKey(nil, randomDatum(rng, fam), true), true)
	}
	f.Fuzz(func(t *testing.T, b []byte, desc bool) {
		d, rest, err := DecodeKey(b, desc)
		if err != nil {
			return
		}
		k := AppendKey(nil, d, desc)
		d2, rest2, err := DecodeKey(k, desc)
		if err != nil || len(rest2) != 0 || !Equal(d, d2) {
			t.Fatalf("round trip of %v (from %x, rest %x): %v %v", debugDatum(d), b, rest, debugDatum(d2), err)
		}
		if k2 := AppendKey(nil, d2, desc); !bytes.Equal(k, k2) {
			t.Fatalf("unstable encoding %x vs %x", k, k2)
		}
	})
}

func BenchmarkAppendKeyRow(b *testing.B) {
	row := benchRow()
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendKeyRow(buf[:0], row)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkDecodeKeyRow(b *testing.B) {
	row := benchRow()
	key := AppendKeyRow(nil, row)
	b.ReportAllocs()
	for b.Loop() {
		rest := key
		for range row {
			var err error
			if _, rest, err = DecodeKey(rest, false); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
