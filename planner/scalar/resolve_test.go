package scalar

import (
	"testing"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

func TestResolveErrors(t *testing.T) {
	for _, tc := range []struct {
		src  string
		code pgerr.Code
		msg  string
		hint string
	}{
		{"foo(1)", pgerr.UndefinedFunction, "function foo(integer) does not exist",
			"No function matches the given name and argument types. You might need to add explicit type casts."},
		{"lower(1)", pgerr.UndefinedFunction, "function lower(integer) does not exist", ""},
		{"1 + 'a'::text", pgerr.UndefinedFunction, "operator does not exist: integer + text",
			"No operator matches the given name and argument types. You might need to add explicit type casts."},
		{"'a' + 'b'", pgerr.AmbiguousFunction, "operator is not unique: unknown + unknown",
			"Could not choose a best candidate operator. You might need to add explicit type casts."},
		{"- 'a'::text", pgerr.UndefinedFunction, "operator does not exist: - text", ""},
	} {
		_, err := parseExpr(tc.src)
		e := pgerr.As(err)
		if e == nil || e.Code != tc.code || e.Message != tc.msg || tc.hint != "" && e.Hint != tc.hint {
			t.Errorf("%s: got %#v", tc.src, e)
		}
	}
}

func TestResolveTargets(t *testing.T) {
	num102 := types.Type{Family: types.Numeric, Mod: types.NumericMod(10, 2)}
	for _, tc := range []struct {
		name    string
		op      bool
		args    []types.Type
		targets []types.Type
		ret     types.Type
	}{
		{"+", true, ts(int4T, int8T), ts(int4T, int8T), int8T},
		{"+", true, ts(int4T, numT), ts(numT, numT), numT},
		{"+", true, ts(num102, num102), ts(num102, num102), numT},
		{"+", true, ts(int4T, types.TypeUnknown), ts(int4T, int4T), int4T},
		{"+", true, ts(types.TypeFloat4, int8T), ts(types.TypeFloat4, f8), f8},
		{"||", true, ts(textT, int4T), ts(textT, int4T), textT},
		{"=", true, ts(tsT, tstzT), ts(tstzT, tstzT), boolT},
		{"round", false, ts(int4T), ts(f8), f8},
		{"round", false, ts(int4T, int4T), ts(numT, int4T), numT},
		{"round", false, ts(f8), ts(f8), f8},
		{"length", false, ts(types.TypeUnknown), ts(textT), int4T},
		{"substr", false, ts(types.TypeVarchar, int8T), nil, types.Type{}},
		{"array_append", false, ts(types.ArrayOf(int4T), numT), ts(types.ArrayOf(numT), numT), types.ArrayOf(numT)},
		{"concat", false, ts(int4T, dateT), ts(int4T, dateT), textT},
	} {
		var fn *Func
		var targets []types.Type
		var err error
		if tc.op {
			fn, targets, err = ResolveBinaryOp(tc.name, tc.args[0], tc.args[1])
		} else {
			fn, targets, err = ResolveFunc(tc.name, tc.args)
		}
		if tc.targets == nil {
			if err == nil {
				t.Errorf("%s%v resolved to %s", tc.name, tc.args, fn.Signature())
			}
			continue
		}
		if err != nil {
			t.Errorf("%s%v: %v", tc.name, tc.args, err)
			continue
		}
		for i := range targets {
			if targets[i] != tc.targets[i] {
				t.Errorf("%s%v: targets %v, want %v", tc.name, tc.args, targets, tc.targets)
				break
			}
		}
		if fn.Ret != tc.ret {
			t.Errorf("%s%v: returns %s, want %s", tc.name, tc.args, fn.Ret, tc.ret)
		}
	}
}

func TestCommonType(t *testing.T) {
	for _, tc := range []struct {
		in   []types.Type
		want types.Type
		err  bool
	}{
		{ts(int4T, numT), numT, false},
		{ts(types.TypeUnknown, types.TypeUnknown), textT, false},
		{ts(int4T, types.TypeUnknown, int8T), int8T, false},
		{ts(dateT, tstzT), tstzT, false},
		{ts(int4T, textT), types.Type{}, true},
		{ts(types.TypeVarchar, textT), types.TypeVarchar, false},
	} {
		got, err := CommonType(tc.in, "CASE")
		if (err != nil) != tc.err || !tc.err && got != tc.want {
			t.Errorf("CommonType(%v) = %v, %v", tc.in, got, err)
		}
	}
	_, err := CommonType(ts(int4T, boolT), "CASE")
	if e := pgerr.As(err); e == nil || e.Message != "CASE types integer and boolean cannot be matched" {
		t.Errorf("got %v", err)
	}
}

func TestResolveAggregates(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []types.Type
		ret  types.Type
	}{
		{"count", nil, int8T},
		{"count", ts(textT), int8T},
		{"sum", ts(int4T), int8T},
		{"sum", ts(int8T), numT},
		{"avg", ts(int2T()), numT},
		{"avg", ts(f8), f8},
		{"min", ts(dateT), dateT},
		{"array_agg", ts(textT), types.ArrayOf(textT)},
		{"string_agg", ts(textT, types.TypeUnknown), textT},
		{"stddev", ts(types.TypeFloat4), f8},
	} {
		f, _, err := ResolveAggregate(tc.name, tc.args, false)
		if err != nil || f.Ret != tc.ret {
			t.Errorf("%s%v: %v, %v", tc.name, tc.args, f, err)
		}
	}
	if _, _, err := ResolveAggregate("sum", ts(textT), false); pgerr.CodeOf(err) != pgerr.UndefinedFunction {
		t.Errorf("sum(text): %v", err)
	}
	if !IsAggregate("count") || IsAggregate("lower") {
		t.Error("IsAggregate")
	}
	w, targets, err := ResolveWindowFunc("lag", ts(int4T, int4T, types.TypeUnknown))
	if err != nil || w.Kind != WinLag || w.Ret != int4T || targets[2] != int4T {
		t.Errorf("lag: %v %v %v", w, targets, err)
	}
	if w, _, err := ResolveWindowFunc("row_number", nil); err != nil || w.Ret != int8T {
		t.Errorf("row_number: %v %v", w, err)
	}
}

func int2T() types.Type { return types.TypeInt2 }
