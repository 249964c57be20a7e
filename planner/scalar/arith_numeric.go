package scalar

import (
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/sql/pgerr"
	"github.com/streamdb/streamdb/sql/types"
)

var numT = types.TypeNumeric

// numeric results never carry the argument's typmod.
func retNumeric([]types.Type) types.Type { return numT }

func numBinary(f func(r, x, y *apd.Decimal) error) Impl {
	return func(_ *EvalContext, args []types.Datum) (types.Datum, error) {
		r := new(apd.Decimal)
		if err := f(r, args[0].Decimal(), args[1].Decimal()); err != nil {
			return types.Null, err
		}
		return numResult(r)
	}
}

func numAdd(r, x, y *apd.Decimal) error {
	_, err := exactCtx.Add(r, x, y)
	return err
}

func numSub(r, x, y *apd.Decimal) error {
	_, err := exactCtx.Sub(r, x, y)
	return err
}

func numMul(r, x, y *apd.Decimal) error {
	_, err := exactCtx.Mul(r, x, y)
	return err
}

func numQuo(r, x, y *apd.Decimal) error {
	q, err := numDiv(x, y, divScale(x, y))
	if err != nil {
		return err
	}
	r.Set(q)
	return nil
}

func numMod(r, x, y *apd.Decimal) error {
	if y.Form == apd.Finite && y.Coeff.Sign() == 0 {
		return errDivByZero()
	}
	if x.Form == apd.Finite && y.Form == apd.Infinite {
		r.Set(x)
		return nil
	}
	_, err := exactCtx.Rem(r, x, y)
	return err
}

// numPow is numeric ^ numeric (power_var) with its result scale rules: an
// integral exponent gives at least 16 fractional digits or the base's
// scale; otherwise 16 significant digits.
func numPow(r, x, y *apd.Decimal) error {
	if x.Form != apd.Finite || y.Form != apd.Finite {
		_, err := exactCtx.Pow(r, x, y)
		return err
	}
	if x.IsZero() && y.Sign() < 0 {
		return pgerr.New(pgerr.InvalidArgumentForPower, "zero raised to a negative power is undefined")
	}
	var frac, integ apd.Decimal
	y.Modf(&integ, &frac)
	isInt := frac.IsZero()
	if x.Sign() < 0 && !isInt {
		return pgerr.New(pgerr.InvalidArgumentForPower, "a negative number raised to a non-integer power yields a complex result")
	}
	var rscale int
	var est float64
	if x.IsZero() {
		est = 0
	} else {
		est = float64(y.Sign()) * math.Abs(decFloat(y)) * math.Log10(math.Abs(decFloat(x)))
		if math.IsInf(est, 0) || math.IsNaN(est) {
			est = float64(adjExp(x)) * decFloat(y)
		}
	}
	if est > maxWeight {
		return errNumericOverflow()
	}
	if isInt {
		if y.IsZero() {
			r.SetFinite(1, 0)
			return roundScale(r, clampScale(minSigDigits, dscale(x)))
		}
		rscale = clampScale(minSigDigits, dscale(x))
	} else {
		rscale = clampScale(minSigDigits-int(est), dscale(x), dscale(y))
	}
	if est < -float64(maxDisplayScale)-float64(rscale) {
		r.SetFinite(0, int32(-rscale))
		return nil
	}
	ctx := approxCtx(int(math.Max(est, 0))+2, rscale)
	if _, err := ctx.Pow(r, x, y); err != nil {
		return errNumericOverflow()
	}
	return roundScale(r, rscale)
}

func init() {
	addOp(
		&Func{Name: "+", Params: ts(numT, numT), Ret: numT, Strict: true, Impl: numBinary(numAdd), retFn: retNumeric},
		&Func{Name: "-", Params: ts(numT, numT), Ret: numT, Strict: true, Impl: numBinary(numSub), retFn: retNumeric},
		&Func{Name: "*", Params: ts(numT, numT), Ret: numT, Strict: true, Impl: numBinary(numMul), retFn: retNumeric},
		&Func{Name: "/", Params: ts(numT, numT), Ret: numT, Strict: true, Impl: numBinary(numQuo), retFn: retNumeric},
		&Func{Name: "%", Params: ts(numT, numT), Ret: numT, Strict: true, Impl: numBinary(numMod), retFn: retNumeric},
		&Func{Name: "^", Params: ts(numT, numT), Ret: numT, Strict: true, Impl: numBinary(numPow), retFn: retNumeric},
		&Func{Name: "-", Params: ts(numT), Ret: numT, Strict: true, Impl: numUnary(func(r, x *apd.Decimal) { r.Neg(x) }), retFn: retNumeric},
		&Func{Name: "+", Params: ts(numT), Ret: numT, Strict: true, Impl: identity, retFn: retNumeric},
		&Func{Name: "@", Params: ts(numT), Ret: numT, Strict: true, Impl: numUnary(func(r, x *apd.Decimal) { r.Abs(x) }), retFn: retNumeric},
	)
	addFunc(
		&Func{Name: "abs", Params: ts(numT), Ret: numT, Strict: true, Impl: numUnary(func(r, x *apd.Decimal) { r.Abs(x) }), retFn: retNumeric},
		&Func{Name: "mod", Params: ts(numT, numT), Ret: numT, Strict: true, Impl: numBinary(numMod), retFn: retNumeric},
	)
}

func numUnary(f func(r, x *apd.Decimal)) Impl {
	return func(_ *EvalContext, args []types.Datum) (types.Datum, error) {
		r := new(apd.Decimal)
		f(r, args[0].Decimal())
		return numResult(r)
	}
}
