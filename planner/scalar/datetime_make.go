package scalar

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// Constructors and conversions of date/time values: make_*, to_timestamp,
// age, date_bin and timezone (AT TIME ZONE).

// zoneAbbrevs are the common abbreviations of PostgreSQL's Default
// timezone_abbreviations set, as fixed offsets east of UTC.
var zoneAbbrevs = map[string]int{
	"utc": 0, "gmt": 0, "z": 0, "zulu": 0, "ut": 0,
	"est": -5 * 3600, "edt": -4 * 3600, "cst": -6 * 3600, "cdt": -5 * 3600,
	"mst": -7 * 3600, "mdt": -6 * 3600, "pst": -8 * 3600, "pdt": -7 * 3600,
	"cet": 3600, "cest": 2 * 3600, "eet": 2 * 3600, "eest": 3 * 3600, "wet": 0, "west": 3600,
	"bst": 3600, "jst": 9 * 3600, "msk": 3 * 3600, "hkt": 8 * 3600, "nzst": 12 * 3600, "nzdt": 13 * 3600,
}

// lookupZone resolves a time zone name as PostgreSQL's timezone() does:
// IANA names, abbreviations, and POSIX offsets such as '+05' or 'UTC-3',
// whose sign is POSIX's (positive is west of Greenwich).
func lookupZone(name string) (*time.Location, error) {
	s := strings.TrimSpace(name)
	if off, ok := zoneAbbrevs[strings.ToLower(s)]; ok {
		if off == 0 {
			return time.UTC, nil
		}
		return time.FixedZone(strings.ToUpper(s), off), nil
	}
	if off, ok := posixOffset(s); ok {
		return time.FixedZone(s, off), nil
	}
	if loc, err := time.LoadLocation(s); err == nil && s != "" && s != "Local" {
		return loc, nil
	}
	return nil, pgerr.New(pgerr.InvalidParameterValue, "time zone \"%s\" not recognized", name)
}

// posixOffset parses "[UTC|GMT]±hh[:mm]" with POSIX sign; it returns the
// offset east of UTC in seconds.
func posixOffset(s string) (int, bool) {
	up := strings.ToUpper(s)
	for _, p := range []string{"UTC", "GMT"} {
		up = strings.TrimPrefix(up, p)
	}
	if up == "" {
		return 0, false
	}
	sign := 1
	switch up[0] {
	case '+':
		up = up[1:]
	case '-':
		sign, up = -1, up[1:]
	}
	hh, mm, _ := strings.Cut(up, ":")
	h, err := strconv.Atoi(hh)
	if err != nil || h > 15 || len(hh) == 0 || len(hh) > 2 {
		return 0, false
	}
	m := 0
	if mm != "" {
		if m, err = strconv.Atoi(mm); err != nil || m > 59 {
			return 0, false
		}
	}
	return -sign * (h*3600 + m*60), true
}

// timezoneTZ is timezone(zone, timestamptz): the wall time in zone.
func timezoneTZ(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	loc, err := lookupZone(a[0].Str())
	if err != nil {
		return types.Null, err
	}
	us := a[1].Int()
	if isInf(us) {
		return types.NewTimestamp(us), nil
	}
	_, off := wall(us, loc).Zone()
	return checkTimestamp(types.Timestamp, us+int64(off)*usPerSec)
}

// timezoneTS is timezone(zone, timestamp): the instant at which zone's
// clocks show the wall time.
func timezoneTS(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	loc, err := lookupZone(a[0].Str())
	if err != nil {
		return types.Null, err
	}
	us := a[1].Int()
	if isInf(us) {
		return types.NewTimestampTZ(us), nil
	}
	return checkTimestamp(types.TimestampTZ, localToUTC(us, loc))
}

// civilDate validates y-m-d (y negative for BC, no year zero) and returns
// the astronomical year.
func civilDate(y, m, d int64) (int, error) {
	bad := func() error {
		return pgerr.New(pgerr.DatetimeFieldOverflow, "date field value out of range: %d-%02d-%02d", y, m, d)
	}
	if y == 0 || m < 1 || m > 12 || d < 1 || y > 5874897 || y < -4713 {
		return 0, bad()
	}
	ay := int(y)
	if y < 0 {
		ay++
	}
	if d > int64(daysIn(ay, time.Month(m))) {
		return 0, bad()
	}
	return ay, nil
}

