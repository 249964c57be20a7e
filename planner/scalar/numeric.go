package scalar

import (
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// PostgreSQL's numeric constants (numeric.c): results carry at least
// minSigDigits significant digits, display scales stay within
// [0, maxDisplayScale], and values within maxWeight digits before and
// maxScale after the point.
const (
	minSigDigits    = 16
	maxDisplayScale = 1000
	decDigits       = 4
	maxWeight       = 131072
	maxScale        = 16383
)

// exactCtx does exact + - * and the final rounding (half away from zero, as
// numeric's round_var does).
var exactCtx = &apd.Context{
	Precision:   maxWeight + maxScale,
	MaxExponent: apd.MaxExponent,
	MinExponent: apd.MinExponent,
	Rounding:    apd.RoundHalfUp,
}

func errNumericOverflow() error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "value overflows numeric format")
}

// numResult wraps a computed decimal as a numeric Datum in normal form: no
// positive exponent, no negative zero, within numeric's range.
func numResult(d *apd.Decimal) (types.Datum, error) {
	if d.Form == apd.Finite {
		if d.Coeff.Sign() == 0 {
			d.Negative = false
		}
		if d.Exponent > 0 {
			if _, err := exactCtx.Quantize(d, d, 0); err != nil {
				return types.Null, errNumericOverflow()
			}
		}
		if d.Exponent < -maxScale || int64(d.Exponent)+d.NumDigits() > maxWeight {
			return types.Null, errNumericOverflow()
		}
	} else if d.Form == apd.NaNSignaling {
		d.Form = apd.NaN
	}
	return types.NewNumeric(d), nil
}

// dscale is a numeric's display scale: the digits kept after the point.
func dscale(d *apd.Decimal) int {
	if d.Form != apd.Finite || d.Exponent >= 0 {
		return 0
	}
	return int(-d.Exponent)
}

// nbaseDigits describes d in numeric's base-10000 representation: weight
// of the first non-zero digit group, that group and the next, and whether
// there are further non-zero groups. Scale choices in numeric.c depend on
// them.
func nbaseDigits(d *apd.Decimal) (weight, d0, d1 int, ndigits int) {
	if d.Form != apd.Finite || d.Coeff.Sign() == 0 {
		return 0, 0, 0, 0
	}
	s := d.Coeff.String()
	p := len(s) - 1 + int(d.Exponent)
	weight = floorDiv(p, decDigits)
	k := p - weight*decDigits + 1
	group := func(from, n int) (int, bool) {
		v, nonzero := 0, false
		for i := from; i < from+n; i++ {
			v *= 10
			if i < len(s) {
				v += int(s[i] - '0')
			}
		}
		nonzero = v != 0
		return v, nonzero
	}
	d0, _ = group(0, k)
	ndigits = 1
	rest := s[min(k, len(s)):]
	for i := 0; i < len(rest); i++ {
		if rest[i] != '0' {
			ndigits = 2
			break
		}
	}
	if ndigits == 2 {
		d1, _ = group(k, decDigits)
	}
	return weight, d0, d1, ndigits
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func clampScale(rscale int, ds ...int) int {
	for _, d := range ds {
		rscale = max(rscale, d)
	}
	return min(max(rscale, 0), maxDisplayScale)
}

// divScale is numeric.c's select_div_scale.
func divScale(x, y *apd.Decimal) int {
	w1, f1, _, _ := nbaseDigits(x)
	w2, f2, _, _ := nbaseDigits(y)
	qweight := w1 - w2
	if f1 <= f2 {
		qweight--
	}
	return clampScale(minSigDigits-qweight*decDigits, dscale(x), dscale(y))
}

// adjExp is the decimal exponent of d's most significant digit.
func adjExp(d *apd.Decimal) int64 { return d.NumDigits() + int64(d.Exponent) - 1 }

// numDiv divides with a result of exactly rscale fractional digits, rounded
// half away from zero: the quotient is truncated with guard digits first so
// that the final rounding is exact.
func numDiv(x, y *apd.Decimal, rscale int) (*apd.Decimal, error) {
	if y.Form == apd.Finite && y.Coeff.Sign() == 0 {
		return nil, errDivByZero()
	}
	r := new(apd.Decimal)
	switch {
	case x.Form == apd.Finite && y.Form == apd.Infinite:
		r.SetInt64(0)
		return r, nil
	case x.Form == apd.Infinite && y.Form == apd.Finite:
		r.Form, r.Negative = apd.Infinite, x.Negative != y.Negative
		return r, nil
	case x.Form != apd.Finite || y.Form != apd.Finite:
		r.Form = apd.NaN
		return r, nil
	}
	if x.Coeff.Sign() == 0 {
		r.SetFinite(0, int32(-rscale))
		return r, nil
	}
	intDigits := adjExp(x) - adjExp(y) + 2
	prec := max(intDigits, 0) + int64(rscale) + 3
	ctx := &apd.Context{Precision: uint32(prec), MaxExponent: apd.MaxExponent, MinExponent: apd.MinExponent, Rounding: apd.RoundDown}
	if _, err := ctx.Quo(r, x, y); err != nil {
		return nil, errNumericOverflow()
	}
	if _, err := exactCtx.Quantize(r, r, int32(-rscale)); err != nil {
		return nil, errNumericOverflow()
	}
	return r, nil
}

// roundScale rounds d to rscale fractional digits in place.
func roundScale(d *apd.Decimal, rscale int) error {
	if d.Form != apd.Finite {
		return nil
	}
	if _, err := exactCtx.Quantize(d, d, int32(-rscale)); err != nil {
		return errNumericOverflow()
	}
	return nil
}

// approxCtx computes transcendental functions with enough digits for a
// result of rscale fractional digits and the given integer digits.
func approxCtx(intDigits, rscale int) *apd.Context {
	return &apd.Context{Precision: uint32(max(intDigits, 1) + rscale + 8), MaxExponent: apd.MaxExponent, MinExponent: apd.MinExponent, Rounding: apd.RoundHalfEven}
}

// estimateLnDweight is numeric.c's estimate_ln_dweight: roughly the decimal
// weight of ln(d).
func estimateLnDweight(d *apd.Decimal) int {
	if d.Sign() <= 0 {
		return 0
	}
	lo, hi := apd.New(9, -1), apd.New(11, -1)
	if d.Cmp(lo) >= 0 && d.Cmp(hi) <= 0 {
		var x apd.Decimal
		exactCtx.Sub(&x, d, apd.New(1, 0))
		w, d0, _, n := nbaseDigits(&x)
		if n == 0 {
			return 0
		}
		return w*decDigits + int(math.Log10(float64(d0)))
	}
	w, d0, d1, n := nbaseDigits(d)
	digits := d0
	dweight := w * decDigits
	if n > 1 {
		digits = d0*10000 + d1
		dweight -= decDigits
	}
	ln := math.Log(float64(digits)) + float64(dweight)*math.Ln10
	return int(math.Log10(math.Abs(ln)))
}

func decFloat(d *apd.Decimal) float64 {
	f, err := d.Float64()
	if err != nil {
		if d.Negative {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	return f
}
