package scalar

import (
	"github.com/streamdb/streamdb/internal/int128"
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/types"
)

// Invertible aggregates keep O(1) state per group: counts and exact sums
// that a retraction (negative diff) undoes exactly.

type countAcc struct{ n int64 }

func (c *countAcc) add(_ []types.Datum, diff int64) error { c.n += diff; return nil }
func (c *countAcc) result() (types.Datum, error)          { return types.NewInt8(c.n), nil }

// intSumAcc is sum over int2/int4 (result int8) and int8 (result numeric).
// A numeric result that fits in 64 bits, as nearly every sum does, is an
// inline numeric: no decimal is allocated per group and tick.
type intSumAcc struct {
	sum     int128.Int
	n       int64
	numeric bool
}

func (s *intSumAcc) add(a []types.Datum, diff int64) error { return s.addInt(a[0].Int(), diff) }

// addInt adds v diff times.
func (s *intSumAcc) addInt(v, diff int64) error {
	next := s.sum
	if !next.AddMul(v, diff) {
		return errNumericOverflow()
	}
	s.sum = next
	s.n += diff
	return nil
}

func (s *intSumAcc) result() (types.Datum, error) {
	if s.n <= 0 {
		return types.Null, nil
	}
	v, ok := s.sum.Int64()
	switch {
	case s.numeric && ok:
		return types.NewNumericCoef(v, 0), nil
	case s.numeric:
		return numResult(s.sum.Decimal())
	case !ok:
		return types.Null, types.ErrIntRange(types.Int8)
	}
	return types.NewInt8(v), nil
}

type floatSumAcc struct {
	sum floatSum
	n   int64
	f4  bool
}

func (s *floatSumAcc) add(a []types.Datum, diff int64) error {
	s.sum.add(a[0].Float(), diff)
	s.n += diff
	return nil
}

func (s *floatSumAcc) result() (types.Datum, error) {
	if s.n <= 0 {
		return types.Null, nil
	}
	v := s.sum.value()
	if s.f4 {
		v = float64(float32(v))
	}
	if math.IsInf(v, 0) && s.sum.posInf == 0 && s.sum.negInf == 0 {
		return types.Null, errFloatOverflow()
	}
	if s.f4 {
		return types.NewFloat4(float32(v)), nil
	}
	return types.NewFloat8(v), nil
}

type numSumAcc struct {
	sum numSum
	n   int64
}

func (s *numSumAcc) add(a []types.Datum, diff int64) error {
	var x apd.Decimal
	if err := s.sum.add(a[0].DecimalTo(&x), diff); err != nil {
		return errNumericOverflow()
	}
	s.n += diff
	return nil
}

func (s *numSumAcc) result() (types.Datum, error) {
	if s.n <= 0 {
		return types.Null, nil
	}
	var r apd.Decimal
	return numResultOf(s.sum.valueTo(&r))
}

// avgAcc is avg: the exact sum divided by the count, with numeric's
// division scale for integers and numerics (avg(1, 2) = 1.5000000000000000)
// and float8 division for floats. An average of integers whose
// coefficient at that scale fits an int64 is computed in integers and
// returned inline (intAvg): no decimal per group and tick.
type avgAcc struct {
	kind types.Family
	ints intSumAcc
	flts floatSumAcc
	nums numSumAcc
}

func (s *avgAcc) add(a []types.Datum, diff int64) error {
	switch s.kind {
	case types.Float4, types.Float8:
		return s.flts.add(a, diff)
	case types.Numeric:
		return s.nums.add(a, diff)
	}
	return s.ints.add(a, diff)
}

func (s *avgAcc) result() (types.Datum, error) {
	switch s.kind {
	case types.Float4, types.Float8:
		if s.flts.n <= 0 {
			return types.Null, nil
		}
		return types.NewFloat8(s.flts.sum.value() / float64(s.flts.n)), nil
	case types.Numeric:
		if s.nums.n <= 0 {
			return types.Null, nil
		}
		return numAvg(s.nums.sum.value(), s.nums.n)
	}
	if s.ints.n <= 0 {
		return types.Null, nil
	}
	if d, ok := intAvg(s.ints.sum, s.ints.n); ok {
		return d, nil
	}
	return numAvg(s.ints.sum.Decimal(), s.ints.n)
}

// numAvg is sum / n with numeric division's scale and rounding.
func numAvg(sum *apd.Decimal, n int64) (types.Datum, error) {
	if sum.Form != apd.Finite {
		return numResult(sum)
	}
	cnt := apd.New(n, 0)
	q, err := numDiv(sum, cnt, divScale(sum, cnt))
	if err != nil {
		return types.Null, err
	}
	return numResult(q)
}

