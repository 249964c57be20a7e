package types

import (
	"strconv"

	"github.com/streamdb/streamdb/pgerr"
)

// An interval's modifier is PostgreSQL's own typmod, INTERVAL_TYPMOD(
// precision, range): the fields the type keeps (the SQL-standard
// qualifier: YEAR, DAY TO SECOND, ...) in the high 16 bits, as a mask of
// datetime.h's field numbers, and the fractional-second digits in the low
// 16 bits, 0xFFFF for "unspecified". The range decides how input reads a
// bare number (INTERVAL '1' MONTH is a month, not a second) and which
// low-order fields a value keeps (AdjustIntervalForTypmod).
const (
	// IntervalFullRange is the range of an interval without qualifier.
	IntervalFullRange = 0x7FFF
	// IntervalFullPrecision is the precision of an interval without one.
	IntervalFullPrecision = 0xFFFF
	maxIntervalPrecision  = 6
)

// The interval fields, as INTERVAL_MASK(YEAR) etc. of datetime.h (MONTH
// is 1, YEAR 2, DAY 3, HOUR 10, MINUTE 11, SECOND 12).
const (
	IntervalMonth  = 1 << 1
	IntervalYear   = 1 << 2
	IntervalDay    = 1 << 3
	IntervalHour   = 1 << 10
	IntervalMinute = 1 << 11
	IntervalSecond = 1 << 12
)

// intervalRanges are the field ranges the SQL standard's qualifiers give,
// with the words format_type prints for each.
var intervalRanges = map[int32]string{
	IntervalYear:                 " year",
	IntervalMonth:                " month",
	IntervalDay:                  " day",
	IntervalHour:                 " hour",
	IntervalMinute:               " minute",
	IntervalSecond:               " second",
	IntervalYear | IntervalMonth: " year to month",
	IntervalDay | IntervalHour:   " day to hour",
	IntervalDay | IntervalHour | IntervalMinute:                  " day to minute",
	IntervalDay | IntervalHour | IntervalMinute | IntervalSecond: " day to second",
	IntervalHour | IntervalMinute:                                " hour to minute",
	IntervalHour | IntervalMinute | IntervalSecond:               " hour to second",
	IntervalMinute | IntervalSecond:                              " minute to second",
	IntervalFullRange:                                            "",
}

// IntervalTypmod builds the modifier of an interval type from the
// modifiers the grammar attaches to it, as intervaltypmodin does: a range
// alone, or a range and a precision (INTERVAL(3) has the full range). A
// precision above 6 is reduced to 6, as PostgreSQL does with a warning.
func IntervalTypmod(mods []int32) (int32, error) {
	if len(mods) == 0 {
		return -1, nil
	}
	if _, ok := intervalRanges[mods[0]]; !ok {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid INTERVAL type modifier")
	}
	switch len(mods) {
	case 1:
		if mods[0] == IntervalFullRange {
			return -1, nil
		}
		return mods[0]<<16 | IntervalFullPrecision, nil
	case 2:
		p := mods[1]
		if p < 0 {
			return 0, pgerr.New(pgerr.InvalidParameterValue, "INTERVAL(%d) precision must not be negative", p)
		}
		return mods[0]<<16 | min(p, maxIntervalPrecision), nil
	}
	return 0, pgerr.New(pgerr.InvalidParameterValue, "invalid INTERVAL type modifier")
}

// intervalRange is the field range of an interval modifier.
func intervalRange(mod int32) int32 {
	if mod < 0 {
		return IntervalFullRange
	}
	return mod >> 16 & 0x7FFF
}

// intervalPrecision is the fractional-second digits of an interval
// modifier, or IntervalFullPrecision.
func intervalPrecision(mod int32) int32 {
	if mod < 0 {
		return IntervalFullPrecision
	}
	return mod & 0xFFFF
}

// IntervalPrecision returns the fractional-second digits of an interval
// type; ok is false when it has none.
func (t Type) IntervalPrecision() (p int32, ok bool) {
	p = intervalPrecision(t.Mod)
	return p, p != IntervalFullPrecision
}

// IntervalQualifier returns an interval type's fields as written after
// INTERVAL ("day to second(3)", "year"), "" without qualifier, as
// information_schema's interval_type shows it (upper-cased).
func (t Type) IntervalQualifier() string {
	if intervalRange(t.Mod) == IntervalFullRange {
		return ""
	}
	return intervalTypmodOut(t.Mod)[1:]
}

// intervalTypmodOut is intervaltypmodout: the qualifier format_type
// appends to "interval" (" day to second(3)", "(2)", " year").
func intervalTypmodOut(mod int32) string {
	s := intervalRanges[intervalRange(mod)]
	if p := intervalPrecision(mod); p != IntervalFullPrecision {
		s += "(" + strconv.Itoa(int(p)) + ")"
	}
	return s
}

// adjustIntervalForTypmod is AdjustIntervalForTypmod: the fields right of
// the range's last one are zeroed (those left of it are kept, so INTERVAL
// MONTH and YEAR TO MONTH are the same), and the microseconds are rounded
// to the precision, half away from zero.
func adjustIntervalForTypmod(v IntervalValue, mod int32) IntervalValue {
	if mod < 0 {
		return v
	}
	switch intervalRange(mod) {
	case IntervalYear:
		v.Months = v.Months / 12 * 12
		v.Days, v.Micros = 0, 0
	case IntervalMonth, IntervalYear | IntervalMonth:
		v.Days, v.Micros = 0, 0
	case IntervalDay:
		v.Micros = 0
	case IntervalHour, IntervalDay | IntervalHour:
		v.Micros = v.Micros / (3600 * usecsPerSec) * (3600 * usecsPerSec)
	case IntervalMinute, IntervalDay | IntervalHour | IntervalMinute, IntervalHour | IntervalMinute:
		v.Micros = v.Micros / (60 * usecsPerSec) * (60 * usecsPerSec)
	}
	if p := intervalPrecision(mod); p != IntervalFullPrecision {
		v.Micros = roundMicros(v.Micros, p)
	}
	return v
}

// intervalRangeUnit is the unit of a bare number in interval input under
// a field range (DecodeInterval's "use typmod to decide what rightmost
// field is"): the range's last field, seconds when the range is full.
func intervalRangeUnit(rng int32) int {
	switch rng {
	case IntervalYear:
		return uYear
	case IntervalMonth, IntervalYear | IntervalMonth:
		return uMonth
	case IntervalDay:
		return uDay
	case IntervalHour, IntervalDay | IntervalHour:
		return uHour
	case IntervalMinute, IntervalHour | IntervalMinute, IntervalDay | IntervalHour | IntervalMinute:
		return uMinute
	}
	return uSecond
}
