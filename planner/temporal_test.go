package planner

import (
	"fmt"
	"math"
	"testing"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// call resolves and builds an operator or function call for a test.
func call(t *testing.T, name string, args ...scalar.Expr) scalar.Expr {
	t.Helper()
	ts := make([]types.Type, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	var fn *scalar.Func
	var err error
	if len(args) == 2 && !scalar.Known(name) {
		fn, _, err = scalar.ResolveBinaryOp(name, ts[0], ts[1])
	} else {
		fn, _, err = scalar.ResolveFunc(name, ts)
	}
	if err != nil {
		t.Fatal(err)
	}
	return &scalar.Call{Fn: fn, Args: args}
}

// TestCompileValidity checks the times at which temporal conditions hold
// for a row whose ts (column 0) is 100µs and whose flag (column 1) is
// true.
func TestCompileValidity(t *testing.T) {
	ts := &scalar.ColRef{Idx: 0, Typ: types.TypeTimestampTZ}
	flag := &scalar.ColRef{Idx: 1, Typ: types.TypeBool}
	now := call(t, scalar.MzNowName)
	iv := func(us int64) scalar.Expr {
		return scalar.NewConst(types.NewInterval(types.IntervalValue{Micros: us}), types.TypeInterval)
	}
	plus := func(us int64) scalar.Expr { return call(t, "+", ts, iv(us)) }
	const lo, hi = math.MinInt64, math.MaxInt64
	row := types.Row{types.NewTimestampTZ(100), types.DTrue}
	for _, tc := range []struct {
		name string
		cond scalar.Expr
		want string
	}{
		{"until", call(t, "<=", now, plus(50)), fmt.Sprintf("[{%d 151}]", lo)},
		{"strictly before", call(t, "<", now, plus(50)), fmt.Sprintf("[{%d 150}]", lo)},
		{"from", call(t, ">=", now, ts), fmt.Sprintf("[{100 %d}]", hi)},
		{"after, written the other way", call(t, "<", ts, now), fmt.Sprintf("[{101 %d}]", hi)},
		{"at", call(t, "=", now, ts), "[{100 101}]"},
		{"between", &scalar.And{Args: []scalar.Expr{call(t, ">=", now, ts), call(t, "<", now, plus(10))}}, "[{100 110}]"},
		{"either of two spans", &scalar.Or{Args: []scalar.Expr{
			&scalar.And{Args: []scalar.Expr{call(t, ">=", now, ts), call(t, "<", now, plus(10))}},
			&scalar.And{Args: []scalar.Expr{call(t, ">=", now, plus(20)), call(t, "<", now, plus(30))}}}},
			"[{100 110} {120 130}]"},
		{"overlapping spans unite", &scalar.Or{Args: []scalar.Expr{call(t, "<", now, plus(20)), call(t, ">=", now, plus(10))}}, fmt.Sprintf("[{%d %d}]", lo, hi)},
		{"a plain condition that holds", &scalar.And{Args: []scalar.Expr{flag, call(t, "<", now, plus(20))}}, fmt.Sprintf("[{%d 120}]", lo)},
		{"a plain condition that fails", &scalar.And{Args: []scalar.Expr{&scalar.Not{Arg: flag}, call(t, "<", now, plus(20))}}, "[]"},
		{"or a plain condition", &scalar.Or{Args: []scalar.Expr{flag, call(t, "<", now, plus(20))}}, fmt.Sprintf("[{%d %d}]", lo, hi)},
		{"an empty span", &scalar.And{Args: []scalar.Expr{call(t, ">=", now, plus(20)), call(t, "<", now, plus(10))}}, "[]"},
	} {
		fn, err := compileValidity(tc.cond)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		spans, err := fn(nil, row, nil)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if spans == nil {
			spans = []dataflow.TimeSpan{}
		}
		if got := fmt.Sprint(spans); got != tc.want {
			t.Errorf("%s (%s): %s, want %s", tc.name, tc.cond, got, tc.want)
		}
	}
	// mz_now() under NOT, or compared with another mz_now(), is not a
	// temporal filter.
	for _, bad := range []scalar.Expr{
		&scalar.Not{Arg: call(t, "<", now, ts)},
		call(t, "<", now, now),
	} {
		if _, err := compileValidity(bad); err == nil {
			t.Errorf("%s compiled", bad)
		}
	}
}
