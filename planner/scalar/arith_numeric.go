package scalar

import (
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

var numT = types.TypeNumeric

// numeric results never carry the argument's typmod.
func retNumeric([]types.Type) types.Type { return numT }

// numOp is a numeric function of two arguments. numBinary calls it
// through apply's switch rather than a function value: the operands are
// read into stack scratch, which a call through a function value would
// move to the heap.
type numOp uint8

const (
	numAddOp numOp = iota
	numSubOp
	numMulOp
	numQuoOp
	numModOp
	numPowOp
	numLogOp
	numDivTruncOp
)

func (op numOp) apply(r, x, y *apd.Decimal) error {
	switch op {
	case numAddOp:
		return numAdd(r, x, y)
	case numSubOp:
		return numSub(r, x, y)
	case numMulOp:
		return numMul(r, x, y)
	case numQuoOp:
		return numQuo(r, x, y)
	case numModOp:
		return numMod(r, x, y)
	case numPowOp:
		return numPow(r, x, y)
	case numLogOp:
		return numLog(r, x, y)
	}
	return numDivTrunc(r, x, y)
}

// inline computes + - * of two inline numerics in int64 (numeric_inline.go);
// ok is false for other operators and when the result needs apd.
func (op numOp) inline(x, y types.Datum) (types.Datum, bool) {
	xc, xe, ok := x.NumericCoef()
	if !ok {
		return types.Null, false
	}
	yc, ye, ok := y.NumericCoef()
	switch {
	case !ok:
		return types.Null, false
	case op == numAddOp:
		return addCoef(xc, xe, yc, ye)
	case op == numSubOp:
		return subCoef(xc, xe, yc, ye)
	case op == numMulOp:
		return mulCoef(xc, xe, yc, ye)
	}
	return types.Null, false
}

// numBinary is the Impl of op: + - * of two inline numerics in int64,
// everything else in apd over operands read into stack scratch.
func numBinary(op numOp) Impl {
	return func(_ *EvalContext, args []types.Datum) (types.Datum, error) {
		if d, ok := op.inline(args[0], args[1]); ok {
			return d, nil
		}
		var r, x, y apd.Decimal
		if err := op.apply(&r, args[0].DecimalTo(&x), args[1].DecimalTo(&y)); err != nil {
			return types.Null, err
		}
		return numResultOf(&r)
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
		&Func{Name: "+", Params: ts(numT, numT), Ret: numT, Strict: true, Impl: numBinary(numAddOp), retFn: retNumeric},
		&Func{Name: "-", Params: ts(numT, numT), Ret: numT, Strict: true, Impl: numBinary(numSubOp), retFn: retNumeric},
		&Func{Name: "*", Params: ts(numT, numT), Ret: numT, Strict: true, Impl: numBinary(numMulOp), retFn: retNumeric},
		&Func{Name: "/", Params: ts(numT, numT), Ret: numT, Strict: true, Impl: numBinary(numQuoOp), retFn: retNumeric},
		&Func{Name: "%", Params: ts(numT, numT), Ret: numT, Strict: true, Impl: numBinary(numModOp), retFn: retNumeric},
		&Func{Name: "^", Params: ts(numT, numT), Ret: numT, Strict: true, Impl: numBinary(numPowOp), retFn: retNumeric},
		&Func{Name: "-", Params: ts(numT), Ret: numT, Strict: true, Impl: numNeg(false), retFn: retNumeric},
		&Func{Name: "+", Params: ts(numT), Ret: numT, Strict: true, Impl: identity, retFn: retNumeric},
		&Func{Name: "@", Params: ts(numT), Ret: numT, Strict: true, Impl: numNeg(true), retFn: retNumeric},
	)
	addFunc(
		&Func{Name: "abs", Params: ts(numT), Ret: numT, Strict: true, Impl: numNeg(true), retFn: retNumeric},
		&Func{Name: "mod", Params: ts(numT, numT), Ret: numT, Strict: true, Impl: numBinary(numModOp), retFn: retNumeric},
	)
}

// numNeg is unary minus (abs false) or absolute value (abs true).
func numNeg(abs bool) Impl {
	return func(_ *EvalContext, args []types.Datum) (types.Datum, error) {
		if c, e, ok := args[0].NumericCoef(); ok && c != math.MinInt64 {
			if !abs || c < 0 {
				c = -c
			}
			if d, ok := coefResult(c, int64(e)); ok {
				return d, nil
			}
		}
		var x apd.Decimal
		r := new(apd.Decimal)
		if abs {
			r.Abs(args[0].DecimalTo(&x))
		} else {
			r.Neg(args[0].DecimalTo(&x))
		}
		return numResult(r)
	}
}
