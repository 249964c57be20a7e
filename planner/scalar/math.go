package scalar

import (
	"math"
	"math/rand/v2"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// Mathematical functions for float8 and numeric (integers reach them by
// implicit casts, to numeric when both exist, as in PostgreSQL: round(2.5)
// is numeric). float8 versions follow float.c's domain and range errors;
// numeric versions pick their result scale the way numeric.c does.

var f8 = types.TypeFloat8

func f8fn(f func(x float64) (float64, error)) Impl {
	return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		r, err := f(a[0].Float())
		if err != nil {
			return types.Null, err
		}
		return types.NewFloat8(r), nil
	}
}

func pure(f func(float64) float64) func(float64) (float64, error) {
	return func(x float64) (float64, error) { return f(x), nil }
}

func errLogZero() error {
	return pgerr.New(pgerr.InvalidArgumentForLog, "cannot take logarithm of zero")
}

func errLogNeg() error {
	return pgerr.New(pgerr.InvalidArgumentForLog, "cannot take logarithm of a negative number")
}

func errSqrtNeg() error {
	return pgerr.New(pgerr.InvalidArgumentForPower, "cannot take square root of a negative number")
}

func errInputRange() error { return pgerr.New(pgerr.NumericValueOutOfRange, "input is out of range") }

func floatLog(base func(float64) float64) func(float64) (float64, error) {
	return func(x float64) (float64, error) {
		switch {
		case x == 0:
			return 0, errLogZero()
		case x < 0:
			return 0, errLogNeg()
		}
		return base(x), nil
	}
}

func floatExp(x float64) (float64, error) {
	r := math.Exp(x)
	if math.IsInf(r, 0) && !math.IsInf(x, 0) {
		return 0, errFloatOverflow()
	}
	if r == 0 && !math.IsInf(x, 0) {
		return 0, errFloatUnderflow()
	}
	return r, nil
}

// trig wraps a trigonometric function with float.c's "input is out of
// range" for arguments outside its domain (infinities, |x| > 1 for the
// inverse functions).
func trig(f func(float64) float64, domain float64) func(float64) (float64, error) {
	return func(x float64) (float64, error) {
		if math.IsNaN(x) {
			return math.NaN(), nil
		}
		if math.IsInf(x, 0) && domain == 0 || domain > 0 && math.Abs(x) > domain {
			return 0, errInputRange()
		}
		return f(x), nil
	}
}

func numFn(f func(r, x *apd.Decimal) error) Impl {
	return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		r := new(apd.Decimal)
		if err := f(r, a[0].Decimal()); err != nil {
			return types.Null, err
		}
		return numResult(r)
	}
}

func numRoundTo(trunc bool) Impl {
	return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		var scratch apd.Decimal
		x := a[0].DecimalTo(&scratch)
		scale := 0
		if len(a) > 1 {
			scale = int(max(min(a[1].Int(), 2000), -2000))
		}
		r := new(apd.Decimal).Set(x)
		if x.Form != apd.Finite {
			return numResult(r)
		}
		ctx := *exactCtx
		if trunc {
			ctx.Rounding = apd.RoundDown
		}
		if _, err := ctx.Quantize(r, x, int32(-scale)); err != nil {
			return types.Null, errNumericOverflow()
		}
		if scale < 0 {
			if _, err := ctx.Quantize(r, r, 0); err != nil {
				return types.Null, errNumericOverflow()
			}
		}
		return numResult(r)
	}
}

func numCeilFloor(ceil bool) func(r, x *apd.Decimal) error {
	return func(r, x *apd.Decimal) error {
		var err error
		if ceil {
			_, err = exactCtx.Ceil(r, x)
		} else {
			_, err = exactCtx.Floor(r, x)
		}
		if err == nil && r.Form == apd.Finite {
			_, err = exactCtx.Quantize(r, r, 0)
		}
		return err
	}
}

