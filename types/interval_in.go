package types

import (
	"math"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/pgerr"
)

// intervalAcc accumulates interval input the way pg_itm_in does:
// years and months separately, days, and microseconds, with overflow
// checks on every step.
type intervalAcc struct {
	years, months, days, usec int64
}

// Interval units, after DecodeUnits' deltatktbl (names are looked up
// truncated to 10 characters, as PostgreSQL does).
const (
	uMicro = iota + 1
	uMilli
	uSecond
	uMinute
	uHour
	uDay
	uWeek
	uMonth
	uYear
	uDecade
	uCentury
	uMillennium
	uAgo
	uIgnore
)

var intervalUnits = map[string]int{
	"@": uIgnore, "ago": uAgo,
	"c": uCentury, "cent": uCentury, "centuries": uCentury, "century": uCentury,
	"d": uDay, "day": uDay, "days": uDay,
	"dec": uDecade, "decade": uDecade, "decades": uDecade, "decs": uDecade,
	"h": uHour, "hour": uHour, "hours": uHour, "hr": uHour, "hrs": uHour,
	"m": uMinute, "min": uMinute, "mins": uMinute, "minute": uMinute, "minutes": uMinute,
	"mil": uMillennium, "millennia": uMillennium, "millennium": uMillennium, "mils": uMillennium,
	"millisecon": uMilli, "ms": uMilli, "msec": uMilli, "msecond": uMilli, "mseconds": uMilli, "msecs": uMilli,
	"mon": uMonth, "mons": uMonth, "month": uMonth, "months": uMonth,
	"s": uSecond, "sec": uSecond, "second": uSecond, "seconds": uSecond, "secs": uSecond,
	"microsecon": uMicro, "us": uMicro, "usec": uMicro, "usecond": uMicro, "useconds": uMicro, "usecs": uMicro,
	"w": uWeek, "week": uWeek, "weeks": uWeek,
	"y": uYear, "year": uYear, "years": uYear, "yr": uYear, "yrs": uYear,
}

func (a *intervalAcc) addMicros(val int64, frac float64, scale int64) bool {
	p, ok := mulAdd(val, scale, a.usec)
	if !ok {
		return false
	}
	a.usec = p
	return a.addFracMicros(frac, scale)
}

func (a *intervalAcc) addFracMicros(frac float64, scale int64) bool {
	if frac == 0 {
		return true
	}
	frac *= float64(scale)
	us := int64(frac)
	frac -= float64(us)
	if frac > 0.5 {
		us++
	} else if frac < -0.5 {
		us--
	}
	return addOK(&a.usec, us)
}

func (a *intervalAcc) addDays(val, scale int64) bool {
	if val > math.MaxInt32 || val < math.MinInt32 {
		return false
	}
	v := val * scale
	if v > math.MaxInt32 || v < math.MinInt32 {
		return false
	}
	a.days += v
	return a.days <= math.MaxInt32 && a.days >= math.MinInt32
}

func (a *intervalAcc) addFracDays(frac float64, scale int64) bool {
	if frac == 0 {
		return true
	}
	frac *= float64(scale)
	extra := int64(frac)
	a.days += extra
	if a.days > math.MaxInt32 || a.days < math.MinInt32 {
		return false
	}
	return a.addFracMicros(frac-float64(extra), usecsPerDay)
}

func (a *intervalAcc) addMonths(val int64) bool {
	if val > math.MaxInt32 || val < math.MinInt32 {
		return false
	}
	a.months += val
	return a.months <= math.MaxInt32 && a.months >= math.MinInt32
}

func (a *intervalAcc) addYears(val, scale int64) bool {
	if val > math.MaxInt32 || val < math.MinInt32 {
		return false
	}
	v := val * scale
	if v > math.MaxInt32 || v < math.MinInt32 {
		return false
	}
	a.years += v
	return a.years <= math.MaxInt32 && a.years >= math.MinInt32
}

func (a *intervalAcc) addFracYears(frac float64, scale int64) bool {
	a.months += int64(math.RoundToEven(frac * float64(scale) * 12))
	return a.months <= math.MaxInt32 && a.months >= math.MinInt32
}

func mulAdd(v, scale, base int64) (int64, bool) {
	if v != 0 && (v > math.MaxInt64/scale || v < math.MinInt64/scale) {
		return 0, false
	}
	p := v * scale
	return p, addOK(&p, base)
}

func addOK(dst *int64, v int64) bool {
	s := *dst + v
	if (v > 0 && s < *dst) || (v < 0 && s > *dst) {
		return false
	}
	*dst = s
	return true
}

func (a *intervalAcc) value() (IntervalValue, bool) {
	months := a.years*12 + a.months
	if months > math.MaxInt32 || months < math.MinInt32 {
		return IntervalValue{}, false
	}
	return IntervalValue{Months: int32(months), Days: int32(a.days), Micros: a.usec}, true
}

