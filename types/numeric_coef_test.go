package types

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerr"
)

// coefCases are values the inline numeric form holds, as coefficient and
// exponent: zero at several scales, ±1, equal values at different scales,
// the int64 extremes, negative and positive exponents.
var coefCases = []struct {
	coef int64
	exp  int32
}{
	{0, 0}, {0, -2}, {0, 1}, {0, 3}, {1, 0}, {-1, 0}, {15, -1}, {150, -2}, {-15, -1}, {-150, -2}, {1500, -3},
	{5, -1}, {-5, -1}, {25, -1}, {-25, -1}, {149, -2}, {-149, -2}, {995, -3}, {12345, -2},
	{1, 5}, {-12, 3}, {100000, 0}, {7, -20}, {5, -19}, {-5, -19}, {123456789012, -4}, {4999999999999999999, -19},
	{math.MaxInt64, 0}, {math.MinInt64, 0}, {math.MaxInt64, -4}, {math.MinInt64, -18}, {math.MaxInt64, 2},
	{math.MinInt64 + 1, -1}, {999999999999999999, -18}, {32767, 0}, {-32768, 0}, {32768, 0}, {2147483647, 0},
	{21474836475, -1}, {-21474836485, -1}, {1, -29}, {1, -16383},
}

// apdOnly are numerics only the apd form holds: coefficients beyond
// int64, NaN, the infinities, negative zero.
func apdOnly(t testing.TB) []Datum {
	var out []Datum
	for _, s := range []string{"9223372036854775808", "-9223372036854775809", "92233720368547758.08",
		"-18446744073709551616", "1e30", "-1e30", "123456789012345678901234567890.5"} {
		d, err := parseDecimalText(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, NewNumeric(d))
	}
	negZero := apd.New(0, -2)
	negZero.Negative = true
	return append(out, NewNumeric(&apd.Decimal{Form: apd.NaN}), NewNumeric(&apd.Decimal{Form: apd.Infinite}),
		NewNumeric(&apd.Decimal{Form: apd.Infinite, Negative: true}), NewNumeric(negZero))
}

// bothForms returns every coefCases value in the inline form and in the
// apd form, side by side.
func bothForms() (inline, boxed []Datum) {
	for _, c := range coefCases {
		inline = append(inline, NewNumericCoef(c.coef, c.exp))
		boxed = append(boxed, NewNumeric(apd.New(c.coef, c.exp)))
	}
	return inline, boxed
}

func errText(err error) string {
	var pe *pgerr.Error
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s %s (%s)", pe.SQLState(), pe.Message, pe.Detail)
	}
	return fmt.Sprint(err)
}

// TestNumericCoefCompare: Compare sees only the value, whichever form
// each side is in, against values of both forms and apd-only values.
func TestNumericCoefCompare(t *testing.T) {
	inline, boxed := bothForms()
	others := apdOnly(t)
	for i := range inline {
		a, A := inline[i], boxed[i]
		if a.p != nil {
			t.Fatalf("%v is not inline", debugDatum(a))
		}
		for j := range inline {
			want := compareDecimal(A.dec(), boxed[j].dec())
			for _, p := range [][2]Datum{{a, inline[j]}, {a, boxed[j]}, {A, inline[j]}} {
				if got := Compare(p[0], p[1]); got != want {
					t.Errorf("Compare(%v, %v) = %d, want %d", debugDatum(p[0]), debugDatum(p[1]), got, want)
				}
				if got := Compare(p[1], p[0]); got != -want {
					t.Errorf("Compare(%v, %v) = %d, want %d", debugDatum(p[1]), debugDatum(p[0]), got, -want)
				}
			}
		}
		for _, o := range others {
			want := compareDecimal(A.dec(), o.dec())
			if got := Compare(a, o); got != want {
				t.Errorf("Compare(%v, %v) = %d, want %d", debugDatum(a), debugDatum(o), got, want)
			}
			if got := Compare(o, a); got != -want {
				t.Errorf("Compare(%v, %v) = %d, want %d", debugDatum(o), debugDatum(a), got, -want)
			}
		}
	}
}

// TestCompareCoefExtremes: exponents far apart, up to the int32 limits,
// where aligning the coefficients overflows int64 or the exponents'
// difference overflows int32.
func TestCompareCoefExtremes(t *testing.T) {
	coefs := []int64{0, 1, -1, 7, -7, math.MaxInt64, math.MinInt64, 1e18, -1e18}
	exps := []int32{math.MinInt32, math.MinInt32 + 1, -40, -19, -18, -1, 0, 1, 18, 19, 40, math.MaxInt32}
	for _, x := range coefs {
		for _, xe := range exps {
			for _, y := range coefs {
				for _, ye := range exps {
					a, b := NewNumericCoef(x, xe), NewNumericCoef(y, ye)
					want := compareDecimal(apd.New(x, xe), apd.New(y, ye))
					if got := Compare(a, b); got != want {
						t.Errorf("Compare(%d×10^%d, %d×10^%d) = %d, want %d", x, xe, y, ye, got, want)
					}
				}
			}
		}
	}
}

