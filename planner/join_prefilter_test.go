package planner

import (
	"testing"

	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

func TestCannotFail(t *testing.T) {
	ts := func(i int) scalar.Expr { return &scalar.ColRef{Idx: i, Typ: types.TypeTimestamp} }
	i8 := &scalar.ColRef{Idx: 3, Typ: types.TypeInt8}
	op := func(name string, l, r scalar.Expr) scalar.Expr {
		fn, _, err := scalar.ResolveBinaryOp(name, l.Type(), r.Type())
		if err != nil {
			t.Fatal(err)
		}
		return &scalar.Call{Fn: fn, Args: []scalar.Expr{l, r}}
	}
	one := scalar.NewConst(types.NewInt8(1), types.TypeInt8)
	for _, tc := range []struct {
		name string
		e    scalar.Expr
		want bool
	}{
		{"between timestamps", scalar.NewAnd([]scalar.Expr{op(">=", ts(0), ts(1)), op("<=", ts(0), ts(2))}), true},
		{"or, not, is null", &scalar.Or{Args: []scalar.Expr{&scalar.Not{Arg: op("=", i8, one)}, &scalar.IsNull{Arg: i8}}}, true},
		{"division", op(">", op("/", i8, one), one), false},
		{"cast", op("=", &scalar.Cast{Arg: i8, To: types.TypeText}, scalar.NewConst(types.NewText("1"), types.TypeText)), false},
	} {
		if got := cannotFail(tc.e); got != tc.want {
			t.Errorf("%s: cannotFail = %v, want %v", tc.name, got, tc.want)
		}
	}
}
