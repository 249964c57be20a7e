package scalar

import (
	"math"
	"math/big"
	"math/bits"

	"github.com/cockroachdb/apd/v3"
)

// Exact accumulators for invertible aggregates. With retractions a sum
// must come back to exactly its old value when a row is deleted, so sums
// are kept exactly: integers in 128 bits, floats in a fixed-point integer
// wide enough for every finite float64, numerics in apd.

// int128 is a two's-complement 128-bit integer.
type int128 struct {
	hi int64
	lo uint64
}

// addMul adds v*n, reporting overflow.
func (a *int128) addMul(v, n int64) bool {
	neg := (v < 0) != (n < 0)
	uv, un := uint64(v), uint64(n)
	if v < 0 {
		uv = -uv
	}
	if n < 0 {
		un = -un
	}
	phi, plo := bits.Mul64(uv, un)
	if phi>>63 != 0 {
		return false
	}
	p := int128{hi: int64(phi), lo: plo}
	if neg {
		p = p.neg()
	}
	lo, carry := bits.Add64(a.lo, p.lo, 0)
	hi := a.hi + p.hi + int64(carry)
	if (a.hi >= 0) == (p.hi >= 0) && (hi >= 0) != (a.hi >= 0) {
		return false
	}
	a.hi, a.lo = hi, lo
	return true
}

func (a int128) neg() int128 {
	lo, borrow := bits.Sub64(0, a.lo, 0)
	return int128{hi: -a.hi - int64(borrow), lo: lo}
}

// int64 returns the value if it fits.
func (a int128) int64() (int64, bool) {
	v := int64(a.lo)
	return v, (a.hi == 0 && v >= 0) || (a.hi == -1 && v < 0)
}

// decimal returns the value as an apd decimal.
func (a int128) decimal() *apd.Decimal {
	if v, ok := a.int64(); ok {
		return apd.New(v, 0)
	}
	neg := a.hi < 0
	if neg {
		a = a.neg()
	}
	b := new(big.Int).SetUint64(uint64(a.hi))
	b.Lsh(b, 64)
	b.Or(b, new(big.Int).SetUint64(a.lo))
	var c apd.BigInt
	c.SetMathBigInt(b)
	d := apd.NewWithBigInt(&c, 0)
	d.Negative = neg
	return d
}

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
