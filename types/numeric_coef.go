package types

import (
	"cmp"
	"math"
	"strconv"

	"github.com/cockroachdb/apd/v3"
)

// A numeric whose coefficient fits an int64 — a sum of integers, most
// amounts, any value read as text with up to 18 digits — is held inline
// in the Datum: i is the signed coefficient and j the exponent, exactly
// as an apd.Decimal would hold them, so 1.50 is 150 × 10^-2 and keeps its
// display scale. Building one allocates nothing, and the per-row paths
// (Compare, Hash, the key and value encodings, text output, typmod
// rounding, casts to integers) read it without a heap apd.Decimal.
//
// NaN, the infinities, coefficients beyond int64 and negative zero keep
// the *apd.Decimal form: an int64 has no negative zero, and the value
// encoding round-trips the apd form's sign of zero exactly. Both forms of
// one value compare, hash and encode alike; only Decimal's pointer and
// the representation differ.

// NewNumericCoef returns the numeric coef × 10^exponent: the value
// NewNumeric(apd.New(coef, exponent)) holds, without allocating. Like
// NewNumeric it takes the representation as given: the exponent sets the
// display scale (NewNumericCoef(150, -2) prints 1.50), and a positive
// exponent prints as trailing zeros.
func NewNumericCoef(coef int64, exponent int32) Datum {
	return Datum{head: head{kind: Numeric, e: exponent}, i: coef}
}

// NumericCoef returns a numeric Datum as coef × 10^exponent, with the
// exponent it is held with, when the coefficient fits an int64, so that
// arithmetic on common values can stay in machine integers. ok is false
// for NaN, the infinities, negative zero, larger coefficients and
// non-numeric Datums.
func (d Datum) NumericCoef() (coef int64, exponent int32, ok bool) {
	switch {
	case d.kind != Numeric:
		return 0, 0, false
	case d.p == nil:
		return d.i, d.e, true
	}
	return decimalCoef(d.dec())
}

// DecimalTo returns a numeric Datum's value like Decimal, but sets
// *scratch to an inline value and returns scratch instead of allocating;
// a scratch on the caller's stack makes reading a numeric free. The
// result must not be modified (it may be the Datum's own decimal), and a
// result in scratch lives only as long as scratch is not reused.
func (d Datum) DecimalTo(scratch *apd.Decimal) *apd.Decimal {
	switch {
	case d.kind != Numeric:
		return nil
	case d.p != nil:
		return d.dec()
	}
	return scratch.SetFinite(d.i, d.e)
}

// numericDatum returns a numeric Datum holding a copy of d's value,
// inline when it fits; it never retains d, which may be on the caller's
// stack.
func numericDatum(d *apd.Decimal) Datum {
	if c, e, ok := decimalCoef(d); ok {
		return NewNumericCoef(c, e)
	}
	return NewNumeric(new(apd.Decimal).Set(d))
}

// decimalCoef returns d's coefficient and exponent when the inline form
// can hold d exactly.
func decimalCoef(d *apd.Decimal) (int64, int32, bool) {
	if d.Form != apd.Finite || !d.Coeff.IsUint64() {
		return 0, 0, false
	}
	c, ok := signedCoef(d.Coeff.Uint64(), d.Negative)
	return c, d.Exponent, ok
}

// signedCoef returns the coefficient of magnitude mag and sign neg when
// it fits an int64 and is not negative zero.
func signedCoef(mag uint64, neg bool) (int64, bool) {
	switch {
	case !neg:
		return int64(mag), mag <= math.MaxInt64
	case mag == 0 || mag > 1<<63:
		return 0, false
	}
	return -int64(mag), true
}

// coefMagnitude is |c|, exact for math.MinInt64.
func coefMagnitude(c int64) uint64 {
	if c < 0 {
		return -uint64(c)
	}
	return uint64(c)
}

// pow10 holds 10^0 through 10^19, every power of ten a uint64 holds.
var pow10 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// ScaleCoef returns c × 10^n for n ≥ 0; ok is false when it overflows an
// int64. n is an int64 so that differences of two int32 exponents fit.
// Arithmetic on inline numerics aligns their exponents with it.
func ScaleCoef(c int64, n int64) (int64, bool) {
	switch {
	case c == 0 || n == 0:
		return c, true
	case n >= int64(len(pow10)):
		return 0, false
	}
	p := pow10[n]
	if p > math.MaxInt64 || coefMagnitude(c) > (1<<63)/p {
		return 0, false
	}
	return c * int64(p), true
}

