package scalar

import (
	"math"
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

func TestResolveInRange(t *testing.T) {
	for _, tc := range []struct {
		col, off, want types.Type
		code           pgerr.Code
	}{
		{col: types.TypeInt4, off: types.TypeInt4, want: types.TypeInt4},
		{col: types.TypeInt4, off: types.TypeInt2, want: types.TypeInt2},
		{col: types.TypeInt4, off: types.TypeUnknown, want: types.TypeInt4},
		{col: types.TypeInt8, off: types.TypeInt4, want: types.TypeInt8},
		{col: types.TypeInt2, off: types.TypeInt8, want: types.TypeInt8},
		{col: types.TypeFloat4, off: types.TypeInt4, want: types.TypeFloat8},
		{col: types.TypeNumeric, off: types.TypeInt4, want: types.TypeNumeric},
		{col: types.TypeDate, off: types.TypeUnknown, want: types.TypeInterval},
		{col: types.TypeInt4, off: types.TypeNumeric, code: pgerr.FeatureNotSupported},
		{col: types.TypeDate, off: types.TypeInt4, code: pgerr.FeatureNotSupported},
		{col: types.TypeText, off: types.TypeInt4, code: pgerr.FeatureNotSupported},
	} {
		got, err := ResolveInRange(tc.col, tc.off)
		if tc.code != "" {
			if pe, ok := err.(*pgerr.Error); !ok || pe.Code != tc.code {
				t.Errorf("%s, %s: got %v, want %s", tc.col, tc.off, err, tc.code)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s, %s: got %s, %v, want %s", tc.col, tc.off, got, err, tc.want)
		}
	}
}

func TestInRange(t *testing.T) {
	num := func(s string) types.Datum {
		d, _, err := apd.NewFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		return types.NewNumeric(d)
	}
	iv := func(months, days int32, micros int64) types.Datum {
		return types.NewInterval(types.IntervalValue{Months: months, Days: days, Micros: micros})
	}
	const maxInt8 = 1<<63 - 1
	for _, tc := range []struct {
		name      string
		col       types.Family
		val, base types.Datum
		off       types.Datum
		sub, less bool
		want      bool
		err       bool
	}{
		{"int within", types.Int4, types.NewInt4(4), types.NewInt4(5), types.NewInt4(1), true, false, true, false},
		{"int outside", types.Int4, types.NewInt4(3), types.NewInt4(5), types.NewInt4(1), true, false, false, false},
		{"int8 overflow up", types.Int8, types.NewInt8(maxInt8), types.NewInt8(maxInt8), types.NewInt8(1), false, true, true, false},
		{"int8 overflow down", types.Int8, types.NewInt8(-maxInt8), types.NewInt8(-maxInt8), types.NewInt8(10), true, false, true, false},
		{"int negative offset", types.Int4, types.NewInt4(1), types.NewInt4(1), types.NewInt4(-1), true, false, false, true},
		{"float nan val", types.Float8, types.NewFloat8(math.NaN()), types.NewFloat8(1), types.NewFloat8(1), false, true, false, false},
		{"float inf offset", types.Float8, types.NewFloat8(-math.Inf(1)), types.NewFloat8(math.Inf(1)), types.NewFloat8(math.Inf(1)), true, false, true, false},
		{"float nan offset", types.Float8, types.NewFloat8(1), types.NewFloat8(1), types.NewFloat8(math.NaN()), true, false, false, true},
		{"numeric sum", types.Numeric, num("2.5"), num("3"), num("0.5"), true, false, true, false},
		{"numeric nan base", types.Numeric, num("2.5"), num("NaN"), num("0.5"), true, true, true, false},
		{"numeric inf offset", types.Numeric, num("-Infinity"), num("1"), num("Infinity"), true, true, true, false},
		{"numeric -0 offset", types.Numeric, num("1"), num("1"), num("-0"), true, false, true, false},
		{"date month", types.Date, types.NewDate(31), types.NewDate(59), iv(1, 0, 0), true, false, true, false},
		{"timestamp hours", types.Timestamp, types.NewTimestamp(3600e6), types.NewTimestamp(7200e6), iv(0, 0, 1800e6), true, false, false, false},
		{"time no wrap", types.Time, types.NewTime(1800e6), types.NewTime(85000e6), iv(0, 0, 3600e6), false, true, true, false},
		{"interval negative offset", types.Interval, iv(0, 1, 0), iv(0, 1, 0), iv(0, -1, 0), true, false, false, true},
	} {
		got, err := InRange(nil, tc.col, tc.off, tc.sub, tc.less)(tc.val, tc.base)
		if (err != nil) != tc.err || err == nil && got != tc.want {
			t.Errorf("%s: got %v, %v; want %v (error %v)", tc.name, got, err, tc.want, tc.err)
		}
	}
}
