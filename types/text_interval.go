package types

import "strconv"

// intervalParts is an interval broken into the fields PostgreSQL prints
// (interval2itm): years and months from months, days, and the time split
// into hours (unbounded), minutes, seconds and microseconds, every part
// carrying the sign of its source field.
type intervalParts struct {
	year, mon, day, hour, min, sec, usec int64
}

func splitInterval(v IntervalValue) intervalParts {
	p := intervalParts{year: int64(v.Months) / 12, mon: int64(v.Months) % 12, day: int64(v.Days)}
	t := v.Micros
	p.hour = t / (3600 * usecsPerSec)
	t -= p.hour * 3600 * usecsPerSec
	p.min = t / (60 * usecsPerSec)
	t -= p.min * 60 * usecsPerSec
	p.sec = t / usecsPerSec
	p.usec = t - p.sec*usecsPerSec
	return p
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// appendSeconds appends |sec| (two digits when pad) and the fraction.
func appendSeconds(dst []byte, sec, usec int64, pad bool) []byte {
	if pad {
		dst = appendPad(dst, abs64(sec), 2)
	} else {
		dst = strconv.AppendInt(dst, abs64(sec), 10)
	}
	return appendFraction(dst, usec)
}

// appendInterval prints an interval in the given IntervalStyle, following
// EncodeInterval.
func appendInterval(dst []byte, v IntervalValue, style IntervalStyle) []byte {
	p := splitInterval(v)
	switch style {
	case IntervalStylePostgresVerbose:
		return appendIntervalVerbose(dst, p)
	case IntervalStyleSQLStandard:
		return appendIntervalSQL(dst, p)
	case IntervalStyleISO8601:
		return appendIntervalISO(dst, p)
	}
	isZero, isBefore := true, false
	part := func(value int64, unit string) {
		if value == 0 {
			return
		}
		if !isZero {
			dst = append(dst, ' ')
		}
		if isBefore && value > 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, value, 10)
		dst = append(append(dst, ' '), unit...)
		if value != 1 {
			dst = append(dst, 's')
		}
		isBefore = value < 0
		isZero = false
	}
	part(p.year, "year")
	part(p.mon, "mon")
	part(p.day, "day")
	if isZero || p.hour != 0 || p.min != 0 || p.sec != 0 || p.usec != 0 {
		minus := p.hour < 0 || p.min < 0 || p.sec < 0 || p.usec < 0
		if !isZero {
			dst = append(dst, ' ')
		}
		if minus {
			dst = append(dst, '-')
		} else if isBefore {
			dst = append(dst, '+')
		}
		dst = append(appendPad(dst, abs64(p.hour), 2), ':')
		dst = append(appendPad(dst, abs64(p.min), 2), ':')
		dst = appendSeconds(dst, p.sec, p.usec, true)
	}
	return dst
}

func appendIntervalVerbose(dst []byte, p intervalParts) []byte {
	dst = append(dst, '@')
	isZero, isBefore := true, false
	part := func(value int64, unit string) {
		if value == 0 {
			return
		}
		if isZero {
			isBefore = value < 0
			value = abs64(value)
		} else if isBefore {
			value = -value
		}
		dst = append(strconv.AppendInt(append(dst, ' '), value, 10), ' ')
		dst = append(dst, unit...)
		if value != 1 {
			dst = append(dst, 's')
		}
		isZero = false
	}
	part(p.year, "year")
	part(p.mon, "mon")
	part(p.day, "day")
	part(p.hour, "hour")
	part(p.min, "min")
	if p.sec != 0 || p.usec != 0 {
		dst = append(dst, ' ')
		if p.sec < 0 || p.sec == 0 && p.usec < 0 {
			if isZero {
				isBefore = true
			} else if !isBefore {
				dst = append(dst, '-')
			}
		} else if isBefore {
			dst = append(dst, '-')
		}
		dst = appendSeconds(dst, p.sec, p.usec, false)
		dst = append(dst, " sec"...)
		if abs64(p.sec) != 1 || p.usec != 0 {
			dst = append(dst, 's')
		}
		isZero = false
	}
	if isZero {
		dst = append(dst, " 0"...)
	}
	if isBefore {
		dst = append(dst, " ago"...)
	}
	return dst
}

func appendIntervalSQL(dst []byte, p intervalParts) []byte {
	hasNeg := p.year < 0 || p.mon < 0 || p.day < 0 || p.hour < 0 || p.min < 0 || p.sec < 0 || p.usec < 0
	hasPos := p.year > 0 || p.mon > 0 || p.day > 0 || p.hour > 0 || p.min > 0 || p.sec > 0 || p.usec > 0
	hasYM := p.year != 0 || p.mon != 0
	hasDT := p.day != 0 || p.hour != 0 || p.min != 0 || p.sec != 0 || p.usec != 0
	standard := !(hasNeg && hasPos) && !(hasYM && hasDT)
	if hasNeg && standard {
		dst = append(dst, '-')
		p = intervalParts{-p.year, -p.mon, -p.day, -p.hour, -p.min, -p.sec, -p.usec}
	}
	sign := func(neg bool) byte {
		if neg {
			return '-'
		}
		return '+'
	}
	clock := func(dst []byte) []byte {
		dst = append(strconv.AppendInt(dst, abs64(p.hour), 10), ':')
		dst = append(appendPad(dst, abs64(p.min), 2), ':')
		return appendSeconds(dst, p.sec, p.usec, true)
	}
	switch {
	case !hasNeg && !hasPos:
		return append(dst, '0')
	case !standard:
		dst = append(dst, sign(p.year < 0 || p.mon < 0))
		dst = append(strconv.AppendInt(dst, abs64(p.year), 10), '-')
		dst = append(strconv.AppendInt(dst, abs64(p.mon), 10), ' ', sign(p.day < 0))
		dst = append(strconv.AppendInt(dst, abs64(p.day), 10), ' ', sign(p.hour < 0 || p.min < 0 || p.sec < 0 || p.usec < 0))
		return clock(dst)
	case hasYM:
		dst = append(strconv.AppendInt(dst, p.year, 10), '-')
		return strconv.AppendInt(dst, p.mon, 10)
	case p.day != 0:
		dst = append(strconv.AppendInt(dst, p.day, 10), ' ')
		return clock(dst)
	}
	return clock(dst)
}

func appendIntervalISO(dst []byte, p intervalParts) []byte {
	if p == (intervalParts{}) {
		return append(dst, "PT0S"...)
	}
	dst = append(dst, 'P')
	part := func(v int64, unit byte) {
		if v != 0 {
			dst = append(strconv.AppendInt(dst, v, 10), unit)
		}
	}
	part(p.year, 'Y')
	part(p.mon, 'M')
	part(p.day, 'D')
	if p.hour != 0 || p.min != 0 || p.sec != 0 || p.usec != 0 {
		dst = append(dst, 'T')
	}
	part(p.hour, 'H')
	part(p.min, 'M')
	if p.sec != 0 || p.usec != 0 {
		if p.sec < 0 || p.usec < 0 {
			dst = append(dst, '-')
		}
		dst = append(appendSeconds(dst, p.sec, p.usec, false), 'S')
	}
	return dst
}
