package scalar

import (
	"math"
	"math/big"

	"github.com/cockroachdb/apd/v3"
)

// Exact accumulators for invertible aggregates. With retractions a sum
// must come back to exactly its old value when a row is deleted, so sums
// are kept exactly: integers in 128 bits, floats in a fixed-point integer
// wide enough for every finite float64, numerics in apd.

// floatSum sums float64 values exactly: finite values in a fixed-point
// big integer scaled by 2^1074 (the smallest subnormal), infinities and
// NaNs counted apart. Its result is the exact sum rounded once.
type floatSum struct {
	fixed          big.Int
	tmp            big.Int
	posInf, negInf int64
	nan            int64
}

const floatFixedShift = 1074

func (s *floatSum) add(f float64, n int64) {
	switch {
	case math.IsNaN(f):
		s.nan += n
		return
	case math.IsInf(f, 1):
		s.posInf += n
		return
	case math.IsInf(f, -1):
		s.negInf += n
		return
	case f == 0:
		return
	}
	mant, exp := math.Frexp(f)
	m := int64(mant * (1 << 53))
	s.tmp.SetInt64(m)
	if sh := exp - 53 + floatFixedShift; sh >= 0 {
		s.tmp.Lsh(&s.tmp, uint(sh))
	} else {
		// Subnormals: the bits shifted out are zero.
		s.tmp.Rsh(&s.tmp, uint(-sh))
	}
	if n != 1 {
		s.tmp.Mul(&s.tmp, big.NewInt(n))
	}
	s.fixed.Add(&s.fixed, &s.tmp)
}

// value returns the sum rounded to float64.
func (s *floatSum) value() float64 {
	switch {
	case s.nan > 0 || s.posInf > 0 && s.negInf > 0:
		return math.NaN()
	case s.posInf > 0:
		return math.Inf(1)
	case s.negInf > 0:
		return math.Inf(-1)
	}
	f := new(big.Float).SetInt(&s.fixed)
	f.SetMantExp(f, -floatFixedShift)
	r, _ := f.Float64()
	return r
}

// numSum sums numerics exactly and remembers how many live values have
// each display scale: the sum's scale is the largest among the values
// still present, as PostgreSQL's would be over the same rows.
type numSum struct {
	sum    apd.Decimal
	tmp    apd.Decimal
	scales map[int32]int64
	nan    int64
	posInf int64
	negInf int64
}

func (s *numSum) add(d *apd.Decimal, n int64) error {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		s.nan += n
		return nil
	case apd.Infinite:
		if d.Negative {
			s.negInf += n
		} else {
			s.posInf += n
		}
		return nil
	}
	if _, err := exactCtx.Mul(&s.tmp, d, apd.New(n, 0)); err != nil {
		return err
	}
	if _, err := exactCtx.Add(&s.sum, &s.sum, &s.tmp); err != nil {
		return err
	}
	if s.scales == nil {
		s.scales = map[int32]int64{}
	}
	sc := int32(dscale(d))
	if s.scales[sc] += n; s.scales[sc] == 0 {
		delete(s.scales, sc)
	}
	return nil
}

// value returns the sum at the largest live scale.
func (s *numSum) value() *apd.Decimal { return s.valueTo(new(apd.Decimal)) }

// valueTo is value into r, which it returns.
func (s *numSum) valueTo(r *apd.Decimal) *apd.Decimal {
	switch {
	case s.nan > 0 || s.posInf > 0 && s.negInf > 0:
		r.Form = apd.NaN
		return r
	case s.posInf > 0:
		r.Form = apd.Infinite
		return r
	case s.negInf > 0:
		r.Form, r.Negative = apd.Infinite, true
		return r
	}
	scale := int32(0)
	for sc := range s.scales {
		scale = max(scale, sc)
	}
	r.Set(&s.sum)
	exactCtx.Quantize(r, r, -scale)
	return r
}
