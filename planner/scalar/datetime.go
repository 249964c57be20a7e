package scalar

import (
	"time"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// Date and time values are integers (see types.Datum): dates count days
// and timestamps microseconds from 1970-01-01, timestamptz in UTC. Calendar
// work goes through Go's time package in the proleptic Gregorian calendar
// with astronomical years (year 0 is 1 BC), as PostgreSQL's does.
// timestamptz arithmetic in days and months happens in the session time
// zone, resolving local times that fall into a DST gap or overlap the way
// PostgreSQL's DetermineTimeZoneOffset does (see localToUTC).

const (
	usPerSec  = int64(1_000_000)
	usPerMin  = 60 * usPerSec
	usPerHour = 60 * usPerMin
	usPerDay  = 24 * usPerHour

	// Valid ranges: timestamps from 4714-11-24 BC up to the infinity
	// marker (PostgreSQL's end, 294277 AD, lies beyond int64 microseconds
	// from 1970), dates to before 5874898 AD.
	minTimestamp = int64(-210866803200000000)
	endTimestamp = int64(types.PosInf)
	minDate      = int64(-2440588)
	endDate      = int64(2145042906)
)

var (
	tsT   = types.TypeTimestamp
	tstzT = types.TypeTimestampTZ
	dateT = types.TypeDate
	timeT = types.TypeTime
	ivT   = types.TypeInterval
)

func errTimestampRange() error {
	return pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")
}

func errDateRange() error { return pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range") }

func errIntervalRange() error {
	return pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
}

func isInf(v int64) bool { return v == types.PosInf || v == types.NegInf }

func checkTimestamp(f types.Family, us int64) (types.Datum, error) {
	if !isInf(us) && (us < minTimestamp || us >= endTimestamp) {
		return types.Null, errTimestampRange()
	}
	return types.NewInt(f, us), nil
}

func checkDate(days int64) (types.Datum, error) {
	if !isInf(days) && (days < minDate || days >= endDate) {
		return types.Null, errDateRange()
	}
	return types.NewDate(days), nil
}

// wall returns the local wall-clock time of a timestamp: in loc for
// timestamptz, as UTC for a plain timestamp (loc nil).
func wall(us int64, loc *time.Location) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	return time.UnixMicro(us).In(loc)
}

// civil builds the microsecond value of a wall-clock time: as is for a
// plain timestamp (loc nil), else through localToUTC.
func civil(y int, mo time.Month, d, h, mi, s, us int, loc *time.Location) int64 {
	t := time.Date(y, mo, d, h, mi, s, us*1000, time.UTC).UnixMicro()
	if loc == nil {
		return t
	}
	return localToUTC(t, loc)
}

// localToUTC converts a local wall time (microseconds, as if UTC) in loc
// to an instant, as DetermineTimeZoneOffset does: a time in a
// spring-forward gap takes the offset from before the transition, an
// ambiguous time in a fall-back overlap the offset from after it.
func localToUTC(local int64, loc *time.Location) int64 {
	secs := floorDiv64(local, usPerSec)
	offAt := func(unix int64) int64 {
		_, off := time.Unix(unix, 0).In(loc).Zone()
		return int64(off)
	}
	before, after := offAt(secs-86400), offAt(secs+86400)
	if before == after {
		return local - before*usPerSec
	}
	c1, c2 := secs-before, secs-after
	ok1, ok2 := offAt(c1) == before, offAt(c2) == after
	switch {
	case ok1 && ok2:
		return local - after*usPerSec
	case ok1:
		return local - before*usPerSec
	case ok2:
		return local - after*usPerSec
	}
	return local - before*usPerSec
}

func floorDiv64(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func floorMod64(a, b int64) int64 { return a - floorDiv64(a, b)*b }

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// addInterval is timestamp(tz) + interval: months first (clamping the day
// to the month's length), then days, both on the wall clock in loc (nil
// for a plain timestamp), then the time part as elapsed microseconds.
func addInterval(us int64, iv types.IntervalValue, loc *time.Location) (int64, error) {
	if isInf(us) {
		return us, nil
	}
	if iv.Months != 0 {
		t := wall(us, loc)
		y, m, d := t.Date()
		total := int64(y)*12 + int64(m-1) + int64(iv.Months)
		y, m = int(floorDiv64(total, 12)), time.Month(floorMod64(total, 12)+1)
		d = min(d, daysIn(y, m))
		if y < -4800 || y > 300000 {
			return 0, errTimestampRange()
		}
		us = civil(y, m, d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1000, loc)
	}
	if iv.Days != 0 {
		t := wall(us, loc)
		y, m, d := t.Date()
		us = civil(y, m, d+int(iv.Days), t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1000, loc)
	}
	r := us + iv.Micros
	if (iv.Micros > 0 && r < us) || (iv.Micros < 0 && r > us) || r < minTimestamp || r >= endTimestamp {
		return 0, errTimestampRange()
	}
	return r, nil
}

func negInterval(iv types.IntervalValue) (types.IntervalValue, error) {
	if iv.Months == -1<<31 || iv.Days == -1<<31 || iv.Micros == -1<<63 {
		return iv, errIntervalRange()
	}
	return types.IntervalValue{Months: -iv.Months, Days: -iv.Days, Micros: -iv.Micros}, nil
}

// tsLoc returns the location for arithmetic on family f: the session zone
// for timestamptz, nil (wall clock = UTC) for timestamp.
func tsLoc(ctx *EvalContext, f types.Family) *time.Location {
	if f == types.TimestampTZ {
		return ctx.location()
	}
	return nil
}

func tsPlusInterval(f types.Family, sub bool) Impl {
	return func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
		ts, iv := a[0], a[1]
		if ts.Kind() == types.Interval {
			ts, iv = iv, ts
		}
		v := iv.Interval()
		if sub {
			var err error
			if v, err = negInterval(v); err != nil {
				return types.Null, err
			}
		}
		r, err := addInterval(ts.Int(), v, tsLoc(ctx, f))
		if err != nil {
			return types.Null, err
		}
		return types.NewInt(f, r), nil
	}
}

// tsMinus is timestamp - timestamp: the elapsed time, with whole days
// split out by justify_hours.
func tsMinus(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	x, y := a[0].Int(), a[1].Int()
	if isInf(x) || isInf(y) {
		return types.Null, pgerr.New(pgerr.DatetimeFieldOverflow, "cannot subtract infinite timestamps")
	}
	d := x - y
	if (y < 0 && d < x) || (y > 0 && d > x) {
		return types.Null, errIntervalRange()
	}
	return types.NewInterval(justifyHours(types.IntervalValue{Micros: d})), nil
}

func dateArith(sign int64) Impl {
	return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		d, n := a[0], a[1]
		if d.Kind() != types.Date {
			d, n = n, d
		}
		if isInf(d.Int()) {
			return d, nil
		}
		return checkDate(d.Int() + sign*n.Int())
	}
}

