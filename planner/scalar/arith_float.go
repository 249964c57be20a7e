package scalar

import (
	"math"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// Float operators follow float.c: a finite computation that yields an
// infinity is an overflow error, one that yields zero from non-zero
// operands an underflow error; NaN and infinite inputs propagate. float4
// arithmetic is done in float32; mixed float4/float8 operators give float8.

func errFloatOverflow() error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
}

func errFloatUnderflow() error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: underflow")
}

// floatResult builds a float Datum of family f, rounding to float32 for
// float4 and detecting overflow the rounding causes.
func floatResult(f types.Family, v float64, inputsInf bool) (types.Datum, error) {
	if f == types.Float4 {
		r := float32(v)
		if math.IsInf(float64(r), 0) && !inputsInf {
			return types.Null, errFloatOverflow()
		}
		return types.NewFloat4(r), nil
	}
	if math.IsInf(v, 0) && !inputsInf {
		return types.Null, errFloatOverflow()
	}
	return types.NewFloat8(v), nil
}

func floatArith(f types.Family, op byte) Binary {
	return func(x, y types.Datum) (types.Datum, error) {
		a, b := x.Float(), y.Float()
		inf := math.IsInf(a, 0) || math.IsInf(b, 0)
		var r float64
		switch op {
		case '+':
			r = a + b
		case '-':
			r = a - b
		case '*':
			r = a * b
			if f == types.Float4 {
				r = float64(float32(a) * float32(b))
			}
			if r == 0 && a != 0 && b != 0 {
				return types.Null, errFloatUnderflow()
			}
		case '/':
			if b == 0 && !math.IsNaN(a) {
				return types.Null, errDivByZero()
			}
			r = a / b
			if f == types.Float4 {
				r = float64(float32(a) / float32(b))
			}
			if math.IsInf(r, 0) && !math.IsInf(a, 0) {
				return types.Null, errFloatOverflow()
			}
			if r == 0 && a != 0 && !math.IsInf(b, 0) {
				return types.Null, errFloatUnderflow()
			}
			return floatResult(f, r, true)
		}
		if f == types.Float4 && op != '*' {
			r = float64(float32(r))
		}
		return floatResult(f, r, inf)
	}
}

func init() {
	fl := []types.Type{types.TypeFloat4, types.TypeFloat8}
	for _, l := range fl {
		for _, r := range fl {
			res := wider(l, r)
			for _, op := range []byte{'+', '-', '*', '/'} {
				addOp(strictBin(string(op), ts(l, r), res, floatArith(res.Family, op)))
			}
		}
	}
	for _, t := range fl {
		f := t.Family
		neg := func(_ *EvalContext, args []types.Datum) (types.Datum, error) {
			if f == types.Float4 {
				return types.NewFloat4(-float32(args[0].Float())), nil
			}
			return types.NewFloat8(-args[0].Float()), nil
		}
		abs := func(_ *EvalContext, args []types.Datum) (types.Datum, error) {
			if f == types.Float4 {
				return types.NewFloat4(float32(math.Abs(args[0].Float()))), nil
			}
			return types.NewFloat8(math.Abs(args[0].Float())), nil
		}
		addOp(strict("-", ts(t), t, neg), strict("+", ts(t), t, identity), strict("@", ts(t), t, abs))
		addFunc(strict("abs", ts(t), t, abs))
	}
	addOp(strict("^", ts(types.TypeFloat8, types.TypeFloat8), types.TypeFloat8, fn2(floatPow)))
}

// floatPow is float8 ^ float8 (dpow) with its domain errors.
func floatPow(a, b types.Datum) (types.Datum, error) {
	x, y := a.Float(), b.Float()
	if x == 0 && y < 0 {
		return types.Null, pgerr.New(pgerr.InvalidArgumentForPower, "zero raised to a negative power is undefined")
	}
	if x < 0 && y != math.Trunc(y) && !math.IsInf(y, 0) && !math.IsNaN(y) {
		return types.Null, pgerr.New(pgerr.InvalidArgumentForPower, "a negative number raised to a non-integer power yields a complex result")
	}
	if math.IsNaN(x) {
		if y == 0 {
			return types.NewFloat8(1), nil
		}
		return types.NewFloat8(math.NaN()), nil
	}
	if math.IsNaN(y) {
		if x == 1 {
			return types.NewFloat8(1), nil
		}
		return types.NewFloat8(math.NaN()), nil
	}
	r := math.Pow(x, y)
	if math.IsInf(r, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
		return types.Null, errFloatOverflow()
	}
	if r == 0 && x != 0 && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
		return types.Null, errFloatUnderflow()
	}
	return types.NewFloat8(r), nil
}