func makeDate(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	y, m, d := a[0].Int(), a[1].Int(), a[2].Int()
	ay, err := civilDate(y, m, d)
	if err != nil {
		return types.Null, err
	}
	return checkDate(floorDiv64(time.Date(ay, time.Month(m), int(d), 0, 0, 0, 0, time.UTC).Unix(), secsPerDay))
}

// timeOfDay validates h:m:sec and returns microseconds since midnight;
// 24:00:00 is allowed as in PostgreSQL.
func timeOfDay(h, m int64, sec float64) (int64, error) {
	us := int64(math.RoundToEven(sec * 1e6))
	if h < 0 || m < 0 || m > 59 || sec < 0 || us > 60*usPerSec || h > 24 ||
		h == 24 && (m > 0 || us > 0) || math.IsNaN(sec) {
		return 0, pgerr.New(pgerr.DatetimeFieldOverflow, "time field value out of range: %d:%02d:%s", h, m, fmtSec(sec))
	}
	return h*usPerHour + m*usPerMin + us, nil
}

func fmtSec(s float64) string {
	t := strconv.FormatFloat(s, 'f', -1, 64)
	if s < 10 && s >= 0 {
		t = "0" + t
	}
	return t
}

func makeTime(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	us, err := timeOfDay(a[0].Int(), a[1].Int(), a[2].Float())
	if err != nil {
		return types.Null, err
	}
	return types.NewTime(us), nil
}

func makeTimestamp(tz bool, zoneArg bool) Impl {
	return func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
		y, m, d := a[0].Int(), a[1].Int(), a[2].Int()
		ay, err := civilDate(y, m, d)
		if err != nil {
			return types.Null, err
		}
		tod, err := timeOfDay(a[3].Int(), a[4].Int(), a[5].Float())
		if err != nil {
			return types.Null, err
		}
		local := time.Date(ay, time.Month(m), int(d), 0, 0, 0, 0, time.UTC).UnixMicro() + tod
		if !tz {
			return checkTimestamp(types.Timestamp, local)
		}
		loc := ctx.location()
		if zoneArg {
			if loc, err = lookupZone(a[6].Str()); err != nil {
				return types.Null, err
			}
		}
		return checkTimestamp(types.TimestampTZ, localToUTC(local, loc))
	}
}

func toTimestamp(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	s := a[0].Float()
	switch {
	case math.IsNaN(s):
		return types.Null, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp cannot be NaN")
	case math.IsInf(s, 1):
		return types.NewTimestampTZ(types.PosInf), nil
	case math.IsInf(s, -1):
		return types.NewTimestampTZ(types.NegInf), nil
	}
	us := math.RoundToEven(s * 1e6)
	if us < float64(minTimestamp) || us >= 9.2e18 {
		return types.Null, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range: \"%s\"", fmt.Sprint(s))
	}
	return types.NewTimestampTZ(int64(us)), nil
}

// age is PostgreSQL's symbolic difference of two timestamps in years,
// months, days and time, borrowing days from the month of the later
// operand's predecessor as timestamp_age does.
func age(x, y int64, loc *time.Location) (types.IntervalValue, error) {
	if isInf(x) || isInf(y) {
		return types.IntervalValue{}, pgerr.New(pgerr.DatetimeFieldOverflow, "cannot subtract infinite timestamps")
	}
	t1, t2 := wall(x, loc), wall(y, loc)
	us := int64(t1.Nanosecond()/1000 - t2.Nanosecond()/1000)
	sec := t1.Second() - t2.Second()
	mi := t1.Minute() - t2.Minute()
	h := t1.Hour() - t2.Hour()
	d := t1.Day() - t2.Day()
	mo := int(t1.Month()) - int(t2.Month())
	yr := t1.Year() - t2.Year()
	neg := x < y
	if neg {
		us, sec, mi, h, d, mo, yr = -us, -sec, -mi, -h, -d, -mo, -yr
	}
	for us < 0 {
		us += usPerSec
		sec--
	}
	for sec < 0 {
		sec += 60
		mi--
	}
	for mi < 0 {
		mi += 60
		h--
	}
	for h < 0 {
		h += 24
		d--
	}
	for d < 0 {
		if neg {
			d += daysIn(t1.Year(), t1.Month())
		} else {
			d += daysIn(t2.Year(), t2.Month())
		}
		mo--
	}
	for mo < 0 {
		mo += 12
		yr--
	}
	if neg {
		us, sec, mi, h, d, mo, yr = -us, -sec, -mi, -h, -d, -mo, -yr
	}
	return types.IntervalValue{Months: int32(yr*12 + mo), Days: int32(d),
		Micros: int64(h)*usPerHour + int64(mi)*usPerMin + int64(sec)*usPerSec + us}, nil
}