func dateMinusDate(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	if isInf(a[0].Int()) || isInf(a[1].Int()) {
		return types.Null, pgerr.New(pgerr.DatetimeFieldOverflow, "cannot subtract infinite dates")
	}
	return types.NewInt4(int32(a[0].Int() - a[1].Int())), nil
}

// dateToTS converts a date to the timestamp of its midnight.
func dateToTS(days int64) int64 {
	if isInf(days) {
		return days
	}
	return days * usPerDay
}

func datePlusInterval(sub bool) Impl {
	inner := tsPlusInterval(types.Timestamp, sub)
	return func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
		d, iv := a[0], a[1]
		if d.Kind() == types.Interval {
			d, iv = iv, d
		}
		return inner(ctx, []types.Datum{types.NewTimestamp(dateToTS(d.Int())), iv})
	}
}

func datePlusTime(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	d, t := a[0], a[1]
	if d.Kind() == types.Time {
		d, t = t, d
	}
	if isInf(d.Int()) {
		return types.NewTimestamp(d.Int()), nil
	}
	return checkTimestamp(types.Timestamp, d.Int()*usPerDay+t.Int())
}

func timePlusInterval(sign int64) Impl {
	return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		t, iv := a[0], a[1]
		if t.Kind() == types.Interval {
			t, iv = iv, t
		}
		return types.NewTime(floorMod64(t.Int()+sign*(iv.Interval().Micros%usPerDay), usPerDay)), nil
	}
}

func timeMinusTime(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	return types.NewInterval(types.IntervalValue{Micros: a[0].Int() - a[1].Int()}), nil
}

// The clock functions read the statement's clock from the context:
// transaction start for now() and current_*, the statement's start for
// statement_timestamp(), the real clock for clock_timestamp().
func txnMicros(ctx *EvalContext) int64 {
	if ctx == nil || ctx.TxnTime.IsZero() {
		return time.Now().UnixMicro()
	}
	return ctx.TxnTime.UnixMicro()
}