// TestNumericCoefEncodings: the two forms of a value hash alike, and
// write the same key, value, text and binary bytes; equal values at
// other scales (1.5 and 1.50) hash and key-encode alike too.
func TestNumericCoefEncodings(t *testing.T) {
	seed := maphash.MakeSeed()
	inline, boxed := bothForms()
	for i := range inline {
		a, A := inline[i], boxed[i]
		name := debugDatum(A)
		if hashOf(seed, a) != hashOf(seed, A) {
			t.Errorf("%s: hashes differ", name)
		}
		var ha, hA maphash.Hash
		ha.SetSeed(seed)
		hA.SetSeed(seed)
		HashRow(&ha, Row{NewInt4(1), a, NewText("x")})
		HashRow(&hA, Row{NewInt4(1), A, NewText("x")})
		if ha.Sum64() != hA.Sum64() {
			t.Errorf("%s: row hashes differ", name)
		}
		for _, desc := range []bool{false, true} {
			if k, K := AppendKey(nil, a, desc), AppendKey(nil, A, desc); !bytes.Equal(k, K) {
				t.Errorf("%s desc=%v: key %x, apd form %x", name, desc, k, K)
			}
		}
		v, V := AppendValue(nil, a), AppendValue(nil, A)
		if !bytes.Equal(v, V) {
			t.Errorf("%s: value %x, apd form %x", name, v, V)
		}
		if got, _, err := DecodeValue(v); err != nil || !identical(got, A) || got.p != nil {
			t.Errorf("%s: value round trip gave %v, %v", name, debugDatum(got), err)
		}
		if s, S := FormatText(a, TypeNumeric, nil), FormatText(A, TypeNumeric, nil); s != S {
			t.Errorf("%s: text %q, apd form %q", name, s, S)
		}
		b, B := AppendBinary(nil, a, TypeNumeric), AppendBinary(nil, A, TypeNumeric)
		if !bytes.Equal(b, B) {
			t.Errorf("%s: binary %x, apd form %x", name, b, B)
		}
		if got, err := ParseBinary(b, TypeNumeric); err != nil || !Equal(got, A) {
			t.Errorf("%s: binary round trip gave %v, %v", name, debugDatum(got), err)
		}
		for j := range inline {
			if Compare(A, boxed[j]) != 0 {
				continue
			}
			if hashOf(seed, a) != hashOf(seed, boxed[j]) || hashOf(seed, a) != hashOf(seed, inline[j]) {
				t.Errorf("%s and %s are equal but hash differently", name, debugDatum(boxed[j]))
			}
			if k, K := AppendKey(nil, a, false), AppendKey(nil, boxed[j], false); !bytes.Equal(k, K) {
				t.Errorf("%s and %s are equal but keys differ: %x, %x", name, debugDatum(boxed[j]), k, K)
			}
		}
	}
}

// TestNumericCoefCasts: casts and typmod rounding give the same result,
// or the same error, from either form.
func TestNumericCoefCasts(t *testing.T) {
	targets := []Type{TypeInt2, TypeInt4, TypeInt8, TypeFloat4, TypeFloat8, TypeText, TypeNumeric,
		{Family: Numeric, Mod: NumericMod(10, 2)}, {Family: Numeric, Mod: NumericMod(5, 0)},
		{Family: Numeric, Mod: NumericMod(3, 1)}, {Family: Numeric, Mod: NumericMod(20, 0)},
		{Family: Numeric, Mod: NumericMod(19, 19)}, {Family: Numeric, Mod: NumericMod(30, 8)},
		{Family: Numeric, Mod: NumericMod(4, -2)}, {Family: Numeric, Mod: NumericMod(25, -3)},
		{Family: Numeric, Mod: NumericMod(1000, 0)}}
	inline, boxed := bothForms()
	for i := range inline {
		for _, to := range targets {
			got, err := Cast(inline[i], TypeNumeric, to, nil)
			want, wantErr := Cast(boxed[i], TypeNumeric, to, nil)
			if errText(err) != errText(wantErr) || !identical(got, want) {
				t.Errorf("%v::%v = %v, %v; apd form gives %v, %v", debugDatum(boxed[i]), to,
					debugDatum(got), errText(err), debugDatum(want), errText(wantErr))
			}
			if to.Family != Numeric {
				continue
			}
			got, err = ApplyTypmod(inline[i], to)
			want, wantErr = ApplyTypmod(boxed[i], to)
			if errText(err) != errText(wantErr) || !identical(got, want) {
				t.Errorf("ApplyTypmod(%v, %v) = %v, %v; apd form gives %v, %v", debugDatum(boxed[i]), to,
					debugDatum(got), errText(err), debugDatum(want), errText(wantErr))
			}
		}
	}
}

