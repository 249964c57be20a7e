package types

import (
	"fmt"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/sql/pgerr"
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
	if _, err := numericCtx.Quantize(r, d, -scale); err != nil {
		return nil, errNumericOverflow()
	}
	if r.Coeff.Sign() == 0 {
		r.Negative = false
	} else if maxDigits := precision - scale; r.NumDigits()+int64(r.Exponent) > int64(maxDigits) {
		limit := "1"
		if maxDigits != 0 {
			limit = fmt.Sprintf("10^%d", maxDigits)
		}
		return nil, pgerr.New(pgerr.NumericValueOutOfRange, "numeric field overflow").
			WithDetail("A field with precision %d, scale %d must round to an absolute value less than %s.", precision, scale, limit)
	}
	if err := normalizeNumeric(r); err != nil {
		return nil, err
	}
	return r, nil
}
