package scalar

import (
	"math"

	"github.com/streamdb/streamdb/types"
)

// Interval arithmetic keeps PostgreSQL's three fields (months, days,
// microseconds) apart: nothing converts between them except the justify
// functions and the fractional cascade of * and /.

func addIntervals(x, y types.IntervalValue, sign int64) (types.IntervalValue, error) {
	m := int64(x.Months) + sign*int64(y.Months)
	d := int64(x.Days) + sign*int64(y.Days)
	us := x.Micros + sign*y.Micros
	if m != int64(int32(m)) || d != int64(int32(d)) ||
		(sign*y.Micros > 0 && us < x.Micros) || (sign*y.Micros < 0 && us > x.Micros) {
		return x, errIntervalRange()
	}
	return types.IntervalValue{Months: int32(m), Days: int32(d), Micros: us}, nil
}

func intervalArith(sign int64) Impl {
	return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		r, err := addIntervals(a[0].Interval(), a[1].Interval(), sign)
		if err != nil {
			return types.Null, err
		}
		return types.NewInterval(r), nil
	}
}

// tsRound rounds to microsecond precision, as TSROUND does.
func tsRound(x float64) float64 { return math.RoundToEven(x*1e6) / 1e6 }

const (
	daysPerMonth = 30
	secsPerDay   = 86400
)

// scaleInterval is interval_mul (and interval_div with factor 1/divisor):
// whole months and days scale directly, their fractions cascade down to
// days and seconds.
func scaleInterval(iv types.IntervalValue, factor float64, divide bool) (types.IntervalValue, error) {
	apply := func(v float64) float64 {
		if divide {
			return v / factor
		}
		return v * factor
	}
	mf, df := apply(float64(iv.Months)), apply(float64(iv.Days))
	if math.IsNaN(mf) || mf > math.MaxInt32 || mf < math.MinInt32 || math.IsNaN(df) || df > math.MaxInt32 || df < math.MinInt32 {
		return iv, errIntervalRange()
	}
	r := types.IntervalValue{Months: int32(mf), Days: int32(df)}
	monthRemDays := tsRound((mf - float64(r.Months)) * daysPerMonth)
	secRem := tsRound((df - float64(r.Days) + monthRemDays - math.Trunc(monthRemDays)) * secsPerDay)
	if math.Abs(secRem) >= secsPerDay {
		r.Days += int32(secRem / secsPerDay)
		secRem -= math.Trunc(secRem/secsPerDay) * secsPerDay
	}
	r.Days += int32(monthRemDays)
	t := math.RoundToEven(apply(float64(iv.Micros)) + secRem*1e6)
	if math.IsNaN(t) || t >= 9.223372036854775807e18 || t < -9.223372036854775808e18 {
		return iv, errIntervalRange()
	}
	r.Micros = int64(t)
	return r, nil
}

func intervalMul(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	iv, f := a[0], a[1]
	if iv.Kind() != types.Interval {
		iv, f = f, iv
	}
	r, err := scaleInterval(iv.Interval(), f.Float(), false)
	if err != nil {
		return types.Null, err
	}
	return types.NewInterval(r), nil
}

func intervalDiv(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	f := a[1].Float()
	if f == 0 {
		return types.Null, errDivByZero()
	}
	r, err := scaleInterval(a[0].Interval(), f, true)
	if err != nil {
		return types.Null, err
	}
	return types.NewInterval(r), nil
}

// justifyHours moves whole 24-hour periods of the time part into days,
// giving days and time the same sign.
func justifyHours(iv types.IntervalValue) types.IntervalValue {
	days := iv.Micros / usPerDay
	iv.Micros -= days * usPerDay
	iv.Days += int32(days)
	if iv.Days > 0 && iv.Micros < 0 {
		iv.Micros += usPerDay
		iv.Days--
	} else if iv.Days < 0 && iv.Micros > 0 {
		iv.Micros -= usPerDay
		iv.Days++
	}
	return iv
}