// TestNumericCoefAccessors: Decimal and DecimalTo materialize the inline
// value, NumericCoef reads either form, and the decoders and parsers
// produce the inline form exactly when the value fits it.
func TestNumericCoefAccessors(t *testing.T) {
	inline, boxed := bothForms()
	for i, c := range coefCases {
		var scratch apd.Decimal
		for _, d := range []*apd.Decimal{inline[i].Decimal(), inline[i].DecimalTo(&scratch)} {
			if d.Cmp(boxed[i].dec()) != 0 || d.Exponent != c.exp || d.Negative != (c.coef < 0) {
				t.Errorf("%d×10^%d: Decimal() = %s", c.coef, c.exp, d)
			}
		}
		for _, d := range []Datum{inline[i], boxed[i]} {
			if coef, exp, ok := d.NumericCoef(); !ok || coef != c.coef || exp != c.exp {
				t.Errorf("NumericCoef(%v) = %d, %d, %v", debugDatum(d), coef, exp, ok)
			}
		}
	}
	for _, d := range apdOnly(t) {
		if _, _, ok := d.NumericCoef(); ok {
			t.Errorf("NumericCoef(%v) reports an inline value", debugDatum(d))
		}
		if got, _, err := DecodeValue(AppendValue(nil, d)); err != nil || !identical(got, d) || got.p == nil {
			t.Errorf("%v: value round trip gave %v, %v", debugDatum(d), debugDatum(got), err)
		}
	}
	for _, tc := range []struct {
		in     string
		inline bool
	}{{"1.50", true}, {"-0.001", true}, {"-0", true}, {"999999999999999999", true}, {"1e2", false},
		{"9223372036854775807", false}, {"NaN", false}} {
		d, err := ParseText(tc.in, TypeNumeric, nil)
		if err != nil || (d.p == nil) != tc.inline {
			t.Errorf("ParseText(%q) = %v, %v; want inline %v", tc.in, debugDatum(d), err, tc.inline)
		}
	}
}

// TestNumericCoefNoAllocs: the per-row paths read an inline numeric
// without allocating.
func TestNumericCoefNoAllocs(t *testing.T) {
	a, b := NewNumericCoef(123456, -2), NewNumericCoef(1234560, -3)
	c := NewNumericCoef(-98765, -4)
	var h maphash.Hash
	buf := make([]byte, 0, 256)
	typ := Type{Family: Numeric, Mod: NumericMod(12, 2)}
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"Compare same exponent", func() { _ = Compare(a, a) }},
		{"Compare other exponent", func() { _ = Compare(a, c) }},
		{"Compare equal at other scales", func() { _ = Compare(a, b) }},
		{"Compare inline with apd", func() { _ = Compare(a, benchApdNumeric) }},
		{"Hash", func() { Hash(&h, a) }},
		{"HashRow", func() { HashRow(&h, Row{a, c}) }},
		{"AppendKey", func() { buf = AppendKey(buf[:0], c, true) }},
		{"AppendValue", func() { buf = AppendValue(buf[:0], c) }},
		{"DecodeValue", func() { _, _, _ = DecodeValue(benchValueBytes) }},
		{"AppendText", func() { buf = AppendText(buf[:0], c, TypeNumeric, nil) }},
		{"AppendBinary", func() { buf = AppendBinary(buf[:0], c, TypeNumeric) }},
		{"ApplyTypmod", func() { _, _ = ApplyTypmod(b, typ) }},
		{"Cast to int8", func() { _, _ = Cast(c, TypeNumeric, TypeInt8, nil) }},
		{"DecimalTo", func() {
			var scratch apd.Decimal
			_ = a.DecimalTo(&scratch)
		}},
	} {
		if n := testing.AllocsPerRun(100, tc.f); n != 0 {
			t.Errorf("%s: %v allocations, want 0", tc.name, n)
		}
	}
}

var (
	benchApdNumeric = NewNumeric(apd.New(123456, -2))
	benchValueBytes = AppendValue(nil, NewNumericCoef(-98765, -4))
)

// BenchmarkNumericForms measures what an aggregate's output costs per
// group and tick: building a numeric, comparing it with the previous
// output and encoding its key, in either form.
func BenchmarkNumericForms(b *testing.B) {
	forms := []struct {
		name string
		make func(coef int64) Datum
	}{
		{"form=inline", func(coef int64) Datum { return NewNumericCoef(coef, -2) }},
		{"form=apd", func(coef int64) Datum { return NewNumeric(apd.New(coef, -2)) }},
	}
	for _, f := range forms {
		b.Run(f.name, func(b *testing.B) {
			prev := f.make(99)
			buf := make([]byte, 0, 64)
			b.ReportAllocs()
			var n int64
			for b.Loop() {
				n++
				d := f.make(100 + n%1000)
				if Compare(d, prev) == 0 {
					b.Fatal("equal")
				}
				buf = AppendKey(buf[:0], d, false)
				prev = d
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "values/s")
		})
	}
}
