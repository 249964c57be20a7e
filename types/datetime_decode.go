package types

import (
	"strconv"
	"strings"
	"time"
)

// Field bits recorded while decoding, after PostgreSQL's DTK_M masks. A
// field seen twice is a syntax error.
const (
	fYear = 1 << iota
	fMonth
	fDay
	fHour
	fMinute
	fSecond
	fDOY
	fTZ
	fAMPM
	fADBC
	fDOW
	fSpecial

	fDateMask = fYear | fMonth | fDay
	fTimeMask = fHour | fMinute | fSecond
)

// dtErr is a decoding failure; callers turn it into PostgreSQL's message
// for the type being read.
type dtErr uint8

const (
	dtOK            dtErr = iota
	dtBadFormat           // 22007 invalid input syntax for type ...
	dtFieldOverflow       // 22008 date/time field value out of range
	dtTZOverflow          // 22009 time zone displacement out of range
	dtBadZone             // 22023 time zone "..." not recognized
)

// dtResult is the decoded broken-down time (PostgreSQL's pg_tm plus the
// flags DecodeDateTime keeps).
type dtResult struct {
	year, mon, mday      int64
	hour, min, sec, usec int64
	fmask                int
	tzOff                int64 // seconds east of UTC, when fmask has fTZ and zone is nil
	zone                 *time.Location
	zoneName             string
	special              string // "epoch", "infinity", "-infinity"
	bc, is2digits        bool
	julian               bool
	yday                 int64 // day of year, when fmask has fDOY
	pm, am               bool
}

var monthNames = map[string]int64{
	"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
	"may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8,
	"sep": 9, "sept": 9, "september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11,
	"dec": 12, "december": 12,
}

var dowNames = map[string]bool{
	"sun": true, "sunday": true, "mon": true, "monday": true, "tue": true, "tues": true, "tuesday": true,
	"wed": true, "wednesday": true, "thu": true, "thur": true, "thurs": true, "thursday": true,
	"fri": true, "friday": true, "sat": true, "saturday": true,
}

// decodeDateTime interprets lexed fields as DecodeDateTime (timeOnly
// false) or DecodeTimeOnly (timeOnly true) do.
func decodeDateTime(fields []dtField, timeOnly bool, order DateOrder) (dtResult, dtErr) {
	var r dtResult
	haveTextMonth := false
	ptype := "" // "j" after a Julian-day prefix, "t" after ISO's T
	for i, f := range fields {
		tmask := 0
		var err dtErr
		switch f.typ {
		case dtDate:
			// A date field is a zone name when the date is complete (or,
			// for time input, when it starts with a letter), as in
			// DecodeDateTime and DecodeTimeOnly.
			zone := ptype != "" || r.fmask&(fMonth|fDay) == fMonth|fDay
			if timeOnly {
				zone = isAlpha(f.val[0])
			}
			if zone {
				if isDigit(f.val[0]) || ptype != "" {
					return r, dtBadFormat
				}
				loc, ok := lookupZone(f.val)
				if !ok {
					r.zoneName = f.val
					return r, dtBadZone
				}
				r.zone = loc
				tmask = fTZ
			} else {
				tmask, err = r.decodeDate(f.val, haveTextMonth, order)
				haveTextMonth = haveTextMonth || tmask&fMonth != 0 && strings.ContainsFunc(f.val, func(c rune) bool { return c >= 'a' && c <= 'z' })
			}
		case dtTime:
			ptype = ""
			tmask = fTimeMask
			r.hour, r.min, r.sec, r.usec, err = decodeClock(f.val)
			if err == dtOK && timeOverflows(r.hour, r.min, r.sec, r.usec) {
				err = dtFieldOverflow
			}
		case dtTZ:
			tmask = fTZ
			r.tzOff, err = decodeTZOffset(f.val)
		case dtNumber:
			tmask, err = r.decodeNumberToken(f.val, &ptype, timeOnly, haveTextMonth, order, i, fields)
		case dtString, dtSpecial:
			if timeOnly && (monthNames[f.val] != 0 || dowNames[f.val]) {
				return r, dtBadFormat // time input takes no month or weekday names
			}
			if f.val == "t" && !isoTimeFiller(fields, i, timeOnly || r.fmask&fDateMask == fDateMask) {
				return r, dtBadFormat
			}
			tmask, err = r.decodeWord(f.val, &ptype, &haveTextMonth)
		}
		if err != dtOK {
			return r, err
		}
		if tmask&r.fmask != 0 {
			return r, dtBadFormat
		}
		r.fmask |= tmask
	}
	if ptype != "" {
		return r, dtBadFormat
	}
	if err := r.validateDate(); err != dtOK {
		return r, err
	}
	if r.special != "" {
		if timeOnly {
			return r, dtBadFormat
		}
		return r, dtOK
	}
	if (r.am || r.pm) && r.hour > 12 {
		return r, dtFieldOverflow
	}
	switch {
	case r.am && r.hour == 12:
		r.hour = 0
	case r.pm && r.hour != 12:
		r.hour += 12
	}
	if timeOnly {
		if r.fmask&fTimeMask != fTimeMask {
			return r, dtBadFormat
		}
		if timeOverflows(r.hour, r.min, r.sec, r.usec) {
			return r, dtFieldOverflow
		}
		return r, dtOK
	}
	if r.fmask&fDateMask != fDateMask {
		return r, dtBadFormat
	}
	return r, dtOK
}