func clockFunc(name string, ret types.Type, vol Volatility, f func(ctx *EvalContext) types.Datum) *Func {
	return &Func{Name: name, Ret: ret, Volatility: vol, Impl: func(ctx *EvalContext, _ []types.Datum) (types.Datum, error) {
		return f(ctx), nil
	}}
}

func localWall(ctx *EvalContext, us int64) int64 {
	t := wall(us, ctx.location())
	_, off := t.Zone()
	return us + int64(off)*usPerSec
}

func init() {
	now := func(ctx *EvalContext) types.Datum { return types.NewTimestampTZ(txnMicros(ctx)) }
	addFunc(
		clockFunc("now", tstzT, Stable, now),
		clockFunc("current_timestamp", tstzT, Stable, now),
		clockFunc("transaction_timestamp", tstzT, Stable, now),
		clockFunc("statement_timestamp", tstzT, Stable, func(ctx *EvalContext) types.Datum {
			if ctx != nil && !ctx.StmtTime.IsZero() {
				return types.NewTimestampTZ(ctx.StmtTime.UnixMicro())
			}
			return now(ctx)
		}),
		clockFunc("clock_timestamp", tstzT, Volatile, func(*EvalContext) types.Datum {
			return types.NewTimestampTZ(time.Now().UnixMicro())
		}),
		clockFunc("localtimestamp", tsT, Stable, func(ctx *EvalContext) types.Datum {
			return types.NewTimestamp(localWall(ctx, txnMicros(ctx)))
		}),
		clockFunc("current_date", dateT, Stable, func(ctx *EvalContext) types.Datum {
			return types.NewDate(floorDiv64(localWall(ctx, txnMicros(ctx)), usPerDay))
		}),
		clockFunc("current_time", timeT, Stable, func(ctx *EvalContext) types.Datum {
			return types.NewTime(floorMod64(localWall(ctx, txnMicros(ctx)), usPerDay))
		}),
		clockFunc("localtime", timeT, Stable, func(ctx *EvalContext) types.Datum {
			return types.NewTime(floorMod64(localWall(ctx, txnMicros(ctx)), usPerDay))
		}),
	)
	addOp(
		strict("+", ts(dateT, int4T), dateT, dateArith(1)),
		strict("+", ts(int4T, dateT), dateT, dateArith(1)),
		strict("-", ts(dateT, int4T), dateT, dateArith(-1)),
		strict("-", ts(dateT, dateT), int4T, dateMinusDate),
		strict("+", ts(dateT, ivT), tsT, datePlusInterval(false)),
		strict("+", ts(ivT, dateT), tsT, datePlusInterval(false)),
		strict("-", ts(dateT, ivT), tsT, datePlusInterval(true)),
		strict("+", ts(dateT, timeT), tsT, datePlusTime),
		strict("+", ts(timeT, dateT), tsT, datePlusTime),
		strict("+", ts(tsT, ivT), tsT, tsPlusInterval(types.Timestamp, false)),
		strict("+", ts(ivT, tsT), tsT, tsPlusInterval(types.Timestamp, false)),
		strict("-", ts(tsT, ivT), tsT, tsPlusInterval(types.Timestamp, true)),
		strict("-", ts(tsT, tsT), ivT, tsMinus),
		&Func{Name: "+", Params: ts(tstzT, ivT), Ret: tstzT, Strict: true, Volatility: Stable, Impl: tsPlusInterval(types.TimestampTZ, false)},
		&Func{Name: "+", Params: ts(ivT, tstzT), Ret: tstzT, Strict: true, Volatility: Stable, Impl: tsPlusInterval(types.TimestampTZ, false)},
		&Func{Name: "-", Params: ts(tstzT, ivT), Ret: tstzT, Strict: true, Volatility: Stable, Impl: tsPlusInterval(types.TimestampTZ, true)},
		strict("-", ts(tstzT, tstzT), ivT, tsMinus),
		strict("+", ts(timeT, ivT), timeT, timePlusInterval(1)),
		strict("+", ts(ivT, timeT), timeT, timePlusInterval(1)),
		strict("-", ts(timeT, ivT), timeT, timePlusInterval(-1)),
		strict("-", ts(timeT, timeT), ivT, timeMinusTime),
	)
	addFunc(
		strict("isfinite", ts(dateT), boolT, isFinite),
		strict("isfinite", ts(tsT), boolT, isFinite),
		strict("isfinite", ts(tstzT), boolT, isFinite),
		strict("isfinite", ts(ivT), boolT, func(*EvalContext, []types.Datum) (types.Datum, error) { return types.DTrue, nil }),
	)
}

func isFinite(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	return types.NewBool(!isInf(a[0].Int())), nil
}
