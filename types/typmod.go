package types

// ApplyTypmod coerces d to t's modifier with assignment semantics, as an
// INSERT into a column of type t does: varchar(n) and char(n) reject
// values longer than n characters (unless the excess is spaces) and
// char(n) pads; numeric(p,s) rounds to s digits and fails with 22003 when
// the value needs more than p-s integer digits; time and timestamp round
// to the modifier's fractional-second digits, and interval also drops the
// fields right of its qualifier's last (INTERVAL HOUR keeps whole hours). Arrays apply
// the modifier to each element. A type without modifier returns d.
func ApplyTypmod(d Datum, t Type) (Datum, error) { return applyTypmod(d, t, false) }

// applyInputTypmod applies t's modifier to the result of t's input
// function, which has the same rules as assignment.
func applyInputTypmod(d Datum, t Type) (Datum, error) { return applyTypmod(d, t, false) }

// applyTypmod applies t's modifier; explicit selects the rules of an
// explicit cast, under which over-long strings are truncated silently.
func applyTypmod(d Datum, t Type, explicit bool) (Datum, error) {
	if t.Mod < 0 || d.kind == Unknown {
		return d, nil
	}
	switch t.Family {
	case Varchar, Char:
		return applyStringTypmod(d, t, explicit)
	case Numeric:
		if d.kind != Numeric {
			return d, nil
		}
		p, s, _ := t.NumericPrecisionScale()
		if d.p == nil {
			// Without allocating, unless the result needs a coefficient
			// beyond int64.
			if r, ok, err := roundNumericCoef(d.i, d.e, p, s); ok {
				return r, err
			}
		}
		r, err := RoundNumeric(d.Decimal(), p, s)
		if err != nil {
			return Null, err
		}
		return NewNumeric(r), nil
	case Time:
		return NewTime(roundMicros(d.i, t.Mod)), nil
	case Timestamp, TimestampTZ:
		if d.i == PosInf || d.i == NegInf {
			return d, nil
		}
		return Datum{head: head{kind: d.kind}, i: roundMicros(d.i-pgEpochOffset, t.Mod) + pgEpochOffset}, nil
	case Interval:
		return NewInterval(adjustIntervalForTypmod(d.Interval(), t.Mod)), nil
	case Array:
		if d.kind != Array {
			return d, nil
		}
		et := t.ElemType()
		out := d.arr().WithElems(et, make([]Datum, len(d.arr().Elems)))
		for i, e := range d.arr().Elems {
			v, err := applyTypmod(e, et, explicit)
			if err != nil {
				return Null, err
			}
			out.Elems[i] = v
		}
		return NewArray(out), nil
	}
	return d, nil
}

// roundMicros rounds a microsecond count to prec fractional-second digits,
// half away from zero, as AdjustTimestampForTypmod does.
func roundMicros(v int64, prec int32) int64 {
	if prec >= 6 || prec < 0 {
		return v
	}
	scale := int64(1)
	for i := prec; i < 6; i++ {
		scale *= 10
	}
	half := scale / 2
	if v >= 0 {
		return (v + half) / scale * scale
	}
	return -((-v + half) / scale * scale)
}
