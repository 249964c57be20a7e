package types

import (
	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerr"
)

// PostgreSQL's numeric limits: 131072 digits before the decimal point and
// 16383 after it.
const (
	numericMaxWeight = 131072
	numericMaxScale  = 16383
)

// errNumericOverflow is numeric's error for values beyond its range.
func errNumericOverflow() error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "value overflows numeric format")
}

// normalizeNumeric puts d into the form a numeric Datum holds: no positive
// exponent (1E+2 becomes 100, as numeric_in keeps no exponent), no negative
// zero, no signed or signalling NaN, and within numeric's range.
func normalizeNumeric(d *apd.Decimal) error {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		d.Form = apd.NaN
		d.Negative = false
		d.Coeff.SetInt64(0)
		d.Exponent = 0
		return nil
	case apd.Infinite:
		d.Coeff.SetInt64(0)
		d.Exponent = 0
		return nil
	}
	if d.Coeff.Sign() == 0 {
		d.Negative = false
		if d.Exponent > 0 {
			d.Exponent = 0
		}
	}
	if d.Exponent > 0 {
		if int64(d.Exponent)+d.NumDigits() > numericMaxWeight {
			return errNumericOverflow()
		}
		var e apd.BigInt
		e.Exp(apd.NewBigInt(10), apd.NewBigInt(int64(d.Exponent)), nil)
		d.Coeff.Mul(&d.Coeff, &e)
		d.Exponent = 0
	}
	if d.Exponent < -numericMaxScale || int64(d.Exponent)+d.NumDigits() > numericMaxWeight {
		return errNumericOverflow()
	}
	return nil
}

// compareDecimal orders numerics as PostgreSQL does: NaN equals NaN and
// sorts above every other value, including Infinity.
func compareDecimal(a, b *apd.Decimal) int {
	an, bn := a.Form == apd.NaN || a.Form == apd.NaNSignaling, b.Form == apd.NaN || b.Form == apd.NaNSignaling
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return a.Cmp(b)
}

// appendNumeric appends d as numeric_out prints it: plain notation with
// the value's scale, NaN, Infinity or -Infinity.
func appendNumeric(dst []byte, d *apd.Decimal) []byte {
	if d.Form == apd.Finite && d.Exponent > 0 {
		var n apd.Decimal
		n.Set(d)
		if normalizeNumeric(&n) == nil {
			return n.Append(dst, 'f')
		}
	}
	if d.Form != apd.Finite && d.Negative && d.Form != apd.Infinite {
		return append(dst, "NaN"...)
	}
	if d.Form == apd.Finite && d.Negative && d.Coeff.Sign() == 0 {
		var n apd.Decimal
		n.Set(d)
		n.Negative = false
		return n.Append(dst, 'f')
	}
	return d.Append(dst, 'f')
}