// isoTimeFiller reports whether ISO's "T" at fields[i] stands where
// DecodeDateTime accepts it: after a complete date (dated; time input
// needs none) and before a field that can be a time.
func isoTimeFiller(fields []dtField, i int, dated bool) bool {
	if !dated || i+1 >= len(fields) {
		return false
	}
	t := fields[i+1].typ
	return t == dtNumber || t == dtTime || t == dtDate
}

// decodeNumberToken handles a dtNumber field in its context.
func (r *dtResult) decodeNumberToken(v string, ptype *string, timeOnly, haveTextMonth bool, order DateOrder, i int, fields []dtField) (int, dtErr) {
	switch *ptype {
	case "j":
		*ptype = ""
		jd, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return 0, dtBadFormat
		}
		r.year, r.mon, r.mday = j2date(jd)
		r.julian = true
		return fDateMask, dtOK
	case "t":
		*ptype = ""
		return r.decodeNumberField(v, r.fmask|fDateMask)
	}
	dot := strings.IndexByte(v, '.')
	if timeOnly {
		switch {
		case dot >= 0 && i == 0 && len(fields) >= 2 && fields[len(fields)-1].typ == dtDate:
			return r.decodeDate(v, false, order)
		case dot > 2:
			return r.decodeNumberField(v, r.fmask|fDateMask)
		case dot >= 0:
			return 0, dtBadFormat
		case len(v) > 4:
			return r.decodeNumberField(v, r.fmask|fDateMask)
		}
		return r.decodeNumber(v, false, r.fmask|fDateMask, order)
	}
	switch {
	case dot >= 0 && r.fmask&fDateMask == 0:
		return r.decodeDate(v, haveTextMonth, order)
	case dot > 2:
		return r.decodeNumberField(v, r.fmask)
	case len(v) >= 6 && (r.fmask&fDateMask == 0 || r.fmask&fTimeMask == 0):
		return r.decodeNumberField(v, r.fmask)
	}
	return r.decodeNumber(v, haveTextMonth, r.fmask, order)
}

// decodeWord handles alphabetic fields: zone abbreviations, months, days
// of the week, AM/PM, AD/BC and the special values.
func (r *dtResult) decodeWord(w string, ptype *string, haveTextMonth *bool) (int, dtErr) {
	if off, ok := zoneAbbrevs[w]; ok {
		r.tzOff = off
		return fTZ, dtOK
	}
	switch w {
	case "epoch", "infinity", "-infinity", "+infinity":
		// As in PostgreSQL 15, a special value claims only its own
		// field bit: other fields are still decoded and checked, then
		// ignored, but a date field after it is rejected.
		r.special = strings.TrimPrefix(w, "+")
		return fSpecial, dtOK
	case "allballs":
		r.hour, r.min, r.sec, r.usec = 0, 0, 0, 0
		return fTimeMask, dtOK
	case "am":
		r.am = true
		return fAMPM, dtOK
	case "pm":
		r.pm = true
		return fAMPM, dtOK
	case "ad":
		return fADBC, dtOK
	case "bc":
		r.bc = true
		return fADBC, dtOK
	case "j", "jd", "julian":
		*ptype = "j"
		return 0, dtOK
	case "t":
		*ptype = "t"
		return 0, dtOK
	case "on", "at":
		return 0, dtOK
	}
	if m, ok := monthNames[w]; ok {
		tmask := fMonth
		if r.fmask&fMonth != 0 && !*haveTextMonth && r.fmask&fDay == 0 && r.mon >= 1 && r.mon <= 31 {
			r.mday = r.mon
			tmask = fDay
			r.fmask &^= fMonth
			tmask |= fMonth
		}
		*haveTextMonth = true
		r.mon = m
		return tmask, dtOK
	}
	if dowNames[w] {
		return fDOW, dtOK
	}
	return 0, dtBadFormat
}

