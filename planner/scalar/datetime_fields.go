package scalar

import (
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// extract, date_part and date_trunc. extract returns numeric (PostgreSQL
// 14+): seconds with scale 6, milliseconds with scale 3, epoch with scale
// 6 for timestamps, times and intervals; date_part returns the same values
// as float8.

// dateUnit is a normalised EXTRACT/date_trunc field name.
type dateUnit string

// unitAliases maps the spellings PostgreSQL's datetime keyword table
// accepts to their unit.
var unitAliases = map[string]dateUnit{}

func init() {
	for unit, names := range map[dateUnit]string{
		"microseconds": "microsecond microseconds us usec usecs useconds",
		"milliseconds": "millisecond milliseconds ms msec msecs mseconds",
		"second":       "second seconds s sec secs",
		"minute":       "minute minutes m min mins",
		"hour":         "hour hours h hr hrs",
		"day":          "day days d",
		"week":         "week weeks w",
		"month":        "month months mon mons",
		"quarter":      "quarter qtr",
		"year":         "year years y yr yrs",
		"decade":       "decade decades dec decs",
		"century":      "century centuries c cent",
		"millennium":   "millennium millennia mil mils",
		"epoch":        "epoch",
		"dow":          "dow",
		"isodow":       "isodow",
		"doy":          "doy",
		"isoyear":      "isoyear",
		"julian":       "julian j",
		"timezone":     "timezone",
		"timezone_h":   "timezone_h timezone_hour",
		"timezone_m":   "timezone_m timezone_minute",
	} {
		for _, n := range strings.Fields(names) {
			unitAliases[n] = unit
		}
	}
}

func lookupUnit(s string, t types.Type) (dateUnit, error) {
	u, ok := unitAliases[strings.ToLower(strings.TrimSpace(s))]
	if !ok {
		return "", pgerr.New(pgerr.InvalidParameterValue, "unit \"%s\" not recognized for type %s", strings.ToLower(s), t)
	}
	return u, nil
}

func errUnitNotSupported(u string, t types.Type) error {
	return pgerr.New(pgerr.FeatureNotSupported, "unit \"%s\" not supported for type %s", u, t)
}

// scaled returns v / 10^scale as a numeric with that display scale.
func scaled(v int64, scale int) *apd.Decimal { return apd.New(v, int32(-scale)) }

func yearOf(y int) int64 {
	if y > 0 {
		return int64(y)
	}
	return int64(y) - 1
}

// calendarField computes the fields shared by date and timestamp values
// from a wall-clock time.
func calendarField(u dateUnit, t time.Time) (int64, bool) {
	y := t.Year()
	switch u {
	case "day":
		return int64(t.Day()), true
	case "month":
		return int64(t.Month()), true
	case "quarter":
		return int64(t.Month()-1)/3 + 1, true
	case "year":
		return yearOf(y), true
	case "decade":
		if y > 0 {
			return int64(y) / 10, true
		}
		return -((8 - int64(y-1)) / 10), true
	case "century":
		if y > 0 {
			return (int64(y) + 99) / 100, true
		}
		return -((99 - int64(y-1)) / 100), true
	case "millennium":
		if y > 0 {
			return (int64(y) + 999) / 1000, true
		}
		return -((999 - int64(y-1)) / 1000), true
	case "week":
		_, w := t.ISOWeek()
		return int64(w), true
	case "isoyear":
		iy, _ := t.ISOWeek()
		if iy <= 0 {
			return int64(iy) - 1, true
		}
		return int64(iy), true
	case "dow":
		return int64(t.Weekday()), true
	case "isodow":
		if t.Weekday() == time.Sunday {
			return 7, true
		}
		return int64(t.Weekday()), true
	case "doy":
		return int64(t.YearDay()), true
	}
	return 0, false
}

// unixJulian is the Julian day number of 1970-01-01.
const unixJulian = 2440588

// extractTimestamp extracts unit from a timestamp (loc nil) or a
// timestamptz (loc the session zone).
func extractTimestamp(u dateUnit, us int64, loc *time.Location, typ types.Type) (*apd.Decimal, error) {
	if isInf(us) {
		switch u {
		case "epoch", "julian", "year", "decade", "century", "millennium", "isoyear":
			d := new(apd.Decimal)
			d.Form = apd.Infinite
			d.Negative = us == types.NegInf
			return d, nil
		}
		return nil, nil
	}
	t := wall(us, loc)
	secUs := int64(t.Second())*usPerSec + int64(t.Nanosecond()/1000)
	switch u {
	case "microseconds":
		return apd.New(secUs, 0), nil
	case "milliseconds":
		return scaled(secUs, 3), nil
	case "second":
		return scaled(secUs, 6), nil
	case "minute":
		return apd.New(int64(t.Minute()), 0), nil
	case "hour":
		return apd.New(int64(t.Hour()), 0), nil
	case "epoch":
		return scaled(us, 6), nil
	case "julian":
		local := us
		if loc != nil {
			_, off := t.Zone()
			local += int64(off) * usPerSec
		}
		day := floorDiv64(local, usPerDay)
		r := new(apd.Decimal)
		frac, err := numDiv(apd.New(floorMod64(local, usPerDay), 0), apd.New(usPerDay, 0), divScale(apd.New(floorMod64(local, usPerDay), 0), apd.New(usPerDay, 0)))
		if err != nil {
			return nil, err
		}
		exactCtx.Add(r, apd.New(day+unixJulian, 0), frac)
		return r, nil
	case "timezone", "timezone_h", "timezone_m":
		if loc == nil {
			return nil, errUnitNotSupported(string(u), typ)
		}
		_, off := t.Zone()
		switch u {
		case "timezone_h":
			return apd.New(int64(off)/3600, 0), nil
		case "timezone_m":
			return apd.New(int64(off)/60%60, 0), nil
		}
		return apd.New(int64(off), 0), nil
	}
	if v, ok := calendarField(u, t); ok {
		return apd.New(v, 0), nil
	}
	return nil, errUnitNotSupported(string(u), typ)
}

func extractDate(u dateUnit, days int64) (*apd.Decimal, error) {
	if isInf(days) {
		switch u {
		case "epoch", "julian", "year", "decade", "century", "millennium", "isoyear":
			d := new(apd.Decimal)
			d.Form = apd.Infinite
			d.Negative = days == types.NegInf
			return d, nil
		}
		return nil, nil
	}
	switch u {
	case "epoch":
		return apd.New(days*secsPerDay, 0), nil
	case "julian":
		return apd.New(days+unixJulian, 0), nil
	}
	if v, ok := calendarField(u, wall(days*usPerDay, nil)); ok {
		return apd.New(v, 0), nil
	}
	return nil, errUnitNotSupported(string(u), dateT)
}

func extractTime(u dateUnit, us int64) (*apd.Decimal, error) {
	secUs := us % usPerMin
	switch u {
	case "microseconds":
		return apd.New(secUs, 0), nil
	case "milliseconds":
		return scaled(secUs, 3), nil
	case "second":
		return scaled(secUs, 6), nil
	case "minute":
		return apd.New(us/usPerMin%60, 0), nil
	case "hour":
		return apd.New(us/usPerHour, 0), nil
	case "epoch":
		return scaled(us, 6), nil
	}
	return nil, errUnitNotSupported(string(u), timeT)
}

func extractInterval(u dateUnit, iv types.IntervalValue) (*apd.Decimal, error) {
	secUs := iv.Micros % usPerMin
	years := int64(iv.Months / 12)
	switch u {
	case "microseconds":
		return apd.New(secUs, 0), nil
	case "milliseconds":
		return scaled(secUs, 3), nil
	case "second":
		return scaled(secUs, 6), nil
	case "minute":
		return apd.New(iv.Micros/usPerMin%60, 0), nil
	case "hour":
		return apd.New(iv.Micros/usPerHour, 0), nil
	case "day":
		return apd.New(int64(iv.Days), 0), nil
	case "month":
		return apd.New(int64(iv.Months%12), 0), nil
	case "quarter":
		return apd.New(int64(iv.Months%12)/3+1, 0), nil
	case "year":
		return apd.New(years, 0), nil
	case "decade":
		return apd.New(years/10, 0), nil
	case "century":
		return apd.New(years/100, 0), nil
	case "millennium":
		return apd.New(years/1000, 0), nil
	case "epoch":
		// A year counts 365.25 days, a month 30.
		secs := years*31557600 + (int64(daysPerMonth*(iv.Months%12))+int64(iv.Days))*secsPerDay
		return scaled(secs*usPerSec+iv.Micros, 6), nil
	}
	return nil, errUnitNotSupported(string(u), ivT)
}

// extractAny dispatches on the argument type.
func extractAny(ctx *EvalContext, unit string, d types.Datum, t types.Type) (*apd.Decimal, error) {
	u, err := lookupUnit(unit, t)
	if err != nil {
		return nil, err
	}
	switch t.Family {
	case types.Date:
		return extractDate(u, d.Int())
	case types.Time:
		return extractTime(u, d.Int())
	case types.Interval:
		return extractInterval(u, d.Interval())
	case types.TimestampTZ:
		return extractTimestamp(u, d.Int(), ctx.location(), t)
	}
	return extractTimestamp(u, d.Int(), nil, t)
}

func extractFunc(t types.Type, asFloat bool) *Func {
	name, ret := "extract", numT
	if asFloat {
		name, ret = "date_part", f8
	}
	vol := Immutable
	if t.Family == types.TimestampTZ {
		vol = Stable
	}
	return &Func{Name: name, Params: ts(textT, t), Ret: ret, Strict: true, Volatility: vol,
		Impl: func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
			d, err := extractAny(ctx, a[0].Str(), a[1], t)
			if err != nil || d == nil {
				return types.Null, err
			}
			if asFloat {
				return types.NewFloat8(decFloat(d)), nil
			}
			return numResult(d)
		}}
}