// parseInterval reads interval input: PostgreSQL's unit syntax ("1 year
// 2 mons 3 days 04:05:06", "@ 1 day ago", SQL's "1-2" and "1 2:03:04")
// and, failing that, ISO 8601 ("P1Y2M3DT4H5M6S", "P0001-02-03T04:05:06").
// Under IntervalStyle sql_standard a leading minus applies to every field
// when no other field has a sign. rng is the field range of the target
// type's modifier (IntervalFullRange for none), which gives a bare number
// its unit: '1' is a month under INTERVAL MONTH.
func parseInterval(s string, style IntervalStyle, rng int32) (Datum, error) {
	var a intervalAcc
	e := dtBadFormat
	var buf [16]dtField
	if fields, ok := lexDateTime(s, buf[:0]); ok {
		e = a.decode(fields, style, rng)
	}
	if e == dtBadFormat {
		a = intervalAcc{}
		e = a.decodeISO(s)
	}
	switch e {
	case dtOK:
	case dtFieldOverflow:
		return Null, pgerr.New(pgerr.IntervalFieldOverflow, "interval field value out of range: %s", quoteValue(s))
	default:
		return Null, pgerr.New(pgerr.InvalidDatetimeFormat, "invalid input syntax for type interval: %s", quoteValue(s))
	}
	v, ok := a.value()
	if !ok {
		return Null, pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
	}
	return NewInterval(v), nil
}

// Field bits for DecodeInterval's duplicate check (DTK_M of each unit).
// A time field (h:m:s) claims hours, minutes and seconds; a fractional
// number of seconds claims every second unit.
func unitMask(u int) int { return 1 << u }

const (
	maskAllSecs = 1<<uSecond | 1<<uMilli | 1<<uMicro
	maskTime    = 1<<uHour | 1<<uMinute | maskAllSecs
	uNone       = 0  // no unit seen yet: a number counts seconds
	uAfterAgo   = -1 // "ago" just read: a number here is an error
)

// decode is PostgreSQL 15's DecodeInterval: fields are read right to
// left so that a unit word applies to the number before it; a time field
// makes the next number a count of days; "ago" (anywhere) negates the
// whole interval. Unit words with no number are ignored, as in 15. The
// rightmost number without a unit word counts the last field of rng, and
// under MINUTE TO SECOND a time "a:b" is minutes and seconds.
func (a *intervalAcc) decode(fields []dtField, style IntervalStyle, rng int32) dtErr {
	forceNeg := false
	if style == IntervalStyleSQLStandard && len(fields) > 0 && fields[0].val[0] == '-' {
		forceNeg = true
		for _, f := range fields[1:] {
			if f.val[0] == '-' || f.val[0] == '+' {
				forceNeg = false
				break
			}
		}
	}
	unit := uNone
	ago := false
	seen := 0
	for i := len(fields) - 1; i >= 0; i-- {
		f := fields[i]
		mask := 0
		switch f.typ {
		case dtTime, dtTZ:
			if f.typ == dtTime || strings.Contains(f.val[1:], ":") {
				body := f.val
				if f.typ == dtTZ {
					body = f.val[1:]
				}
				us, e := intervalClock(body, rng == IntervalMinute|IntervalSecond)
				if e == dtOK {
					if f.typ == dtTZ && f.val[0] == '-' {
						us = -us
					}
					if forceNeg && us > 0 {
						us = -us
					}
					a.usec = us
					unit = uDay
					mask = maskTime
					break
				}
				if f.typ == dtTime {
					return e
				}
			}
			fallthrough
		case dtNumber, dtDate:
			if unit == uNone {
				unit = intervalRangeUnit(rng)
			}
			before := unit
			frac, e := a.number(f.val, &unit, forceNeg)
			if e != dtOK {
				return e
			}
			switch {
			case unit == uMonth && before != uMonth:
				mask = unitMask(uMonth) // year-month syntax
			case before == uHour:
				mask = unitMask(uHour)
			case unit == uSecond && frac != 0:
				mask = maskAllSecs
			default:
				mask = unitMask(unit)
			}
		case dtString, dtSpecial:
			w := f.val
			if len(w) > 10 {
				w = w[:10]
			}
			u, ok := intervalUnits[w]
			switch {
			case !ok:
				return dtBadFormat
			case u == uIgnore:
			case u == uAgo:
				ago = true
				unit = uAfterAgo
			default:
				unit = u
			}
			continue
		}
		if mask&seen != 0 {
			return dtBadFormat
		}
		seen |= mask
	}
	if seen == 0 {
		return dtBadFormat
	}
	if ago {
		if a.usec == math.MinInt64 {
			return dtFieldOverflow
		}
		a.years, a.months, a.days, a.usec = -a.years, -a.months, -a.days, -a.usec
	}
	return dtOK
}

