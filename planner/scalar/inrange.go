package scalar

import (
	"math"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// This file holds PostgreSQL's in_range support functions, which place
// the bounds of a window frame RANGE BETWEEN <offset> PRECEDING/FOLLOWING:
// in_range(val, base, offset, sub, less) is val <= base ± offset (less)
// or val >= base ± offset, with − when sub is set, computed so that it
// never fails on overflow (an overflowing sum lies beyond every value).

// inRangeOffsets lists, per ORDER BY column family, the offset types of
// its btree operator family's in_range functions (pg_amproc).
var inRangeOffsets = map[types.Family][]types.Type{
	types.Int2:        {types.TypeInt8, types.TypeInt4, types.TypeInt2},
	types.Int4:        {types.TypeInt8, types.TypeInt4, types.TypeInt2},
	types.Int8:        {types.TypeInt8},
	types.Float4:      {types.TypeFloat8},
	types.Float8:      {types.TypeFloat8},
	types.Numeric:     {types.TypeNumeric},
	types.Date:        {types.TypeInterval},
	types.Time:        {types.TypeInterval},
	types.Timestamp:   {types.TypeInterval},
	types.TimestampTZ: {types.TypeInterval},
	types.Interval:    {types.TypeInterval},
}

// ResolveInRange returns the type a RANGE frame's offset of type off is
// cast to for an ORDER BY column of type col, as transformFrameOffset
// chooses it: among the in_range functions the offset reaches by an
// implicit cast, the one taking exactly the offset's type (the column's
// for an untyped literal), else the only one.
func ResolveInRange(col, off types.Type) (types.Type, error) {
	cands, ok := inRangeOffsets[col.Family]
	if !ok {
		return types.Type{}, pgerr.New(pgerr.FeatureNotSupported,
			"RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s", col)
	}
	preferred := off
	if off.Family == types.Unknown {
		preferred = col
	}
	var found []types.Type
	for _, c := range cands {
		if off.Family != types.Unknown && !implicitCast(off, c) {
			continue
		}
		if c.Family == preferred.Family {
			return c, nil
		}
		found = append(found, c)
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return types.Type{}, pgerr.New(pgerr.FeatureNotSupported,
			"RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s and offset type %s", col, off).
			WithHint("Cast the offset value to an appropriate type.")
	}
	return types.Type{}, pgerr.New(pgerr.FeatureNotSupported,
		"RANGE with offset PRECEDING/FOLLOWING has multiple interpretations for column type %s and offset type %s", col, off).
		WithHint("Cast the offset value to the exact intended type.")
}

// InRange returns in_range(val, base, offset, sub, less) for ORDER BY
// values of family col and a non-NULL offset of the type ResolveInRange
// chose; val and base are non-NULL. An invalid offset (negative, NaN)
// fails every call with 22013, as in PostgreSQL, where the check happens
// when a frame is computed, not when the query is planned.
func InRange(ctx *EvalContext, col types.Family, offset types.Datum, sub, less bool) func(val, base types.Datum) (bool, error) {
	cmp := func(val, sum int64) bool {
		if less {
			return val <= sum
		}
		return val >= sum
	}
	// beyond is the answer when base ± offset lies beyond every value.
	beyond := less != sub
	switch col {
	case types.Int2, types.Int4, types.Int8:
		off := offset.Int()
		if off < 0 {
			return inRangeInvalid
		}
		return func(val, base types.Datum) (bool, error) {
			b := base.Int()
			var sum int64
			var overflow bool
			if sub {
				sum = b - off
				overflow = sum > b
			} else {
				sum = b + off
				overflow = sum < b
			}
			if overflow {
				return beyond, nil
			}
			return cmp(val.Int(), sum), nil
		}
	case types.Float4, types.Float8:
		off := offset.Float()
		if math.IsNaN(off) || off < 0 {
			return inRangeInvalid
		}
		return func(val, base types.Datum) (bool, error) {
			v, b := val.Float(), base.Float()
			switch {
			case math.IsNaN(v):
				return math.IsNaN(b) || !less, nil
			case math.IsNaN(b):
				return less, nil
			case math.IsInf(off, 1) && math.IsInf(b, 0) && (b > 0) == sub:
				// base ± offset would be NaN: every value is in range.
				return true, nil
			}
			sum := b + off
			if sub {
				sum = b - off
			}
			if less {
				return v <= sum, nil
			}
			return v >= sum, nil
		}
	case types.Numeric:
		return numericInRange(offset, sub, less)
	case types.Date, types.Timestamp, types.TimestampTZ:
		iv := offset.Interval()
		if types.Compare(offset, types.NewInterval(types.IntervalValue{})) < 0 {
			return inRangeInvalid
		}
		if sub {
			iv = types.IntervalValue{Months: -iv.Months, Days: -iv.Days, Micros: -iv.Micros}
		}
		loc := tsLoc(ctx, col)
		return func(val, base types.Datum) (bool, error) {
			v, b := val.Int(), base.Int()
			if col == types.Date {
				v, b = dateToTS(v), dateToTS(b)
			}
			sum, err := addInterval(b, iv, loc)
			if err != nil {
				return false, err
			}
			return cmp(v, sum), nil
		}
	case types.Time:
		// Like time + interval, only the time part counts; unlike it,
		// the sum does not wrap around midnight.
		off := offset.Interval().Micros
		if off < 0 {
			return inRangeInvalid
		}
		if sub {
			off = -off
		}
		return func(val, base types.Datum) (bool, error) { return cmp(val.Int(), base.Int()+off), nil }
	case types.Interval:
		if types.Compare(offset, types.NewInterval(types.IntervalValue{})) < 0 {
			return inRangeInvalid
		}
		sign := int64(1)
		if sub {
			sign = -1
		}
		return func(val, base types.Datum) (bool, error) {
			sum, err := addIntervals(base.Interval(), offset.Interval(), sign)
			if err != nil {
				return false, err
			}
			c := types.Compare(val, types.NewInterval(sum))
			if less {
				return c <= 0, nil
			}
			return c >= 0, nil
		}
	}
	return func(types.Datum, types.Datum) (bool, error) {
		return false, pgerr.New(pgerr.InternalError, "no in_range function for %s", col)
	}
}

// inRangeInvalid is in_range with an invalid offset.
func inRangeInvalid(types.Datum, types.Datum) (bool, error) {
	return false, pgerr.New("22013", "invalid preceding or following size in window function")
}

// numericInRange is in_range_numeric_numeric: NaN sorts after every
// number and equals itself, infinities bound every finite sum.
func numericInRange(offset types.Datum, sub, less bool) func(val, base types.Datum) (bool, error) {
	off := offset.Decimal()
	if off.Form == apd.NaN || off.Negative && !off.IsZero() {
		return inRangeInvalid
	}
	add := numBinary(numAddOp)
	if sub {
		add = numBinary(numSubOp)
	}
	return func(val, base types.Datum) (bool, error) {
		v, b := val.Decimal(), base.Decimal()
		switch {
		case v.Form == apd.NaN:
			return b.Form == apd.NaN || !less, nil
		case b.Form == apd.NaN:
			return less, nil
		case off.Form == apd.Infinite:
			if b.Form == apd.Infinite && b.Negative != sub {
				// base ± offset would be NaN: every value is in range.
				return true, nil
			}
			if sub { // base − inf = −inf
				return !less || v.Form == apd.Infinite && v.Negative, nil
			}
			return less || v.Form == apd.Infinite && !v.Negative, nil
		case v.Form == apd.Infinite:
			if b.Form == apd.Infinite && b.Negative == v.Negative {
				return true, nil
			}
			return v.Negative == less, nil
		case b.Form == apd.Infinite:
			return b.Negative != less, nil
		}
		sum, err := add(nil, []types.Datum{base, offset})
		if err != nil {
			return false, err
		}
		c := types.Compare(val, sum)
		if less {
			return c <= 0, nil
		}
		return c >= 0, nil
	}
}