// decodeDate splits a date field at non-alphanumerics and assigns the
// parts: text months first, then numbers by DecodeNumber's rules.
func (r *dtResult) decodeDate(s string, haveTextMonth bool, order DateOrder) (int, dtErr) {
	var partBuf [8]string
	parts := partBuf[:0]
	for i := 0; i < len(s); {
		for i < len(s) && !isAlnum(s[i]) {
			i++
		}
		if i >= len(s) {
			return 0, dtBadFormat
		}
		start := i
		if isDigit(s[i]) {
			for i < len(s) && isDigit(s[i]) {
				i++
			}
		} else {
			for i < len(s) && isAlpha(s[i]) {
				i++
			}
		}
		parts = append(parts, s[start:i])
		if i < len(s) && !isAlnum(s[i]) {
			i++
		}
	}
	fmask := r.fmask
	tmask := 0
	for k, p := range parts {
		if !isAlpha(p[0]) {
			continue
		}
		m, ok := monthNames[p]
		if !ok {
			return 0, dtBadFormat
		}
		if fmask&fMonth != 0 {
			return 0, dtBadFormat
		}
		r.mon = m
		haveTextMonth = true
		fmask |= fMonth
		tmask |= fMonth
		parts[k] = ""
	}
	for _, p := range parts {
		if p == "" {
			continue
		}
		dmask, err := r.decodeNumber(p, haveTextMonth, fmask, order)
		if err != dtOK {
			return 0, err
		}
		if fmask&dmask != 0 {
			return 0, dtBadFormat
		}
		fmask |= dmask
		tmask |= dmask
	}
	// As in PostgreSQL, nothing but the date (and a zone or day of year)
	// may precede a date field: "04:05:06 1999-01-08" is rejected.
	if fmask&^(fDOY|fTZ) != fDateMask {
		return 0, dtBadFormat
	}
	return tmask, dtOK
}

// decodeNumber assigns a plain number to the date field its position
// implies, as PostgreSQL's DecodeNumber does.
func (r *dtResult) decodeNumber(s string, haveTextMonth bool, fmask int, order DateOrder) (int, dtErr) {
	end := 0
	for end < len(s) && isDigit(s[end]) {
		end++
	}
	if end == 0 {
		return 0, dtBadFormat
	}
	val, err := strconv.ParseInt(s[:end], 10, 32)
	if err != nil {
		return 0, dtFieldOverflow
	}
	if end < len(s) {
		if s[end] != '.' {
			return 0, dtBadFormat
		}
		if end > 2 {
			return r.decodeNumberField(s, fmask|fDateMask)
		}
		us, ok := parseFractionalSecond(s[end:])
		if !ok {
			return 0, dtBadFormat
		}
		r.usec = us
	}
	flen := len(s)
	if flen == 3 && fmask&fDateMask == fYear && val >= 1 && val <= 366 {
		r.yday = val
		return fDOY | fMonth | fDay, dtOK
	}
	tmask := 0
	switch fmask & fDateMask {
	case 0:
		switch {
		case flen >= 3 || order == DateOrderYMD:
			tmask, r.year = fYear, val
		case order == DateOrderDMY:
			tmask, r.mday = fDay, val
		default:
			tmask, r.mon = fMonth, val
		}
	case fYear:
		tmask, r.mon = fMonth, val
	case fMonth:
		if haveTextMonth && (flen >= 3 || order == DateOrderYMD) {
			tmask, r.year = fYear, val
		} else {
			tmask, r.mday = fDay, val
		}
	case fYear | fMonth:
		if haveTextMonth && flen >= 3 && r.is2digits {
			tmask = fDay
			r.mday, r.year = r.year, val
			r.is2digits = false
		} else {
			tmask, r.mday = fDay, val
		}
	case fDay:
		tmask, r.mon = fMonth, val
	case fMonth | fDay:
		tmask, r.year = fYear, val
	case fDateMask:
		return r.decodeNumberField(s, fmask)
	default:
		return 0, dtBadFormat
	}
	if tmask == fYear {
		r.is2digits = flen <= 2
	}
	return tmask, dtOK
}

