// Package int128 is a two's-complement 128-bit integer: the exact sum of
// int64 values times their weights that the sums and averages of integers
// keep, so that a sum comes back to exactly its old value when a row is
// deleted. The aggregates (planner/scalar) read it and Reduce (dataflow)
// adds rows to it inline.
package int128

import (
	"math/big"
	"math/bits"

	"github.com/cockroachdb/apd/v3"
)

// Int is a two's-complement 128-bit integer, Hi its high word.
type Int struct {
	Hi int64
	Lo uint64
}

// AddMul adds v*n to a and reports whether the result fits; a is left as
// it was when it does not. The signed product is the unsigned one with
// each negative factor's correction of the high word (a product of two
// int64s always fits in 128 bits), and the addition's overflow is the
// sign test of two's complement: without branches on the signs, the
// function is small enough to inline into Reduce's pass over a delta.
func (a *Int) AddMul(v, n int64) bool {
	phi, plo := bits.Mul64(uint64(v), uint64(n))
	phi -= uint64(v>>63&n + n>>63&v)
	lo, carry := bits.Add64(a.Lo, plo, 0)
	b := int64(phi + carry)
	hi := a.Hi + b
	if (a.Hi^hi)&(b^hi) < 0 {
		return false
	}
	a.Hi, a.Lo = hi, lo
	return true
}

// Neg returns -a.
func (a Int) Neg() Int {
	lo, borrow := bits.Sub64(0, a.Lo, 0)
	return Int{Hi: -a.Hi - int64(borrow), Lo: lo}
}

// Int64 returns the value if it fits.
func (a Int) Int64() (int64, bool) {
	v := int64(a.Lo)
	return v, (a.Hi == 0 && v >= 0) || (a.Hi == -1 && v < 0)
}

// Decimal returns the value as an apd decimal.
func (a Int) Decimal() *apd.Decimal {
	if v, ok := a.Int64(); ok {
		return apd.New(v, 0)
	}
	neg := a.Hi < 0
	if neg {
		a = a.Neg()
	}
	b := new(big.Int).SetUint64(uint64(a.Hi))
	b.Lsh(b, 64)
	b.Or(b, new(big.Int).SetUint64(a.Lo))
	var c apd.BigInt
	c.SetMathBigInt(b)
	d := apd.NewWithBigInt(&c, 0)
	d.Negative = neg
	return d
}