// truncWall truncates a wall-clock time to unit.
func truncWall(u dateUnit, t time.Time) (y int, mo time.Month, d, h, mi, s, us int, ok bool) {
	y, mo, d = t.Date()
	h, mi, s, us = t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1000
	switch u {
	case "millennium":
		if y > 0 {
			y = (y+999)/1000*1000 - 999
		} else {
			y = -((999 - (y - 1)) / 1000 * 1000) + 1
		}
		mo, d, h, mi, s, us = 1, 1, 0, 0, 0, 0
	case "century":
		if y > 0 {
			y = (y+99)/100*100 - 99
		} else {
			y = -((99 - (y - 1)) / 100 * 100) + 1
		}
		mo, d, h, mi, s, us = 1, 1, 0, 0, 0, 0
	case "decade":
		if y <= 0 {
			y = -((8 - (y - 1)) / 10 * 10) + 2
		} else {
			y = y / 10 * 10
		}
		mo, d, h, mi, s, us = 1, 1, 0, 0, 0, 0
	case "year":
		mo, d, h, mi, s, us = 1, 1, 0, 0, 0, 0
	case "quarter":
		mo = (mo-1)/3*3 + 1
		d, h, mi, s, us = 1, 0, 0, 0, 0
	case "month":
		d, h, mi, s, us = 1, 0, 0, 0, 0
	case "week":
		wd := (int(t.Weekday()) + 6) % 7
		d -= wd
		h, mi, s, us = 0, 0, 0, 0
	case "day":
		h, mi, s, us = 0, 0, 0, 0
	case "hour":
		mi, s, us = 0, 0, 0
	case "minute":
		s, us = 0, 0
	case "second":
		us = 0
	case "milliseconds":
		us = us / 1000 * 1000
	case "microseconds":
	default:
		return y, mo, d, h, mi, s, us, false
	}
	return y, mo, d, h, mi, s, us, true
}