func numSqrt(r, x *apd.Decimal) error {
	if x.Sign() < 0 {
		return errSqrtNeg()
	}
	if x.Form != apd.Finite {
		r.Set(x)
		return nil
	}
	w, _, _, _ := nbaseDigits(x)
	sweight := (w+1)*decDigits/2 - 1
	rscale := clampScale(minSigDigits-sweight, dscale(x))
	ctx := approxCtx(int(adjExp(x)/2)+2, rscale)
	if _, err := ctx.Sqrt(r, x); err != nil {
		return err
	}
	return roundScale(r, rscale)
}

func numExp(r, x *apd.Decimal) error {
	if x.Form != apd.Finite {
		_, err := exactCtx.Exp(r, x)
		return err
	}
	val := decFloat(x) * math.Log10E
	if val > maxWeight*decDigits/decDigits {
		return errNumericOverflow()
	}
	val = max(min(val, 2000), -2000)
	rscale := clampScale(minSigDigits-int(val), dscale(x))
	ctx := approxCtx(int(max(val, 0))+2, rscale)
	if _, err := ctx.Exp(r, x); err != nil {
		return errNumericOverflow()
	}
	return roundScale(r, rscale)
}

func numLn(r, x *apd.Decimal) error {
	switch x.Sign() {
	case 0:
		return errLogZero()
	case -1:
		return errLogNeg()
	}
	if x.Form != apd.Finite {
		r.Set(x)
		return nil
	}
	rscale := clampScale(minSigDigits-estimateLnDweight(x), dscale(x))
	ctx := approxCtx(8, rscale)
	if _, err := ctx.Ln(r, x); err != nil {
		return err
	}
	return roundScale(r, rscale)
}

// numLog is log(base, x) (log_var).
func numLog(r, base, x *apd.Decimal) error {
	for _, v := range []*apd.Decimal{base, x} {
		switch v.Sign() {
		case 0:
			return errLogZero()
		case -1:
			return errLogNeg()
		}
	}
	rscale := clampScale(minSigDigits-(estimateLnDweight(x)-estimateLnDweight(base)), dscale(base), dscale(x))
	ctx := approxCtx(8, rscale+8)
	var lb, lx apd.Decimal
	ctx.Ln(&lb, base)
	ctx.Ln(&lx, x)
	if lb.IsZero() {
		return errDivByZero()
	}
	if _, err := ctx.Quo(r, &lx, &lb); err != nil {
		return err
	}
	return roundScale(r, rscale)
}

func numSign(r, x *apd.Decimal) error {
	if x.Form == apd.NaN {
		r.Set(x)
		return nil
	}
	r.SetInt64(int64(x.Sign()))
	return nil
}

// numDivTrunc is div(x, y): the truncated integer quotient.
func numDivTrunc(r, x, y *apd.Decimal) error {
	if y.Form == apd.Finite && y.IsZero() {
		return errDivByZero()
	}
	if _, err := exactCtx.QuoInteger(r, x, y); err != nil {
		return errNumericOverflow()
	}
	if r.Form == apd.Finite {
		_, err := exactCtx.Quantize(r, r, 0)
		return err
	}
	return nil
}

// minScale is the fewest fractional digits that represent d exactly.
func minScale(d *apd.Decimal) int {
	if d.Form != apd.Finite {
		return 0
	}
	var r apd.Decimal
	r.Reduce(d)
	return max(0, int(-r.Exponent))
}

func gcd64(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func intGcd(f types.Family, lcm bool) Impl {
	return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		x, y := a[0].Int(), a[1].Int()
		lo, _ := types.IntRange(f)
		g := gcd64(x, y)
		if g == lo {
			return types.Null, types.ErrIntRange(f)
		}
		if g < 0 {
			g = -g
		}
		if !lcm {
			return types.NewInt(f, g), nil
		}
		if x == 0 || y == 0 {
			return types.NewInt(f, 0), nil
		}
		r, ok := mul64(x/g, y)
		if !ok {
			return types.Null, types.ErrIntRange(f)
		}
		if r == lo {
			return types.Null, types.ErrIntRange(f)
		}
		if r < 0 {
			r = -r
		}
		return intResult(f, r)
	}
}

