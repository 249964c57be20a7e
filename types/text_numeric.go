package types

import (
	"fmt"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerr"
)

// numericCtx is the context for numeric rounding inside this package:
// precision for any value numeric can hold, rounding half away from zero
// as PostgreSQL's numeric does.
var numericCtx = &apd.Context{
	Precision:   numericMaxWeight + numericMaxScale + 1,
	MaxExponent: apd.MaxExponent,
	MinExponent: apd.MinExponent,
	Rounding:    apd.RoundHalfUp,
}

// parseNumeric reads numeric input: surrounding whitespace, an optional
// sign, decimal digits with an optional point and exponent, or NaN,
// Infinity and inf (signed) in any case.
func parseNumeric(s string) (Datum, error) {
	t := trimSpace(s)
	if coef, exp, ok := parseSmallDecimal(t); ok {
		return NewNumericCoef(coef, exp), nil
	}
	d := new(apd.Decimal)
	switch strings.ToLower(t) {
	case "nan":
		d.Form = apd.NaN
		return NewNumeric(d), nil
	case "infinity", "+infinity", "inf", "+inf":
		d.Form = apd.Infinite
		return NewNumeric(d), nil
	case "-infinity", "-inf":
		d.Form, d.Negative = apd.Infinite, true
		return NewNumeric(d), nil
	}
	if !isDecimalSyntax(t) {
		return Null, errSyntax(TypeNumeric, s)
	}
	if e := strings.IndexAny(t, "eE"); e >= 0 {
		// apd accepts only int32 exponents; anything beyond is an
		// overflow (or an underflow, which numeric also rejects).
		if len(strings.TrimLeft(t[e+1:], "+-0")) > 9 {
			return Null, errNumericOverflow()
		}
	}
	v, err := parseDecimalText(t)
	if err != nil {
		return Null, err
	}
	return NewNumeric(v), nil
}

// parseSmallDecimal reads [+-]digits[.digits] of at most 18 digits — what
// bulk loads are mostly made of — straight into the coefficient and
// exponent of an inline numeric, without apd's general parser and its
// allocations. ok is false for anything else, which parseDecimalText
// handles.
func parseSmallDecimal(s string) (int64, int32, bool) {
	i, neg := 0, false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var coeff int64
	digits, frac, point := 0, 0, false
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			coeff = coeff*10 + int64(c-'0')
			digits++
			if point {
				frac++
			}
		case c == '.' && !point:
			point = true
		default:
			return 0, 0, false
		}
	}
	if digits == 0 || digits > 18 {
		return 0, 0, false
	}
	if neg {
		// -0 is 0, as numeric_in makes it.
		coeff = -coeff
	}
	return coeff, -int32(frac), true
}

// RoundNumeric applies numeric(precision, scale): rounds half away from
// zero to scale digits after the point (a negative scale rounds to a power
// of ten) and fails with 22003 "numeric field overflow" when the result
// needs more than precision-scale digits before it. NaN passes; infinities
// fail.
func RoundNumeric(d *apd.Decimal, precision, scale int32) (*apd.Decimal, error) {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return d, nil
	case apd.Infinite:
		return nil, pgerr.New(pgerr.NumericValueOutOfRange, "numeric field overflow").
			WithDetail("A field with precision %d, scale %d cannot hold an infinite value.", precision, scale)
	}
	r := new(apd.Decimal)
	if d.Exponent == -scale {
		// Already at the scale, as most loaded values are: a copy, without
		// Quantize's arithmetic.
		r.Set(d)
	} else if _, err := numericCtx.Quantize(r, d, -scale); err != nil {
		return nil, errNumericOverflow()
	}
	if r.Coeff.Sign() == 0 {
		r.Negative = false
	} else if r.NumDigits()+int64(r.Exponent) > int64(precision-scale) {
		return nil, errNumericFieldOverflow(precision, scale)
	}
	if err := normalizeNumeric(r); err != nil {
		return nil, err
	}
	return r, nil
}

// errNumericFieldOverflow is numeric(precision, scale)'s error for a
// value with too many digits before the point.
func errNumericFieldOverflow(precision, scale int32) error {
	limit := "1"
	if maxDigits := precision - scale; maxDigits != 0 {
		limit = fmt.Sprintf("10^%d", maxDigits)
	}
	return pgerr.New(pgerr.NumericValueOutOfRange, "numeric field overflow").
		WithDetail("A field with precision %d, scale %d must round to an absolute value less than %s.", precision, scale, limit)
}