// decodeNumberField reads run-together digits: yyyymmdd, yymmdd, hhmmss,
// hhmm, with an optional fraction of a second.
func (r *dtResult) decodeNumberField(s string, fmask int) (int, dtErr) {
	if dot := strings.IndexByte(s, '.'); dot >= 0 {
		us, ok := parseFractionalSecond(s[dot:])
		if !ok {
			return 0, dtBadFormat
		}
		r.usec = us
		s = s[:dot]
	} else if fmask&fDateMask != fDateMask && len(s) >= 6 {
		n := len(s)
		r.mday, _ = strconv.ParseInt(s[n-2:], 10, 64)
		r.mon, _ = strconv.ParseInt(s[n-4:n-2], 10, 64)
		y, err := strconv.ParseInt(s[:n-4], 10, 32)
		if err != nil {
			return 0, dtFieldOverflow
		}
		r.year = y
		r.is2digits = n-4 == 2
		return fDateMask, dtOK
	}
	for _, c := range []byte(s) {
		if !isDigit(c) {
			return 0, dtBadFormat
		}
	}
	if fmask&fTimeMask != fTimeMask {
		switch len(s) {
		case 6:
			r.hour, _ = strconv.ParseInt(s[:2], 10, 64)
			r.min, _ = strconv.ParseInt(s[2:4], 10, 64)
			r.sec, _ = strconv.ParseInt(s[4:], 10, 64)
			return fTimeMask, dtOK
		case 4:
			r.hour, _ = strconv.ParseInt(s[:2], 10, 64)
			r.min, _ = strconv.ParseInt(s[2:], 10, 64)
			r.sec = 0
			return fTimeMask, dtOK
		}
	}
	return 0, dtBadFormat
}

// validateDate applies ValidateDate: BC and two-digit years, day of year,
// and month and day ranges.
func (r *dtResult) validateDate() dtErr {
	if r.fmask&fYear != 0 {
		switch {
		case r.julian:
		case r.bc:
			if r.year <= 0 {
				return dtFieldOverflow
			}
			r.year = -(r.year - 1)
		case r.is2digits:
			if r.year < 70 {
				r.year += 2000
			} else if r.year < 100 {
				r.year += 1900
			}
		case r.year <= 0:
			return dtFieldOverflow
		}
	}
	if r.fmask&fDOY != 0 {
		_, r.mon, r.mday = j2date(date2j(r.year, 1, 1) + r.yday - 1)
	}
	if r.fmask&fMonth != 0 && (r.mon < 1 || r.mon > 12) {
		return dtFieldOverflow
	}
	if r.fmask&fDay != 0 && (r.mday < 1 || r.mday > 31) {
		return dtFieldOverflow
	}
	if r.fmask&fDateMask == fDateMask && r.mday > monthDays(r.year, r.mon) {
		return dtFieldOverflow
	}
	return dtOK
}

// lookupZone finds a zone name as written in the input (lower-cased by
// the lexer), trying the IANA spellings.
func lookupZone(name string) (*time.Location, bool) {
	if loc, ok := LoadLocation(name); ok {
		return loc, true
	}
	parts := strings.FieldsFunc(name, func(r rune) bool { return r == '/' })
	for i, p := range parts {
		words := strings.Split(p, "_")
		for j, w := range words {
			if w != "" {
				words[j] = strings.ToUpper(w[:1]) + w[1:]
			}
		}
		parts[i] = strings.Join(words, "_")
	}
	if loc, ok := LoadLocation(strings.Join(parts, "/")); ok {
		return loc, true
	}
	if loc, ok := LoadLocation(strings.ToUpper(name)); ok {
		return loc, true
	}
	return posixOffsetZone(name)
}

// posixOffsetZone reads the simplest POSIX TZ form, a name of three or
// more letters and an offset such as GMT+2 or XYZ-05:30, which PostgreSQL
// accepts as a zone name. POSIX offsets count west of Greenwich, so GMT+2
// is two hours behind UTC.
func posixOffsetZone(name string) (*time.Location, bool) {
	i := 0
	for i < len(name) && isAlpha(name[i]) {
		i++
	}
	if i < 3 || i == len(name) || name[i] != '+' && name[i] != '-' {
		return nil, false
	}
	off, e := decodeTZOffset(name[i:])
	if e != dtOK {
		return nil, false
	}
	return time.FixedZone(strings.ToUpper(name), int(-off)), true
}
