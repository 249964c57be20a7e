package types

import (
	"sync"
	"time"
)

// Calendar arithmetic follows PostgreSQL's datetime.c: the proleptic
// Gregorian calendar through Julian day numbers, with astronomical year
// numbering inside (year 0 is 1 BC) and BC only on input and output.
const (
	unixEpochJDate     = 2440588 // Julian day of 1970-01-01
	postgresEpochJDate = 2451545 // Julian day of 2000-01-01
	usecsPerSec        = 1_000_000
	usecsPerDay        = 86400 * usecsPerSec
	secsPerDay         = 86400

	// pgEpochOffset is 2000-01-01 00:00 in microseconds since 1970, the
	// shift between Datum payloads and PostgreSQL's binary formats.
	pgEpochOffset = (postgresEpochJDate - unixEpochJDate) * usecsPerDay

	// pgEpochDays is 2000-01-01 in days since 1970.
	pgEpochDays = postgresEpochJDate - unixEpochJDate

	// Valid ranges, as payloads: dates from 4714-11-24 BC to 5874897-12-31;
	// timestamps from 4714-11-24 00:00 BC up to, but excluding, PosInf.
	// PostgreSQL's timestamps reach 294276-12-31, but a payload counted
	// from 1970 in an int64 ends in 294247-01-10, so the last 29 years of
	// PostgreSQL's range are out of range here.
	endDateJulian = 2147483494
	minTimestamp  = -211813488000000000 + pgEpochOffset
)

// date2j returns the Julian day number of a Gregorian date.
func date2j(year, month, day int64) int64 {
	if month > 2 {
		month++
		year += 4800
	} else {
		month += 13
		year += 4799
	}
	century := year / 100
	julian := year*365 - 32167
	julian += year/4 - century + century/4
	julian += 7834*month/256 + day
	return julian
}

// j2date is date2j's inverse.
func j2date(jd int64) (year, month, day int64) {
	julian := uint64(jd) + 32044
	quad := julian / 146097
	extra := (julian-quad*146097)*4 + 3
	julian += 60 + quad*3 + extra/146097
	quad = julian / 1461
	julian -= quad * 1461
	y := julian * 4 / 1461
	if y != 0 {
		julian = (julian+305)%365 + 123
	} else {
		julian = (julian+306)%366 + 123
	}
	y += quad * 4
	year = int64(y) - 4800
	quad = julian * 2141 / 65536
	day = int64(julian - 7834*quad/256)
	month = int64((quad+10)%12 + 1)
	return year, month, day
}

// isLeap reports a leap year in astronomical numbering.
func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

var daysInMonth = [2][12]int64{
	{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
	{31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
}

func monthDays(y, m int64) int64 {
	l := 0
	if isLeap(y) {
		l = 1
	}
	return daysInMonth[l][m-1]
}

// validJulian is IS_VALID_JULIAN: the date is not before 4714-11-24 BC
// and its year is below 5874898.
func validJulian(y, m, d int64) bool {
	return (y > -4713 || y == -4713 && (m > 11 || m == 11 && d >= 24)) && y < 5874898
}

// floorDiv divides rounding toward negative infinity.
func floorDiv(a, b int64) (q, r int64) {
	q, r = a/b, a%b
	if r < 0 {
		q--
		r += b
	}
	return q, r
}

// zoneOffset returns the UTC offset in seconds and the abbreviation in
// effect in loc at the instant unix seconds since 1970.
func zoneOffset(loc *time.Location, unix int64) (int64, string) {
	if loc == time.UTC || loc == nil {
		return 0, "UTC"
	}
	name, off := time.Unix(unix, 0).In(loc).Zone()
	return int64(off), name
}

// localToUTC converts a local wall-clock time in loc, as seconds since
// 1970 on that clock, to a UTC offset, resolving gaps and overlaps as
// PostgreSQL's DetermineTimeZoneOffset does: a time skipped by a
// spring-forward transition is read with the offset before it, an
// ambiguous fall-back time with the offset after it.
func localToUTC(loc *time.Location, local int64) int64 {
	before, _ := zoneOffset(loc, local-secsPerDay)
	after, _ := zoneOffset(loc, local+secsPerDay)
	if before == after {
		return before
	}
	bt, at := local-before, local-after
	ob, _ := zoneOffset(loc, bt)
	oa, _ := zoneOffset(loc, at)
	switch {
	case ob == before && oa == before:
		return before
	case ob == after && oa == after:
		return after
	case bt > at:
		return before
	}
	return after
}

var locations sync.Map // zone name → *time.Location or nil

// LoadLocation returns the named IANA time zone, caching lookups; ok is
// false when the zone is unknown.
func LoadLocation(name string) (*time.Location, bool) {
	if v, ok := locations.Load(name); ok {
		loc, _ := v.(*time.Location)
		return loc, loc != nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil || name == "" || name == "Local" {
		loc = nil
	}
	locations.Store(name, loc)
	return loc, loc != nil
}

// zoneAbbrevs is a subset of PostgreSQL's Default timezone abbreviation
// set: fixed UTC offsets in seconds, keyed by lower-case abbreviation.
var zoneAbbrevs = map[string]int64{
	"utc": 0, "gmt": 0, "ut": 0, "z": 0, "zulu": 0, "wet": 0,
	"est": -5 * 3600, "edt": -4 * 3600, "cst": -6 * 3600, "cdt": -5 * 3600,
	"mst": -7 * 3600, "mdt": -6 * 3600, "pst": -8 * 3600, "pdt": -7 * 3600,
	"akst": -9 * 3600, "akdt": -8 * 3600, "hst": -10 * 3600, "ast": -4 * 3600, "adt": -3 * 3600,
	"nst": -(3*3600 + 1800), "ndt": -(2*3600 + 1800),
	"bst": 3600, "cet": 3600, "cest": 2 * 3600, "met": 3600, "mest": 2 * 3600, "west": 3600,
	"eet": 2 * 3600, "eest": 3 * 3600, "msk": 3 * 3600, "ist": 2 * 3600,
	"jst": 9 * 3600, "kst": 9 * 3600, "hkt": 8 * 3600, "sgt": 8 * 3600, "awst": 8 * 3600,
	"acst": 9*3600 + 1800, "acdt": 10*3600 + 1800, "aest": 10 * 3600, "aedt": 11 * 3600,
	"nzst": 12 * 3600, "nzdt": 13 * 3600,
}
