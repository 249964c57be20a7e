package types

import (
	"math"
	"strconv"
)

// decodeISO is DecodeISO8601Interval: P[nY][nM][nW][nD][T[nH][nM][nS]]
// with decimal fractions, or the alternative P<date>T<time> formats.
func (a *intervalAcc) decodeISO(s string) dtErr {
	if len(s) < 2 || s[0] != 'P' {
		return dtBadFormat
	}
	s = s[1:]
	datePart, haveField := true, false
	for len(s) > 0 {
		if s[0] == 'T' {
			datePart, haveField = false, false
			s = s[1:]
			continue
		}
		start := s
		val, frac, rest, e := isoNumber(s)
		if e != dtOK {
			return e
		}
		s = rest
		var unit byte
		if len(s) > 0 {
			unit = s[0]
			s = s[1:]
		}
		ok := true
		if datePart {
			switch unit {
			case 'Y':
				ok = a.addYears(val, 1) && a.addFracYears(frac, 1)
			case 'M':
				ok = a.addMonths(val) && a.addFracDays(frac, 30)
			case 'W':
				ok = a.addDays(val, 7) && a.addFracDays(frac, 7)
			case 'D':
				ok = a.addDays(val, 1) && a.addFracMicros(frac, usecsPerDay)
			case 'T', 0, '-':
				if isoIntWidth(start) == 8 && !haveField && unit != '-' {
					if !(a.addYears(val/10000, 1) && a.addMonths(val/100%100) && a.addDays(val%100, 1) && a.addFracMicros(frac, usecsPerDay)) {
						return dtFieldOverflow
					}
				} else {
					if haveField {
						return dtBadFormat
					}
					var e dtErr
					if s, e = a.isoAltDate(val, frac, unit, s); e != dtOK {
						return e
					}
				}
				if len(s) > 0 && s[0] == 'T' || unit == 'T' {
					datePart, haveField = false, false
					continue
				}
				if len(s) == 0 {
					return dtOK
				}
				return dtBadFormat
			default:
				return dtBadFormat
			}
		} else {
			switch unit {
			case 'H':
				ok = a.addMicros(val, frac, 3600*usecsPerSec)
			case 'M':
				ok = a.addMicros(val, frac, 60*usecsPerSec)
			case 'S':
				ok = a.addMicros(val, frac, usecsPerSec)
			case 0, ':':
				if isoIntWidth(start) == 6 && !haveField && unit == 0 {
					ok = a.addMicros(val/10000, 0, 3600*usecsPerSec) && a.addMicros(val/100%100, 0, 60*usecsPerSec) &&
						a.addMicros(val%100, frac, usecsPerSec)
					if !ok {
						return dtFieldOverflow
					}
					return dtOK
				}
				if haveField {
					return dtBadFormat
				}
				return a.isoAltTime(val, frac, unit, s)
			default:
				return dtBadFormat
			}
		}
		if !ok {
			return dtFieldOverflow
		}
		haveField = true
	}
	return dtOK
}

// isoAltDate reads the rest of YYYY-MM-DD after the year.
func (a *intervalAcc) isoAltDate(val int64, frac float64, unit byte, s string) (string, dtErr) {
	if !(a.addYears(val, 1) && a.addFracYears(frac, 1)) {
		return s, dtFieldOverflow
	}
	if unit != '-' {
		return s, dtOK
	}
	val, frac, s, e := isoNumber(s)
	if e != dtOK {
		return s, e
	}
	if !(a.addMonths(val) && a.addFracDays(frac, 30)) {
		return s, dtFieldOverflow
	}
	if len(s) == 0 || s[0] == 'T' {
		return s, dtOK
	}
	if s[0] != '-' {
		return s, dtBadFormat
	}
	val, frac, s, e = isoNumber(s[1:])
	if e != dtOK {
		return s, e
	}
	if !(a.addDays(val, 1) && a.addFracMicros(frac, usecsPerDay)) {
		return s, dtFieldOverflow
	}
	if len(s) == 0 || s[0] == 'T' {
		return s, dtOK
	}
	return s, dtBadFormat
}

// isoAltTime reads the rest of HH:MM:SS after the hours.
func (a *intervalAcc) isoAltTime(val int64, frac float64, unit byte, s string) dtErr {
	if !a.addMicros(val, frac, 3600*usecsPerSec) {
		return dtFieldOverflow
	}
	if unit == 0 {
		return dtOK
	}
	val, frac, s, e := isoNumber(s)
	if e != dtOK {
		return e
	}
	if !a.addMicros(val, frac, 60*usecsPerSec) {
		return dtFieldOverflow
	}
	if len(s) == 0 {
		return dtOK
	}
	if s[0] != ':' {
		return dtBadFormat
	}
	val, frac, s, e = isoNumber(s[1:])
	if e != dtOK {
		return e
	}
	if !a.addMicros(val, frac, usecsPerSec) {
		return dtFieldOverflow
	}
	if len(s) == 0 {
		return dtOK
	}
	return dtBadFormat
}

// isoNumber reads a signed decimal number and splits it into its integer
// part and fraction, both carrying the sign.
func isoNumber(s string) (int64, float64, string, dtErr) {
	if len(s) == 0 || !(isDigit(s[0]) || s[0] == '-' || s[0] == '.') {
		return 0, 0, s, dtBadFormat
	}
	i := 0
	if s[0] == '-' {
		i++
	}
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0, s, dtBadFormat
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil || math.IsNaN(v) || v < -1e15 || v > 1e15 {
		return 0, 0, s, dtFieldOverflow
	}
	ip := math.Trunc(v)
	return int64(ip), v - ip, s[i:], dtOK
}

func isoIntWidth(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}
