package scalar

import (
	"github.com/streamdb/streamdb/internal/int128"
	"math"
	"math/bits"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/types"
)

// Inline numeric arithmetic. Most numerics reach the engine as inline
// Datums (types.NewNumericCoef: an int64 coefficient and an exponent), so
// + - * and unary minus of such values, and avg of integers, are done in
// machine integers and give an inline result; apd does what overflows
// them. The results are exactly apd's followed by numResult: the same
// coefficient at the same exponent, hence the same value and display
// scale (1.50 + 1 = 2.50, 1.5 * 1.50 = 2.250). Results apd computes into
// scratch are returned inline too when they fit (numResultOf).

// coefMagnitude is |c|, exact for math.MinInt64.
func coefMagnitude(c int64) uint64 {
	if c < 0 {
		return -uint64(c)
	}
	return uint64(c)
}

// signedCoef returns the 128-bit magnitude hi:lo with sign neg as an
// int64 when it fits.
func signedCoef(hi, lo uint64, neg bool) (int64, bool) {
	switch {
	case hi != 0:
		return 0, false
	case !neg:
		return int64(lo), lo <= math.MaxInt64
	}
	return -int64(lo), lo <= 1<<63
}

// coefResult is numResult for coef × 10^exp: a positive exponent becomes
// trailing digits of the coefficient. ok is false when the value needs
// apd — a coefficient beyond int64, or a scale beyond numeric's, which
// numResult reports as an error.
func coefResult(coef, exp int64) (types.Datum, bool) {
	if exp > 0 {
		c, ok := types.ScaleCoef(coef, exp)
		return types.NewNumericCoef(c, 0), ok
	}
	return types.NewNumericCoef(coef, int32(exp)), exp >= -maxScale
}

// addCoef is x×10^xe + y×10^ye at the smaller exponent, as apd's Add
// keeps it.
func addCoef(x int64, xe int32, y int64, ye int32) (types.Datum, bool) {
	if xe < ye {
		x, xe, y, ye = y, ye, x, xe
	}
	x, ok := types.ScaleCoef(x, int64(xe)-int64(ye))
	s := x + y
	// Two's-complement addition overflowed when both operands' signs
	// differ from the sum's.
	if !ok || (x^s)&(y^s) < 0 {
		return types.Null, false
	}
	return coefResult(s, int64(ye))
}

// subCoef is x×10^xe − y×10^ye at the smaller exponent.
func subCoef(x int64, xe int32, y int64, ye int32) (types.Datum, bool) {
	var ok bool
	e := min(xe, ye)
	if x, ok = types.ScaleCoef(x, int64(xe)-int64(e)); !ok {
		return types.Null, false
	}
	if y, ok = types.ScaleCoef(y, int64(ye)-int64(e)); !ok {
		return types.Null, false
	}
	s := x - y
	// Subtraction overflowed when the operands' signs differ and the
	// difference's sign is not the minuend's.
	if (x^y)&(x^s) < 0 {
		return types.Null, false
	}
	return coefResult(s, int64(e))
}

// mulCoef is x×10^xe × y×10^ye at the exponent xe+ye.
func mulCoef(x int64, xe int32, y int64, ye int32) (types.Datum, bool) {
	hi, lo := bits.Mul64(coefMagnitude(x), coefMagnitude(y))
	p, ok := signedCoef(hi, lo, (x < 0) != (y < 0))
	if !ok {
		return types.Null, false
	}
	return coefResult(p, int64(xe)+int64(ye))
}

// numResultOf is numResult for a result computed in the caller's scratch
// d: an inline Datum when the value fits, so that such a result costs no
// allocation, else a heap copy of d.
func numResultOf(d *apd.Decimal) (types.Datum, error) {
	if d.Form == apd.Finite && d.Coeff.IsUint64() {
		if c, ok := signedCoef(0, d.Coeff.Uint64(), d.Negative); ok {
			if r, ok := coefResult(c, int64(d.Exponent)); ok {
				return r, nil
			}
		}
	}
	return numResult(new(apd.Decimal).Set(d))
}

// intAvg is numAvg for an integer sum and n > 0 as an inline numeric,
// computed in 128-bit integers: the quotient at divScale's scale, rounded
// half away from zero. avg(1, 2) is 3 × 10^16 / 2 = 15000000000000000
// at exponent -16, 1.5000000000000000. ok is false when the sum or the
// quotient's coefficient does not fit an int64.
func intAvg(sum int128.Int, n int64) (types.Datum, bool) {
	v, ok := sum.Int64()
	if !ok {
		return types.Null, false
	}
	rscale := intDivScale(coefMagnitude(v), uint64(n))
	hi, lo, ok := mulPow10(coefMagnitude(v), rscale)
	if !ok || hi >= uint64(n) {
		// The quotient would not fit 64 bits.
		return types.Null, false
	}
	q, r := bits.Div64(hi, lo, uint64(n))
	if q >= 1<<63 {
		// Too large for an int64 even before rounding, which could
		// otherwise wrap q.
		return types.Null, false
	}
	if r >= uint64(n)-r {
		q++
	}
	c, ok := signedCoef(0, q, v < 0)
	return types.NewNumericCoef(c, int32(-rscale)), ok
}

// intDivScale is divScale for the integers x / y, y > 0, from the weight
// and first digit of each in numeric's base 10000 (nbaseDigits).
func intDivScale(x, y uint64) int {
	xw, xd := nbaseHead(x)
	yw, yd := nbaseHead(y)
	qweight := xw - yw
	if xd <= yd {
		qweight--
	}
	return clampScale(minSigDigits - qweight*decDigits)
}

// nbaseHead is nbaseDigits' weight and first group for an integer.
func nbaseHead(m uint64) (weight int, d0 uint64) {
	for m >= 10000 {
		m /= 10000
		weight++
	}
	return weight, m
}

// mulPow10 returns m × 10^k as the 128-bit hi:lo; ok is false when it
// needs more bits.
func mulPow10(m uint64, k int) (hi, lo uint64, ok bool) {
	lo = m
	for k > 0 {
		s := min(k, 18)
		p, _ := types.ScaleCoef(1, int64(s)) // 10^s
		h1, l := bits.Mul64(lo, uint64(p))
		h2, h := bits.Mul64(hi, uint64(p))
		h, carry := bits.Add64(h, h1, 0)
		if h2 != 0 || carry != 0 {
			return 0, 0, false
		}
		hi, lo = h, l
		k -= s
	}
	return hi, lo, true
}