// boolAcc counts true and false inputs: bool_and is true when no input
// is false, bool_or when some input is true.
type boolAcc struct {
	t, f int64
	or   bool
}

func (b *boolAcc) add(a []types.Datum, diff int64) error {
	if a[0].Bool() {
		b.t += diff
	} else {
		b.f += diff
	}
	return nil
}

func (b *boolAcc) result() (types.Datum, error) {
	if b.t+b.f <= 0 {
		return types.Null, nil
	}
	if b.or {
		return types.NewBool(b.t > 0), nil
	}
	return types.NewBool(b.f == 0), nil
}

func sumAgg(t types.Type) *AggFunc {
	ret := map[types.Family]types.Type{types.Int2: int8T, types.Int4: int8T, types.Int8: numT,
		types.Float4: types.TypeFloat4, types.Float8: f8, types.Numeric: numT, types.Interval: ivT}[t.Family]
	return &AggFunc{Name: "sum", Params: ts(t), Ret: ret, Strict: true, newAcc: func(p []types.Type, _ types.Type) accumulator {
		switch p[0].Family {
		case types.Float4, types.Float8:
			return &floatSumAcc{f4: p[0].Family == types.Float4}
		case types.Numeric:
			return &numSumAcc{}
		case types.Interval:
			return &intervalSumAcc{}
		}
		return &intSumAcc{numeric: p[0].Family == types.Int8}
	}}
}

func avgAgg(t types.Type) *AggFunc {
	ret := numT
	switch t.Family {
	case types.Float4, types.Float8:
		ret = f8
	case types.Interval:
		ret = ivT
	}
	return &AggFunc{Name: "avg", Params: ts(t), Ret: ret, Strict: true, newAcc: func(p []types.Type, _ types.Type) accumulator {
		if p[0].Family == types.Interval {
			return &intervalSumAcc{avg: true}
		}
		return &avgAcc{kind: p[0].Family, ints: intSumAcc{numeric: true}}
	}}
}

// intervalSumAcc sums intervals field by field (months, days, micros), as
// interval addition does; avg divides by the count like interval / float8.
type intervalSumAcc struct {
	months, days int64
	micros       int128.Int
	n            int64
	avg          bool
}

func (s *intervalSumAcc) add(a []types.Datum, diff int64) error {
	iv := a[0].Interval()
	next := s.micros
	if !next.AddMul(iv.Micros, diff) {
		return errIntervalRange()
	}
	s.micros = next
	s.months += int64(iv.Months) * diff
	s.days += int64(iv.Days) * diff
	s.n += diff
	return nil
}

func (s *intervalSumAcc) result() (types.Datum, error) {
	if s.n <= 0 {
		return types.Null, nil
	}
	us, ok := s.micros.Int64()
	if !ok || s.months != int64(int32(s.months)) || s.days != int64(int32(s.days)) {
		return types.Null, errIntervalRange()
	}
	iv := types.IntervalValue{Months: int32(s.months), Days: int32(s.days), Micros: us}
	if s.avg {
		r, err := scaleInterval(iv, float64(s.n), true)
		if err != nil {
			return types.Null, err
		}
		return types.NewInterval(r), nil
	}
	return types.NewInterval(iv), nil
}

func init() {
	addAgg(
		&AggFunc{Name: "count", Ret: int8T, empty: types.NewInt8(0), newAcc: func([]types.Type, types.Type) accumulator { return &countAcc{} }},
		&AggFunc{Name: "count", Params: ts(AnyT), Ret: int8T, Strict: true, empty: types.NewInt8(0), newAcc: func([]types.Type, types.Type) accumulator { return &countAcc{} }},
		&AggFunc{Name: "bool_and", Params: ts(boolT), Ret: boolT, Strict: true, newAcc: func([]types.Type, types.Type) accumulator { return &boolAcc{} }},
		&AggFunc{Name: "every", Params: ts(boolT), Ret: boolT, Strict: true, newAcc: func([]types.Type, types.Type) accumulator { return &boolAcc{} }},
		&AggFunc{Name: "bool_or", Params: ts(boolT), Ret: boolT, Strict: true, newAcc: func([]types.Type, types.Type) accumulator { return &boolAcc{or: true} }},
	)
	for _, t := range []types.Type{types.TypeInt2, int4T, int8T, types.TypeFloat4, f8, numT, ivT} {
		addAgg(sumAgg(t), avgAgg(t))
	}
}
