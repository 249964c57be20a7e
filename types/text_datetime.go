package types

import "strconv"

var monthAbbrevs = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
var dayAbbrevs = [7]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}

// appendPad appends v in decimal, zero-padded to width digits.
func appendPad(dst []byte, v int64, width int) []byte {
	var buf [24]byte
	b := strconv.AppendInt(buf[:0], v, 10)
	for i := len(b); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, b...)
}

// appendFraction appends .ffffff with trailing zeros removed, nothing for
// zero, as AppendSeconds does.
func appendFraction(dst []byte, usec int64) []byte {
	if usec == 0 {
		return dst
	}
	if usec < 0 {
		usec = -usec
	}
	dst = append(dst, '.')
	digits := 6
	for usec%10 == 0 {
		usec /= 10
		digits--
	}
	return appendPad(dst, usec, digits)
}

// civil splits a Julian day into the displayed year (positive, with bc
// set for years before 1 AD) and month and day.
func civil(jd int64) (year, month, day int64, bc bool) {
	year, month, day = j2date(jd)
	if year <= 0 {
		return 1 - year, month, day, true
	}
	return year, month, day, false
}

// appendYMD appends the date part of a date or timestamp in DateStyle
// (without the BC suffix). Postgres style puts the year after the time,
// so it only writes "Dow Mon DD" here.
func appendYMD(dst []byte, jd int64, cfg *TextConfig) []byte {
	y, m, d, _ := civil(jd)
	switch cfg.DateStyle {
	case DateStyleSQL:
		if cfg.DateOrder == DateOrderDMY {
			dst = append(appendPad(dst, d, 2), '/')
			dst = append(appendPad(dst, m, 2), '/')
		} else {
			dst = append(appendPad(dst, m, 2), '/')
			dst = append(appendPad(dst, d, 2), '/')
		}
		return appendPad(dst, y, 4)
	case DateStyleGerman:
		dst = append(appendPad(dst, d, 2), '.')
		dst = append(appendPad(dst, m, 2), '.')
		return appendPad(dst, y, 4)
	}
	dst = append(appendPad(dst, y, 4), '-')
	dst = append(appendPad(dst, m, 2), '-')
	return appendPad(dst, d, 2)
}

// appendDate prints a date payload (days since 1970).
func appendDate(dst []byte, days int64, cfg *TextConfig) []byte {
	switch days {
	case PosInf:
		return append(dst, "infinity"...)
	case NegInf:
		return append(dst, "-infinity"...)
	}
	jd := days + unixEpochJDate
	y, m, d, bc := civil(jd)
	if cfg.DateStyle == DateStylePostgres {
		if cfg.DateOrder == DateOrderDMY {
			dst = append(appendPad(dst, d, 2), '-')
			dst = append(appendPad(dst, m, 2), '-')
		} else {
			dst = append(appendPad(dst, m, 2), '-')
			dst = append(appendPad(dst, d, 2), '-')
		}
		dst = appendPad(dst, y, 4)
	} else {
		dst = appendYMD(dst, jd, cfg)
	}
	if bc {
		dst = append(dst, " BC"...)
	}
	return dst
}

// appendClock appends HH:MM:SS[.ffffff] for microseconds within a day
// (24:00:00 included).
func appendClock(dst []byte, usec int64) []byte {
	dst = append(appendPad(dst, usec/(3600*usecsPerSec), 2), ':')
	dst = append(appendPad(dst, usec/(60*usecsPerSec)%60, 2), ':')
	dst = appendPad(dst, usec/usecsPerSec%60, 2)
	return appendFraction(dst, usec%usecsPerSec)
}

// appendTimeOfDay prints a time payload.
func appendTimeOfDay(dst []byte, usec int64) []byte { return appendClock(dst, usec) }

// appendTimestamp prints a timestamp or timestamptz payload in DateStyle;
// timestamptz is shown in cfg.Location with its offset (ISO) or zone
// abbreviation (other styles).
func appendTimestamp(dst []byte, usec int64, tz bool, cfg *TextConfig) []byte {
	switch usec {
	case PosInf:
		return append(dst, "infinity"...)
	case NegInf:
		return append(dst, "-infinity"...)
	}
	var off int64
	var abbrev string
	days, tod := floorDiv(usec, usecsPerDay)
	if tz {
		sec, _ := floorDiv(usec, usecsPerSec)
		off, abbrev = zoneOffset(cfg.Location, sec)
		// Shift the time of day rather than the payload, which may be
		// too close to the int64 limits to take the offset.
		var carry int64
		carry, tod = floorDiv(tod+off*usecsPerSec, usecsPerDay)
		days += carry
	}
	jd := days + unixEpochJDate
	y, m, d, bc := civil(jd)
	switch cfg.DateStyle {
	case DateStylePostgres:
		dst = append(dst, dayAbbrevs[(jd+1)%7]...)
		dst = append(dst, ' ')
		if cfg.DateOrder == DateOrderDMY {
			dst = append(appendPad(dst, d, 2), ' ')
			dst = append(dst, monthAbbrevs[m-1]...)
		} else {
			dst = append(dst, monthAbbrevs[m-1]...)
			dst = appendPad(append(dst, ' '), d, 2)
		}
		dst = appendClock(append(dst, ' '), tod)
		dst = appendPad(append(dst, ' '), y, 4)
	default:
		dst = appendClock(append(appendYMD(dst, jd, cfg), ' '), tod)
	}
	if tz {
		if cfg.DateStyle == DateStyleISO {
			dst = appendOffset(dst, off)
		} else {
			dst = append(append(dst, ' '), abbrev...)
		}
	}
	if bc {
		dst = append(dst, " BC"...)
	}
	return dst
}

// appendOffset prints a UTC offset in seconds as +HH, +HH:MM or +HH:MM:SS.
func appendOffset(dst []byte, off int64) []byte {
	if off < 0 {
		dst = append(dst, '-')
		off = -off
	} else {
		dst = append(dst, '+')
	}
	dst = appendPad(dst, off/3600, 2)
	if off%60 != 0 {
		dst = append(appendPad(append(dst, ':'), off/60%60, 2), ':')
		return appendPad(dst, off%60, 2)
	}
	if off/60%60 != 0 {
		dst = appendPad(append(dst, ':'), off/60%60, 2)
	}
	return dst
}
