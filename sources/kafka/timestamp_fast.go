package kafka

import "github.com/streamdb/streamdb/types"

// parseISOTimestamp reads the RFC 3339 timestamps event data is full of
// (2024-01-02T03:04:05.123456Z, with a space or T, an optional fraction of
// up to six digits and an optional Z, ±hh or ±hh:mm zone) without going
// through PostgreSQL's general date/time parser, which costs a third of a
// typical JSON record's decoding. Anything else (other layouts, leap
// seconds, 24:00, typmods, years outside 1..9999) is not ok, and the
// caller falls back to types.ParseText, whose result this equals: a
// timestamp ignores the zone, as PostgreSQL does; a timestamptz without a
// zone is UTC, the zone types.ParseText reads with a nil config.
func parseISOTimestamp(s string, tz bool) (types.Datum, bool) {
	if len(s) < 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T' && s[10] != ' ' || s[13] != ':' || s[16] != ':' {
		return types.Null, false
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	hour, ok4 := digits(s[11:13])
	minute, ok5 := digits(s[14:16])
	sec, ok6 := digits(s[17:19])
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 ||
		year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) ||
		hour > 23 || minute > 59 || sec > 59 {
		return types.Null, false
	}
	rest := s[19:]
	var frac int64
	if len(rest) > 0 && rest[0] == '.' {
		n := 1
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 1 || n > 7 {
			return types.Null, false
		}
		f, _ := digits(rest[1:n])
		for i := n; i < 7; i++ {
			f *= 10
		}
		frac, rest = f, rest[n:]
	}
	var offset int64 // seconds east of UTC
	switch {
	case rest == "":
	case rest == "Z":
	case len(rest) == 3 || len(rest) == 6 && rest[3] == ':':
		if rest[0] != '+' && rest[0] != '-' {
			return types.Null, false
		}
		h, ok := digits(rest[1:3])
		m := int64(0)
		if len(rest) == 6 {
			var okm bool
			if m, okm = digits(rest[4:6]); !okm {
				return types.Null, false
			}
		}
		if !ok || h > 15 || m > 59 {
			return types.Null, false
		}
		offset = (h*60 + m) * 60
		if rest[0] == '-' {
			offset = -offset
		}
	default:
		return types.Null, false
	}
	micros := (daysSinceEpoch(year, month, day)*86400+(hour*60+minute)*60+sec)*1_000_000 + frac
	if tz {
		return types.NewTimestampTZ(micros - offset*1_000_000), true
	}
	return types.NewTimestamp(micros), true
}

// digits parses a short run of ASCII digits.
func digits(s string) (int64, bool) {
	var v int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

func daysIn(year, month int64) int64 {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysSinceEpoch is the proleptic Gregorian day number of a date, 0 for
// 1970-01-01 (Howard Hinnant's days_from_civil).
func daysSinceEpoch(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400 // y >= 0 here: years start at 1
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}