// justifyDays moves whole 30-day periods into months.
func justifyDays(iv types.IntervalValue) types.IntervalValue {
	months := iv.Days / daysPerMonth
	iv.Days -= months * daysPerMonth
	iv.Months += months
	if iv.Months > 0 && iv.Days < 0 {
		iv.Days += daysPerMonth
		iv.Months--
	} else if iv.Months < 0 && iv.Days > 0 {
		iv.Days -= daysPerMonth
		iv.Months++
	}
	return iv
}

// justifyInterval applies both, with the signs of all parts made
// consistent.
func justifyInterval(iv types.IntervalValue) types.IntervalValue {
	days := iv.Micros / usPerDay
	iv.Micros -= days * usPerDay
	iv.Days += int32(days)
	months := iv.Days / daysPerMonth
	iv.Days -= months * daysPerMonth
	iv.Months += months
	if iv.Months > 0 && (iv.Days < 0 || iv.Days == 0 && iv.Micros < 0) {
		iv.Days += daysPerMonth
		iv.Months--
	} else if iv.Months < 0 && (iv.Days > 0 || iv.Days == 0 && iv.Micros > 0) {
		iv.Days -= daysPerMonth
		iv.Months++
	}
	if iv.Days > 0 && iv.Micros < 0 {
		iv.Micros += usPerDay
		iv.Days--
	} else if iv.Days < 0 && iv.Micros > 0 {
		iv.Micros -= usPerDay
		iv.Days++
	}
	return iv
}

func justifyFunc(f func(types.IntervalValue) types.IntervalValue) Impl {
	return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		return types.NewInterval(f(a[0].Interval())), nil
	}
}

// makeInterval is make_interval(years, months, weeks, days, hours, mins,
// secs); missing trailing arguments are zero.
func makeInterval(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	get := func(i int) int64 {
		if i < len(a) {
			return a[i].Int()
		}
		return 0
	}
	months := get(0)*12 + get(1)
	days := get(2)*7 + get(3)
	secs := 0.0
	if len(a) > 6 {
		secs = a[6].Float()
	}
	us := float64(get(4))*float64(usPerHour) + float64(get(5))*float64(usPerMin) + math.RoundToEven(secs*1e6)
	if months != int64(int32(months)) || days != int64(int32(days)) || math.IsNaN(us) || math.Abs(us) >= 9.2e18 {
		return types.Null, errIntervalRange()
	}
	return types.NewInterval(types.IntervalValue{Months: int32(months), Days: int32(days), Micros: int64(us)}), nil
}

func init() {
	addOp(
		strict("+", ts(ivT, ivT), ivT, intervalArith(1)),
		strict("-", ts(ivT, ivT), ivT, intervalArith(-1)),
		strict("-", ts(ivT), ivT, func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			r, err := negInterval(a[0].Interval())
			if err != nil {
				return types.Null, err
			}
			return types.NewInterval(r), nil
		}),
		strict("+", ts(ivT), ivT, identity),
		strict("*", ts(ivT, f8), ivT, intervalMul),
		strict("*", ts(f8, ivT), ivT, intervalMul),
		strict("/", ts(ivT, f8), ivT, intervalDiv),
	)
	addFunc(
		strict("justify_hours", ts(ivT), ivT, justifyFunc(justifyHours)),
		strict("justify_days", ts(ivT), ivT, justifyFunc(justifyDays)),
		strict("justify_interval", ts(ivT), ivT, justifyFunc(justifyInterval)),
		strict("make_interval", ts(int4T, int4T, int4T, int4T, int4T, int4T, f8), ivT, makeInterval),
		strict("make_interval", ts(int4T, int4T, int4T, int4T, int4T, int4T), ivT, makeInterval),
		strict("make_interval", ts(int4T, int4T, int4T, int4T, int4T), ivT, makeInterval),
		strict("make_interval", ts(int4T, int4T, int4T, int4T), ivT, makeInterval),
		strict("make_interval", ts(int4T, int4T, int4T), ivT, makeInterval),
		strict("make_interval", ts(int4T, int4T), ivT, makeInterval),
		strict("make_interval", ts(int4T), ivT, makeInterval),
		strict("make_interval", nil, ivT, makeInterval),
	)
}