func dateTrunc(f types.Family, zoneArg bool) Impl {
	return func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
		typ := types.Type{Family: f, Mod: -1}
		u, err := lookupUnit(a[0].Str(), typ)
		if err != nil {
			return types.Null, err
		}
		us := a[1].Int()
		if isInf(us) {
			return a[1], nil
		}
		var loc *time.Location
		if f == types.TimestampTZ {
			loc = ctx.location()
			if zoneArg {
				if loc, err = lookupZone(a[2].Str()); err != nil {
					return types.Null, err
				}
			}
		}
		y, mo, d, h, mi, s, usec, ok := truncWall(u, wall(us, loc))
		if !ok {
			return types.Null, errUnitNotSupported(string(u), typ)
		}
		return checkTimestamp(f, civil(y, mo, d, h, mi, s, usec, loc))
	}
}

func truncInterval(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	u, err := lookupUnit(a[0].Str(), ivT)
	if err != nil {
		return types.Null, err
	}
	iv := a[1].Interval()
	r := types.IntervalValue{}
	switch u {
	case "millennium":
		r.Months = iv.Months / 12000 * 12000
	case "century":
		r.Months = iv.Months / 1200 * 1200
	case "decade":
		r.Months = iv.Months / 120 * 120
	case "year":
		r.Months = iv.Months / 12 * 12
	case "quarter":
		r.Months = iv.Months / 3 * 3
	case "month":
		r.Months = iv.Months
	case "day":
		r.Months, r.Days = iv.Months, iv.Days
	case "hour", "minute", "second", "milliseconds", "microseconds":
		r.Months, r.Days = iv.Months, iv.Days
		unit := map[dateUnit]int64{"hour": usPerHour, "minute": usPerMin, "second": usPerSec, "milliseconds": 1000, "microseconds": 1}[u]
		r.Micros = iv.Micros / unit * unit
	default:
		return types.Null, errUnitNotSupported(string(u), ivT)
	}
	return types.NewInterval(r), nil
}

func init() {
	for _, t := range []types.Type{dateT, timeT, tsT, tstzT, ivT} {
		addFunc(extractFunc(t, false))
		if t.Family != types.Date {
			addFunc(extractFunc(t, true))
		}
	}
	// date_part(text, date) is date_part(text, date::timestamp), as in
	// PostgreSQL, so time fields of a date are 0.
	dp := extractFunc(tsT, true)
	addFunc(&Func{Name: "date_part", Params: ts(textT, dateT), Ret: f8, Strict: true,
		Impl: func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
			return dp.Impl(ctx, []types.Datum{a[0], types.NewTimestamp(dateToTS(a[1].Int()))})
		}})
	addFunc(
		strict("date_trunc", ts(textT, tsT), tsT, dateTrunc(types.Timestamp, false)),
		&Func{Name: "date_trunc", Params: ts(textT, tstzT), Ret: tstzT, Strict: true, Volatility: Stable, Impl: dateTrunc(types.TimestampTZ, false)},
		strict("date_trunc", ts(textT, tstzT, textT), tstzT, dateTrunc(types.TimestampTZ, true)),
		strict("date_trunc", ts(textT, ivT), ivT, truncInterval),
	)
}
