package scalar

import (
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/types"
)

// The variance family: var_samp/variance, var_pop, stddev_samp/stddev,
// stddev_pop. Integer and numeric inputs keep exact numeric sums of x and
// x² and finish as numeric.c's numeric_stddev_internal does (same scales,
// so the digits match PostgreSQL's); float inputs keep exact sums of x and
// of the rounded x², so retractions restore the state exactly, and finish
// in float8.

type varianceAcc struct {
	sample, stddev bool
	float          bool
	n              int64
	sumX           numSum
	sumX2          apd.Decimal
	fx, fx2        floatSum
}

func (v *varianceAcc) add(a []types.Datum, diff int64) error {
	if v.float {
		x := a[0].Float()
		v.fx.add(x, diff)
		v.fx2.add(x*x, diff)
		v.n += diff
		return nil
	}
	var scratch apd.Decimal
	x := &scratch
	if a[0].Kind() == types.Numeric {
		x = a[0].DecimalTo(&scratch)
	} else {
		scratch.SetInt64(a[0].Int())
	}
	if x.Form != apd.Finite {
		return v.sumX.add(x, diff)
	}
	var sq, next apd.Decimal
	if _, err := exactCtx.Mul(&sq, x, x); err != nil {
		return errNumericOverflow()
	}
	if _, err := exactCtx.Mul(&sq, &sq, apd.New(diff, 0)); err != nil {
		return errNumericOverflow()
	}
	if _, err := exactCtx.Add(&next, &v.sumX2, &sq); err != nil {
		return errNumericOverflow()
	}
	if err := v.sumX.add(x, diff); err != nil {
		return errNumericOverflow()
	}
	v.sumX2.Set(&next)
	v.n += diff
	return nil
}

func (v *varianceAcc) result() (types.Datum, error) {
	if v.n <= 0 || v.sample && v.n == 1 {
		return types.Null, nil
	}
	if v.float {
		return v.floatResult()
	}
	sumX := v.sumX.value()
	if sumX.Form != apd.Finite {
		r := new(apd.Decimal)
		r.Form = apd.NaN
		return numResult(r)
	}
	n := apd.New(v.n, 0)
	var sq, nx2, num apd.Decimal
	exactCtx.Mul(&sq, sumX, sumX)
	exactCtx.Mul(&nx2, n, &v.sumX2)
	exactCtx.Sub(&num, &nx2, &sq)
	if num.Sign() <= 0 {
		return types.NewNumeric(apd.New(0, 0)), nil
	}
	den := apd.New(v.n*v.n, 0)
	if v.sample {
		den = apd.New(v.n*(v.n-1), 0)
	}
	rscale := divScale(&num, den)
	r, err := numDiv(&num, den, rscale)
	if err != nil {
		return types.Null, err
	}
	if v.stddev {
		ctx := approxCtx(int(adjExp(r)/2)+2, rscale)
		if _, err := ctx.Sqrt(r, r); err != nil {
			return types.Null, err
		}
		if err := roundScale(r, rscale); err != nil {
			return types.Null, err
		}
	}
	return numResult(r)
}

func (v *varianceAcc) floatResult() (types.Datum, error) {
	n := float64(v.n)
	sx, sx2 := v.fx.value(), v.fx2.value()
	if math.IsNaN(sx) || math.IsInf(sx, 0) || math.IsInf(sx2, 0) {
		return types.NewFloat8(math.NaN()), nil
	}
	sxx := max(sx2-sx*sx/n, 0)
	d := n
	if v.sample {
		d = n - 1
	}
	r := sxx / d
	if v.stddev {
		r = math.Sqrt(r)
	}
	return types.NewFloat8(r), nil
}

func init() {
	for _, name := range []string{"variance", "var_samp", "var_pop", "stddev", "stddev_samp", "stddev_pop"} {
		sample := name != "var_pop" && name != "stddev_pop"
		sd := name == "stddev" || name == "stddev_samp" || name == "stddev_pop"
		for _, t := range []types.Type{types.TypeInt2, int4T, int8T, numT, types.TypeFloat4, f8} {
			ret := numT
			isFloat := t.Family == types.Float4 || t.Family == types.Float8
			if isFloat {
				ret = f8
			}
			addAgg(&AggFunc{Name: name, Params: ts(t), Ret: ret, Strict: true, newAcc: func([]types.Type, types.Type) accumulator {
				return &varianceAcc{sample: sample, stddev: sd, float: isFloat}
			}})
		}
	}
}
