package types

import (
	"math"
	"strconv"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerr"
)

// ErrIntRange is the integer casts' overflow error: "integer out of
// range", "smallint out of range", "bigint out of range".
func ErrIntRange(f Family) error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", f)
}

// castNumber converts among integers, floats, numeric, oid and bool.
// Floats become integers rounded half to even (rint), numerics rounded
// half away from zero, as in PostgreSQL.
func castNumber(d Datum, from, to Type) (Datum, error) {
	tf := to.Family
	switch d.kind {
	case Bool:
		if tf == Int4 {
			return NewInt4(int32(d.i)), nil
		}
	case Int2, Int4, Int8:
		return castFromInt(d.i, d.kind, tf)
	case Oid:
		switch {
		case tf == Oid || tf.IsReg():
			return d, nil
		case tf == Int4:
			return NewInt4(int32(uint32(d.i))), nil
		case tf == Int8:
			return NewInt8(d.i), nil
		}
	case Float4, Float8:
		return castFromFloat(d.Float(), d.kind, tf)
	case Numeric:
		return castFromNumeric(d, tf)
	}
	return Null, errCannotCast(from, to)
}

func castFromInt(v int64, from, tf Family) (Datum, error) {
	switch tf {
	case Int2, Int4, Int8:
		lo, hi := IntRange(tf)
		if v < lo || v > hi {
			return Null, ErrIntRange(tf)
		}
		return NewInt(tf, v), nil
	case Float4:
		return NewFloat4(float32(v)), nil
	case Float8:
		return NewFloat8(float64(v)), nil
	case Numeric:
		return NewNumericCoef(v, 0), nil
	case Oid, RegClass, RegType, RegProc, RegNamespace:
		if from == Int8 {
			if v < 0 || v > math.MaxUint32 {
				return Null, pgerr.New(pgerr.NumericValueOutOfRange, "OID out of range")
			}
			return NewOid(uint32(v)), nil
		}
		return NewOid(uint32(int32(v))), nil
	case Bool:
		if from == Int4 {
			return NewBool(v != 0), nil
		}
	}
	return Null, errCannotCast(Type{Family: from}, Type{Family: tf})
}

func castFromFloat(f float64, from, tf Family) (Datum, error) {
	switch tf {
	case Int2, Int4, Int8:
		r := math.RoundToEven(f)
		lo, hi := IntRange(tf)
		// hi+1 is a power of two, exact as a float; hi itself may not be.
		if math.IsNaN(r) || r < float64(lo) || r >= -float64(lo) || int64(r) > hi {
			return Null, ErrIntRange(tf)
		}
		return NewInt(tf, int64(r)), nil
	case Float4:
		r := float32(f)
		if math.IsInf(float64(r), 0) && !math.IsInf(f, 0) {
			return Null, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
		}
		if r == 0 && f != 0 {
			return Null, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: underflow")
		}
		return NewFloat4(r), nil
	case Float8:
		return NewFloat8(f), nil
	case Numeric:
		d := new(apd.Decimal)
		switch {
		case math.IsNaN(f):
			d.Form = apd.NaN
			return NewNumeric(d), nil
		case math.IsInf(f, 0):
			d.Form, d.Negative = apd.Infinite, f < 0
			return NewNumeric(d), nil
		}
		// float8_numeric reads the value printed with DBL_DIG (FLT_DIG)
		// significant digits, not its exact binary expansion.
		digits := 15
		if from == Float4 {
			digits = 6
		}
		v, err := parseDecimalText(strconv.FormatFloat(f, 'g', digits, 64))
		if err != nil {
			return Null, err
		}
		return NewNumeric(v), nil
	}
	return Null, errCannotCast(Type{Family: from}, Type{Family: tf})
}

func castFromNumeric(n Datum, tf Family) (Datum, error) {
	if n.p == nil {
		return castFromCoef(n, tf)
	}
	d := n.dec()
	switch tf {
	case Int2, Int4, Int8:
		switch d.Form {
		case apd.NaN, apd.NaNSignaling:
			return Null, pgerr.New(pgerr.FeatureNotSupported, "cannot convert NaN to %s", tf)
		case apd.Infinite:
			return Null, pgerr.New(pgerr.FeatureNotSupported, "cannot convert infinity to %s", tf)
		}
		var r apd.Decimal
		if _, err := numericCtx.Quantize(&r, d, 0); err != nil {
			return Null, ErrIntRange(tf)
		}
		v, err := r.Int64()
		lo, hi := IntRange(tf)
		if err != nil || v < lo || v > hi {
			return Null, ErrIntRange(tf)
		}
		return NewInt(tf, v), nil
	case Float4, Float8:
		var buf [32]byte
		return parseFloat(string(appendNumeric(buf[:0], d)), tf)
	case Numeric:
		return n, nil
	}
	return Null, errCannotCast(TypeNumeric, Type{Family: tf})
}

// castFromCoef is castFromNumeric for an inline numeric: to an integer
// by rounding the coefficient, to a float through the same text.
func castFromCoef(n Datum, tf Family) (Datum, error) {
	switch tf {
	case Int2, Int4, Int8:
		v, ok := roundCoef(n.i, n.e, 0)
		lo, hi := IntRange(tf)
		if !ok || v < lo || v > hi {
			return Null, ErrIntRange(tf)
		}
		return NewInt(tf, v), nil
	case Float4, Float8:
		var buf [32]byte
		return parseFloat(string(appendCoefText(buf[:0], n.i, n.e)), tf)
	case Numeric:
		return n, nil
	}
	return Null, errCannotCast(TypeNumeric, Type{Family: tf})
}
