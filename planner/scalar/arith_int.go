package scalar

import (
	"math"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// Integer operators. PostgreSQL defines + - * / % for every pair of int2,
// int4 and int8 with the wider type as the result, so int4 + int8 needs no
// cast; bitwise operators exist for equal types only.

var intTypes = []types.Type{types.TypeInt2, types.TypeInt4, types.TypeInt8}

func errDivByZero() error { return pgerr.New(pgerr.DivisionByZero, "division by zero") }

// intResult checks v against the range of family f.
func intResult(f types.Family, v int64) (types.Datum, error) {
	if f != types.Int8 {
		lo, hi := types.IntRange(f)
		if v < lo || v > hi {
			return types.Null, types.ErrIntRange(f)
		}
	}
	return types.NewInt(f, v), nil
}

func wider(a, b types.Type) types.Type {
	if a.Family > b.Family {
		return a
	}
	return b
}

func intAdd(f types.Family) Binary {
	return func(x, y types.Datum) (types.Datum, error) {
		a, b := x.Int(), y.Int()
		r := a + b
		if f == types.Int8 && (a >= 0) == (b >= 0) && (r >= 0) != (a >= 0) {
			return types.Null, types.ErrIntRange(f)
		}
		return intResult(f, r)
	}
}

func intSub(f types.Family) Binary {
	return func(x, y types.Datum) (types.Datum, error) {
		a, b := x.Int(), y.Int()
		r := a - b
		if f == types.Int8 && (a >= 0) != (b >= 0) && (r >= 0) != (a >= 0) {
			return types.Null, types.ErrIntRange(f)
		}
		return intResult(f, r)
	}
}

func intMul(f types.Family) Binary {
	return func(x, y types.Datum) (types.Datum, error) {
		a, b := x.Int(), y.Int()
		if f == types.Int8 {
			r, ok := mul64(a, b)
			if !ok {
				return types.Null, types.ErrIntRange(f)
			}
			return types.NewInt8(r), nil
		}
		return intResult(f, a*b)
	}
}

// mul64 multiplies with overflow detection.
func mul64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	r := a * b
	if r/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return r, true
}

func intDiv(f types.Family) Binary {
	return func(x, y types.Datum) (types.Datum, error) {
		a, b := x.Int(), y.Int()
		if b == 0 {
			return types.Null, errDivByZero()
		}
		if b == -1 {
			if lo, _ := types.IntRange(f); a == lo {
				return types.Null, types.ErrIntRange(f)
			}
			return intResult(f, -a)
		}
		return intResult(f, a/b)
	}
}

func intMod(f types.Family) Binary {
	return func(x, y types.Datum) (types.Datum, error) {
		a, b := x.Int(), y.Int()
		if b == 0 {
			return types.Null, errDivByZero()
		}
		if b == -1 {
			return types.NewInt(f, 0), nil
		}
		return types.NewInt(f, a%b), nil
	}
}

func intNeg(f types.Family) Impl {
	return func(_ *EvalContext, args []types.Datum) (types.Datum, error) {
		a := args[0].Int()
		if lo, _ := types.IntRange(f); a == lo {
			return types.Null, types.ErrIntRange(f)
		}
		return types.NewInt(f, -a), nil
	}
}

func identity(_ *EvalContext, args []types.Datum) (types.Datum, error) { return args[0], nil }

func intBitwise(f types.Family, op func(a, b int64) int64) Impl {
	return func(_ *EvalContext, args []types.Datum) (types.Datum, error) {
		return types.NewInt(f, op(args[0].Int(), args[1].Int())), nil
	}
}

// intShift shifts by an int4 amount. As in C on PostgreSQL's platforms,
// int2 and int4 shift as 32-bit ints (amount modulo 32) and int8 as 64-bit.
func intShift(f types.Family, left bool) Impl {
	return func(_ *EvalContext, args []types.Datum) (types.Datum, error) {
		a, n := args[0].Int(), args[1].Int()
		var r int64
		switch {
		case f == types.Int8 && left:
			r = a << (n & 63)
		case f == types.Int8:
			r = a >> (n & 63)
		case left:
			r = int64(int32(a) << (n & 31))
		default:
			r = int64(int32(a) >> (n & 31))
		}
		if f == types.Int2 {
			r = int64(int16(r))
		}
		return types.NewInt(f, r), nil
	}
}

func init() {
	for _, l := range intTypes {
		for _, r := range intTypes {
			res := wider(l, r).Family
			rt := types.Type{Family: res, Mod: -1}
			addOp(
				strictBin("+", ts(l, r), rt, intAdd(res)),
				strictBin("-", ts(l, r), rt, intSub(res)),
				strictBin("*", ts(l, r), rt, intMul(res)),
				strictBin("/", ts(l, r), rt, intDiv(res)),
			)
			if l == r {
				addOp(strictBin("%", ts(l, r), rt, intMod(res)))
				addFunc(strictBin("mod", ts(l, r), rt, intMod(res)))
			}
		}
	}
	for _, t := range intTypes {
		f := t.Family
		addOp(
			strict("-", ts(t), t, intNeg(f)),
			strict("+", ts(t), t, identity),
			strict("@", ts(t), t, intAbs(f)),
			strict("&", ts(t, t), t, intBitwise(f, func(a, b int64) int64 { return a & b })),
			strict("|", ts(t, t), t, intBitwise(f, func(a, b int64) int64 { return a | b })),
			strict("#", ts(t, t), t, intBitwise(f, func(a, b int64) int64 { return a ^ b })),
			strict("~", ts(t), t, func(_ *EvalContext, args []types.Datum) (types.Datum, error) {
				return types.NewInt(f, ^args[0].Int()), nil
			}),
			strict("<<", ts(t, types.TypeInt4), t, intShift(f, true)),
			strict(">>", ts(t, types.TypeInt4), t, intShift(f, false)),
		)
		addFunc(strict("abs", ts(t), t, intAbs(f)))
	}
}

func intAbs(f types.Family) Impl {
	neg := intNeg(f)
	return func(ctx *EvalContext, args []types.Datum) (types.Datum, error) {
		if args[0].Int() < 0 {
			return neg(ctx, args)
		}
		return args[0], nil
	}
}