func widthBucket(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	x, lo, hi, n := a[0].Float(), a[1].Float(), a[2].Float(), a[3].Int()
	if n <= 0 {
		return types.Null, pgerr.New(pgerr.InvalidArgumentForWidthBkt, "count must be greater than zero")
	}
	if math.IsNaN(x) || math.IsNaN(lo) || math.IsNaN(hi) {
		return types.Null, pgerr.New(pgerr.InvalidArgumentForWidthBkt, "operand, lower bound, and upper bound cannot be NaN")
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return types.Null, pgerr.New(pgerr.InvalidArgumentForWidthBkt, "lower and upper bounds must be finite")
	}
	if lo == hi {
		return types.Null, pgerr.New(pgerr.InvalidArgumentForWidthBkt, "lower bound cannot equal upper bound")
	}
	var r int64
	if lo < hi {
		switch {
		case x < lo:
			r = 0
		case x >= hi:
			r = n + 1
		default:
			r = int64(float64(n)*((x-lo)/(hi-lo))) + 1
		}
	} else {
		switch {
		case x > lo:
			r = 0
		case x <= hi:
			r = n + 1
		default:
			r = int64(float64(n)*((lo-x)/(lo-hi))) + 1
		}
	}
	if r > math.MaxInt32 {
		return types.Null, types.ErrIntRange(types.Int4)
	}
	return types.NewInt4(int32(r)), nil
}