func ageImpl(tz bool) Impl {
	return func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
		var loc *time.Location
		if tz {
			loc = ctx.location()
		}
		var x, y types.Datum
		if len(a) == 2 {
			x, y = a[0], a[1]
		} else {
			y = a[0]
			midnight := floorDiv64(localWall(ctx, txnMicros(ctx)), usPerDay) * usPerDay
			if tz {
				midnight = localToUTC(midnight, loc)
			}
			x = types.NewTimestamp(midnight)
		}
		r, err := age(x.Int(), y.Int(), loc)
		if err != nil {
			return types.Null, err
		}
		return types.NewInterval(r), nil
	}
}

func dateBin(f types.Family) Impl {
	return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		stride, t, origin := a[0].Interval(), a[1].Int(), a[2].Int()
		if isInf(t) {
			return a[1], nil
		}
		if isInf(origin) {
			return types.Null, pgerr.New(pgerr.DatetimeFieldOverflow, "origin out of range")
		}
		if stride.Months != 0 {
			return types.Null, pgerr.New(pgerr.FeatureNotSupported, "timestamps cannot be binned into intervals containing months or years")
		}
		strideUs := int64(stride.Days)*usPerDay + stride.Micros
		if strideUs <= 0 {
			return types.Null, pgerr.New(pgerr.DatetimeFieldOverflow, "stride must be greater than zero")
		}
		diff := t - origin
		delta := diff - diff%strideUs
		if origin > t && strideUs > 1 {
			delta -= strideUs
		}
		return checkTimestamp(f, origin+delta)
	}
}

func init() {
	addFunc(
		&Func{Name: "timezone", Params: ts(textT, tstzT), Ret: tsT, Strict: true, Impl: timezoneTZ},
		&Func{Name: "timezone", Params: ts(textT, tsT), Ret: tstzT, Strict: true, Impl: timezoneTS},
		strict("make_date", ts(int4T, int4T, int4T), dateT, makeDate),
		strict("make_time", ts(int4T, int4T, f8), timeT, makeTime),
		strict("make_timestamp", ts(int4T, int4T, int4T, int4T, int4T, f8), tsT, makeTimestamp(false, false)),
		&Func{Name: "make_timestamptz", Params: ts(int4T, int4T, int4T, int4T, int4T, f8), Ret: tstzT, Strict: true, Volatility: Stable, Impl: makeTimestamp(true, false)},
		strict("make_timestamptz", ts(int4T, int4T, int4T, int4T, int4T, f8, textT), tstzT, makeTimestamp(true, true)),
		strict("to_timestamp", ts(f8), tstzT, toTimestamp),
		strict("age", ts(tsT, tsT), ivT, ageImpl(false)),
		&Func{Name: "age", Params: ts(tstzT, tstzT), Ret: ivT, Strict: true, Volatility: Stable, Impl: ageImpl(true)},
		&Func{Name: "age", Params: ts(tsT), Ret: ivT, Strict: true, Volatility: Stable, Impl: ageImpl(false)},
		&Func{Name: "age", Params: ts(tstzT), Ret: ivT, Strict: true, Volatility: Stable, Impl: ageImpl(true)},
		strict("date_bin", ts(ivT, tsT, tsT), tsT, dateBin(types.Timestamp)),
		strict("date_bin", ts(ivT, tstzT, tstzT), tstzT, dateBin(types.TimestampTZ)),
	)
}