// number applies one numeric field with the current unit.
func (a *intervalAcc) number(s string, unit *int, forceNeg bool) (float64, dtErr) {
	neg := s[0] == '-'
	end := 0
	if s[0] == '-' || s[0] == '+' {
		end = 1
	}
	for end < len(s) && isDigit(s[end]) {
		end++
	}
	val, err := strconv.ParseInt(s[:end], 10, 64)
	if err != nil {
		if end > 1 || end == 1 && isDigit(s[0]) {
			return 0, dtFieldOverflow
		}
		if !(end < len(s) && s[end] == '.') {
			return 0, dtBadFormat
		}
	}
	var frac float64
	rest := s[end:]
	switch {
	case rest == "":
	case rest[0] == '-':
		// SQL year-month: Y-M
		m, err := strconv.ParseInt(rest[1:], 10, 32)
		if err != nil || rest[1] == '+' || rest[1] == '-' {
			return 0, dtBadFormat
		}
		if m < 0 || m >= 12 {
			return 0, dtFieldOverflow
		}
		if neg {
			m = -m
		}
		*unit = uMonth
		if val > math.MaxInt64/12 || val < math.MinInt64/12 {
			return 0, dtFieldOverflow
		}
		val = val*12 + m
	case rest[0] == '.':
		for i := 1; i < len(rest); i++ {
			if !isDigit(rest[i]) {
				return 0, dtBadFormat
			}
		}
		f, err := strconv.ParseFloat("0"+rest, 64)
		if err != nil {
			return 0, dtBadFormat
		}
		frac = f
		if neg {
			frac = -frac
		}
	default:
		return 0, dtBadFormat
	}
	if forceNeg {
		if val > 0 {
			val = -val
		}
		if frac > 0 {
			frac = -frac
		}
	}
	ok := true
	switch *unit {
	case uAfterAgo:
		// "ago" sets no unit for the number before it (year-month
		// syntax, which brings its own, excepted).
		return 0, dtBadFormat
	case uMicro:
		ok = a.addMicros(val, frac, 1)
	case uMilli:
		ok = a.addMicros(val, frac, 1000)
	case uSecond:
		ok = a.addMicros(val, frac, usecsPerSec)
	case uMinute:
		ok = a.addMicros(val, frac, 60*usecsPerSec)
	case uHour:
		ok = a.addMicros(val, frac, 3600*usecsPerSec)
		*unit = uDay
	case uDay:
		ok = a.addDays(val, 1) && a.addFracMicros(frac, usecsPerDay)
	case uWeek:
		ok = a.addDays(val, 7) && a.addFracDays(frac, 7)
	case uMonth:
		ok = a.addMonths(val) && a.addFracDays(frac, 30)
	case uYear:
		ok = a.addYears(val, 1) && a.addFracYears(frac, 1)
	case uDecade:
		ok = a.addYears(val, 10) && a.addFracYears(frac, 10)
	case uCentury:
		ok = a.addYears(val, 100) && a.addFracYears(frac, 100)
	case uMillennium:
		ok = a.addYears(val, 1000) && a.addFracYears(frac, 1000)
	default:
		return 0, dtBadFormat
	}
	if !ok {
		return 0, dtFieldOverflow
	}
	return frac, dtOK
}

// intervalClock reads h:m[:s[.f]] or m:s.f as microseconds; minSec
// reads h:m as m:s (the MINUTE TO SECOND range).
func intervalClock(s string, minSec bool) (int64, dtErr) {
	if minSec && strings.Count(s, ":") == 1 && !strings.Contains(s, ".") {
		// DecodeTime checks the fields after the swap: "1:60" is one
		// minute and sixty seconds.
		mins, secs, _ := strings.Cut(s, ":")
		m, err1 := strconv.ParseInt(mins, 10, 64)
		sec, err2 := strconv.ParseInt("0"+secs, 10, 64)
		switch {
		case err1 != nil || err2 != nil || mins[0] == '+' || mins[0] == '-' || strings.ContainsAny(secs, "+-"):
			return 0, dtBadFormat
		case m > 59 || sec > 60:
			return 0, dtFieldOverflow
		}
		return m*60*usecsPerSec + sec*usecsPerSec, dtOK
	}
	h, m, sec, us, e := decodeClock(s)
	if e != dtOK {
		return 0, e
	}
	v, ok := mulAdd(h, 3600*usecsPerSec, us)
	if !ok {
		return 0, dtFieldOverflow
	}
	if !addOK(&v, m*60*usecsPerSec+sec*usecsPerSec) {
		return 0, dtFieldOverflow
	}
	return v, dtOK
}