func init() {
	n := numT
	addFunc(
		strict("ceil", ts(f8), f8, f8fn(pure(math.Ceil))),
		strict("ceiling", ts(f8), f8, f8fn(pure(math.Ceil))),
		strict("floor", ts(f8), f8, f8fn(pure(math.Floor))),
		strict("round", ts(f8), f8, f8fn(pure(math.RoundToEven))),
		strict("trunc", ts(f8), f8, f8fn(pure(math.Trunc))),
		strict("sqrt", ts(f8), f8, f8fn(func(x float64) (float64, error) {
			if x < 0 {
				return 0, errSqrtNeg()
			}
			return math.Sqrt(x), nil
		})),
		strict("cbrt", ts(f8), f8, f8fn(pure(math.Cbrt))),
		strict("exp", ts(f8), f8, f8fn(floatExp)),
		strict("ln", ts(f8), f8, f8fn(floatLog(math.Log))),
		strict("log", ts(f8), f8, f8fn(floatLog(math.Log10))),
		strict("log10", ts(f8), f8, f8fn(floatLog(math.Log10))),
		strict("power", ts(f8, f8), f8, fn2(floatPow)),
		strict("pow", ts(f8, f8), f8, fn2(floatPow)),
		strict("sign", ts(f8), f8, f8fn(func(x float64) (float64, error) {
			switch {
			case x > 0:
				return 1, nil
			case x < 0:
				return -1, nil
			}
			return 0, nil
		})),
		strict("degrees", ts(f8), f8, f8fn(pure(func(x float64) float64 { return x * (180 / math.Pi) }))),
		strict("radians", ts(f8), f8, f8fn(pure(func(x float64) float64 { return x * (math.Pi / 180) }))),
		strict("pi", nil, f8, func(*EvalContext, []types.Datum) (types.Datum, error) { return types.NewFloat8(math.Pi), nil }),
		strict("sin", ts(f8), f8, f8fn(trig(math.Sin, 0))),
		strict("cos", ts(f8), f8, f8fn(trig(math.Cos, 0))),
		strict("tan", ts(f8), f8, f8fn(trig(math.Tan, 0))),
		strict("cot", ts(f8), f8, f8fn(trig(func(x float64) float64 { return 1 / math.Tan(x) }, 0))),
		strict("asin", ts(f8), f8, f8fn(trig(math.Asin, 1))),
		strict("acos", ts(f8), f8, f8fn(trig(math.Acos, 1))),
		strict("atan", ts(f8), f8, f8fn(pure(math.Atan))),
		strict("atan2", ts(f8, f8), f8, func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			return types.NewFloat8(math.Atan2(a[0].Float(), a[1].Float())), nil
		}),
		strict("sinh", ts(f8), f8, f8fn(pure(math.Sinh))),
		strict("cosh", ts(f8), f8, f8fn(pure(math.Cosh))),
		strict("tanh", ts(f8), f8, f8fn(pure(math.Tanh))),
		&Func{Name: "random", Ret: f8, Volatility: Volatile, Impl: func(*EvalContext, []types.Datum) (types.Datum, error) {
			return types.NewFloat8(rand.Float64()), nil
		}},
		strict("width_bucket", ts(f8, f8, f8, int4T), int4T, widthBucket),

		&Func{Name: "ceil", Params: ts(n), Ret: n, Strict: true, Impl: numFn(numCeilFloor(true)), retFn: retNumeric},
		&Func{Name: "ceiling", Params: ts(n), Ret: n, Strict: true, Impl: numFn(numCeilFloor(true)), retFn: retNumeric},
		&Func{Name: "floor", Params: ts(n), Ret: n, Strict: true, Impl: numFn(numCeilFloor(false)), retFn: retNumeric},
		&Func{Name: "round", Params: ts(n), Ret: n, Strict: true, Impl: numRoundTo(false), retFn: retNumeric},
		&Func{Name: "round", Params: ts(n, int4T), Ret: n, Strict: true, Impl: numRoundTo(false), retFn: retNumeric},
		&Func{Name: "trunc", Params: ts(n), Ret: n, Strict: true, Impl: numRoundTo(true), retFn: retNumeric},
		&Func{Name: "trunc", Params: ts(n, int4T), Ret: n, Strict: true, Impl: numRoundTo(true), retFn: retNumeric},
		&Func{Name: "sqrt", Params: ts(n), Ret: n, Strict: true, Impl: numFn(numSqrt), retFn: retNumeric},
		&Func{Name: "exp", Params: ts(n), Ret: n, Strict: true, Impl: numFn(numExp), retFn: retNumeric},
		&Func{Name: "ln", Params: ts(n), Ret: n, Strict: true, Impl: numFn(numLn), retFn: retNumeric},
		&Func{Name: "log", Params: ts(n), Ret: n, Strict: true, Impl: numFn(func(r, x *apd.Decimal) error { return numLog(r, apd.New(10, 0), x) }), retFn: retNumeric},
		&Func{Name: "log10", Params: ts(n), Ret: n, Strict: true, Impl: numFn(func(r, x *apd.Decimal) error { return numLog(r, apd.New(10, 0), x) }), retFn: retNumeric},
		&Func{Name: "log", Params: ts(n, n), Ret: n, Strict: true, Impl: numBinary(numLogOp), retFn: retNumeric},
		&Func{Name: "power", Params: ts(n, n), Ret: n, Strict: true, Impl: numBinary(numPowOp), retFn: retNumeric},
		&Func{Name: "pow", Params: ts(n, n), Ret: n, Strict: true, Impl: numBinary(numPowOp), retFn: retNumeric},
		&Func{Name: "sign", Params: ts(n), Ret: n, Strict: true, Impl: numFn(numSign), retFn: retNumeric},
		&Func{Name: "div", Params: ts(n, n), Ret: n, Strict: true, Impl: numBinary(numDivTruncOp), retFn: retNumeric},
		&Func{Name: "scale", Params: ts(n), Ret: int4T, Strict: true, Impl: func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			var scratch apd.Decimal
			return int4Of(dscale(a[0].DecimalTo(&scratch))), nil
		}},
		&Func{Name: "min_scale", Params: ts(n), Ret: int4T, Strict: true, Impl: func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			var scratch apd.Decimal
			return int4Of(minScale(a[0].DecimalTo(&scratch))), nil
		}},
		&Func{Name: "trim_scale", Params: ts(n), Ret: n, Strict: true, Impl: numFn(func(r, x *apd.Decimal) error {
			r.Set(x)
			return roundScale(r, minScale(x))
		}), retFn: retNumeric},
		strict("gcd", ts(int4T, int4T), int4T, intGcd(types.Int4, false)),
		strict("gcd", ts(int8T, int8T), int8T, intGcd(types.Int8, false)),
		strict("lcm", ts(int4T, int4T), int4T, intGcd(types.Int4, true)),
		strict("lcm", ts(int8T, int8T), int8T, intGcd(types.Int8, true)),
	)
}