// compareCoef compares x × 10^xe with y × 10^ye. The coefficient with
// the larger exponent is scaled to the other's; should that overflow, its
// magnitude exceeds any int64 and so the other's.
func compareCoef(x int64, xe int32, y int64, ye int32) int {
	if xe == ye {
		return cmp.Compare(x, y)
	}
	if sx, sy := cmp.Compare(x, 0), cmp.Compare(y, 0); sx != sy || sx == 0 {
		return cmp.Compare(sx, sy)
	}
	if xe > ye {
		if xs, ok := ScaleCoef(x, int64(xe)-int64(ye)); ok {
			return cmp.Compare(xs, y)
		}
		return cmp.Compare(x, 0)
	}
	if ys, ok := ScaleCoef(y, int64(ye)-int64(xe)); ok {
		return cmp.Compare(x, ys)
	}
	return -cmp.Compare(y, 0)
}

// compareNumeric is Compare for two numerics in either form.
func compareNumeric(a, b Datum) int {
	if a.p == nil && b.p == nil {
		return compareCoef(a.i, a.e, b.i, b.e)
	}
	var sa, sb apd.Decimal
	return compareDecimal(a.DecimalTo(&sa), b.DecimalTo(&sb))
}

// roundCoef returns coef × 10^exp rounded half away from zero to a
// multiple of 10^-scale, as its coefficient at exponent -scale; ok is
// false when that coefficient overflows an int64. It is numericCtx's
// Quantize(-scale) for inline values.
func roundCoef(coef int64, exp, scale int32) (int64, bool) {
	shift := int64(exp) + int64(scale)
	switch {
	case shift >= 0:
		return ScaleCoef(coef, shift)
	case shift < -int64(len(pow10)-1):
		// 10^20 / 2 exceeds every int64 magnitude: rounds to zero.
		return 0, true
	}
	p := pow10[-shift]
	q, r := coefMagnitude(coef)/p, coefMagnitude(coef)%p
	if r >= p-r {
		q++
	}
	if coef < 0 {
		return -int64(q), true
	}
	return int64(q), true
}

// numDigits is the number of decimal digits of |c|, 1 for zero.
func numDigits(c int64) int {
	m := coefMagnitude(c)
	n := 1
	for n < len(pow10) && m >= pow10[n] {
		n++
	}
	return n
}

// roundNumericCoef is RoundNumeric for an inline value. ok is false when
// the result does not fit the inline form, for RoundNumeric to do.
func roundNumericCoef(coef int64, exp, precision, scale int32) (d Datum, ok bool, err error) {
	c, ok := roundCoef(coef, exp, scale)
	if !ok || scale > numericMaxScale {
		return Null, false, nil
	}
	if c != 0 && int64(numDigits(c))-int64(scale) > int64(precision-scale) {
		return Null, true, errNumericFieldOverflow(precision, scale)
	}
	e := -scale
	if e > 0 {
		// numeric holds no positive exponent (normalizeNumeric).
		if c, ok = ScaleCoef(c, int64(e)); !ok {
			return Null, false, nil
		}
		e = 0
	}
	return NewNumericCoef(c, e), true, nil
}

// appendCoefText is appendNumeric for an inline value: apd's plain
// notation, a positive exponent written out as zeros, and zero with a
// positive exponent as the 0 numeric_in would make it.
func appendCoefText(dst []byte, coef int64, exp int32) []byte {
	if coef < 0 {
		dst = append(dst, '-')
	}
	if exp > 0 && coef == 0 {
		return append(dst, '0')
	}
	var scratch [20]byte
	digits := strconv.AppendUint(scratch[:0], coefMagnitude(coef), 10)
	switch point := len(digits) + int(exp); {
	case exp >= 0:
		dst = append(dst, digits...)
		for i := int32(0); i < exp; i++ {
			dst = append(dst, '0')
		}
	case point <= 0:
		dst = append(dst, "0."...)
		for i := point; i < 0; i++ {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[:point]...)
		dst = append(dst, '.')
		dst = append(dst, digits[point:]...)
	}
	return dst
}
