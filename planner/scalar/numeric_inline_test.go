package scalar

import (
	"github.com/streamdb/streamdb/internal/int128"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// inlineEdges are inline numerics where the int64 paths are easiest to
// get wrong: zero, signs, the int64 extremes, scales far apart, a
// positive exponent and exponents near numeric's scale limit.
var inlineEdges = []types.Datum{
	types.NewNumericCoef(0, 0), types.NewNumericCoef(0, -2), types.NewNumericCoef(0, 3),
	types.NewNumericCoef(1, 0), types.NewNumericCoef(-1, 0), types.NewNumericCoef(150, -2),
	types.NewNumericCoef(15, -1), types.NewNumericCoef(-15, -1), types.NewNumericCoef(5, 2),
	types.NewNumericCoef(math.MaxInt64, 0), types.NewNumericCoef(math.MinInt64, 0),
	types.NewNumericCoef(math.MaxInt64, -18), types.NewNumericCoef(math.MinInt64, -18),
	types.NewNumericCoef(math.MaxInt64/10, -1), types.NewNumericCoef(-math.MaxInt64/10-1, 0),
	types.NewNumericCoef(1<<32, -5), types.NewNumericCoef(-(1 << 31), -3),
	types.NewNumericCoef(7, -18), types.NewNumericCoef(7, -19), types.NewNumericCoef(-3, -30),
	types.NewNumericCoef(9, -maxScale), types.NewNumericCoef(-9, -maxScale+1),
	types.NewNumericCoef(4, -9000),
}

// tenTo returns 10^n for n ≤ 18.
func tenTo(n int) int64 {
	p, _ := types.ScaleCoef(1, int64(n))
	return p
}

// randomInline returns an inline numeric with a random number of digits
// (1 to 19), sign and scale.
func randomInline(r *rand.Rand) types.Datum {
	digits := 1 + r.IntN(19)
	c := r.Int64N(tenTo(digits-1)) + tenTo(digits-1)/10*int64(r.IntN(2))
	if digits == 19 {
		c = r.Int64()
	}
	if r.IntN(2) == 0 {
		c = -c
	}
	return types.NewNumericCoef(c, int32(r.IntN(22)-20))
}

// numericsOf returns the edges and n random inline numerics.
func numericsOf(r *rand.Rand, n int) []types.Datum {
	vs := append([]types.Datum(nil), inlineEdges...)
	for range n {
		vs = append(vs, randomInline(r))
	}
	return vs
}

// sameNumeric reports whether got is want: the same error class, or the
// same text and the same coefficient at the same exponent.
func sameNumeric(t *testing.T, what string, got types.Datum, gotErr error, want types.Datum, wantErr error) {
	t.Helper()
	if gotErr != nil || wantErr != nil {
		if pgerr.CodeOf(gotErr) != pgerr.CodeOf(wantErr) || (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%s: error %v, want %v", what, gotErr, wantErr)
		}
		return
	}
	gt, wt := types.FormatText(got, numT, nil), types.FormatText(want, numT, nil)
	gc, ge, gok := got.NumericCoef()
	wc, we, wok := want.NumericCoef()
	if gt != wt || gok != wok || gc != wc || ge != we {
		t.Fatalf("%s = %s (%d×10^%d), want %s (%d×10^%d)", what, gt, gc, ge, wt, wc, we)
	}
}

// apdBinary is numBinary without the inline path: the reference.
func apdBinary(op numOp, x, y types.Datum) (types.Datum, error) {
	r := new(apd.Decimal)
	if err := op.apply(r, x.Decimal(), y.Decimal()); err != nil {
		return types.Null, err
	}
	return numResult(r)
}

// TestNumericInlineArith compares numBinary, with its inline path and its
// inline results of apd arithmetic, with apd and numResult alone.
func TestNumericInlineArith(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	vs := numericsOf(r, 300)
	for _, tc := range []struct {
		name string
		op   numOp
	}{{"+", numAddOp}, {"-", numSubOp}, {"*", numMulOp}, {"/", numQuoOp}, {"%", numModOp}} {
		impl := numBinary(tc.op)
		inline, total := 0, 0
		for _, x := range vs {
			for _, y := range vs {
				want, wantErr := apdBinary(tc.op, x, y)
				what := types.FormatText(x, numT, nil) + " " + tc.name + " " + types.FormatText(y, numT, nil)
				if d, ok := tc.op.inline(x, y); ok {
					inline++
					sameNumeric(t, what+" (inline)", d, nil, want, wantErr)
				}
				got, err := impl(nil, []types.Datum{x, y})
				sameNumeric(t, what, got, err, want, wantErr)
				total++
			}
		}
		// apd would compute these with billions of digits: the inline
		// path only must decline them.
		huge := [][2]int32{{math.MinInt32, math.MinInt32}}
		if tc.op != numMulOp {
			huge = append(huge, [2]int32{math.MaxInt32, math.MinInt32})
		}
		if tc.op != numSubOp {
			huge = append(huge, [2]int32{math.MaxInt32, math.MaxInt32})
		}
		for _, e := range huge {
			if _, ok := tc.op.inline(types.NewNumericCoef(3, e[0]), types.NewNumericCoef(3, e[1])); ok {
				t.Errorf("%s: inline for exponents %d and %d", tc.name, e[0], e[1])
			}
		}
		// Most of the random pairs fit: the inline path must be taken
		// for + - *.
		if tc.op <= numMulOp && inline < total/3 {
			t.Errorf("%s: inline path taken for %d of %d pairs", tc.name, inline, total)
		}
	}
}

// TestNumericInlineExamples pins the display scales PostgreSQL gives and
// that the inline path is taken where the result fits.
func TestNumericInlineExamples(t *testing.T) {
	n := types.NewNumericCoef
	for _, tc := range []struct {
		op     numOp
		x, y   types.Datum
		want   string
		inline bool
	}{
		{numAddOp, n(150, -2), n(1, 0), "2.50", true},
		{numMulOp, n(15, -1), n(150, -2), "2.250", true},
		{numSubOp, n(1, 0), n(100, -2), "0.00", true},
		{numSubOp, n(0, 0), n(math.MinInt64, 0), "9223372036854775808", false},
		{numAddOp, n(math.MaxInt64, 0), n(1, 0), "9223372036854775808", false},
		{numMulOp, n(math.MinInt64, 0), n(-1, 0), "9223372036854775808", false},
		{numMulOp, n(math.MinInt64, 0), n(1, 0), "-9223372036854775808", true},
		{numAddOp, n(5, 2), n(1, -1), "500.1", true},
		{numMulOp, n(-5, 0), n(0, -3), "0.000", true},
		{numAddOp, n(1, 0), n(1, -18), "1.000000000000000001", true},
		{numAddOp, n(1, 0), n(1, -19), "1.0000000000000000001", false},
	} {
		d, ok := tc.op.inline(tc.x, tc.y)
		got, err := numBinary(tc.op)(nil, []types.Datum{tc.x, tc.y})
		if err != nil || ok != tc.inline || types.FormatText(got, numT, nil) != tc.want ||
			ok && types.FormatText(d, numT, nil) != tc.want {
			t.Errorf("op %d on %v, %v = %s (inline %v, %v), want %s (inline %v)", tc.op, tc.x, tc.y,
				types.FormatText(got, numT, nil), ok, err, tc.want, tc.inline)
		}
	}
}

func TestNumericInlineNeg(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 7))
	for _, abs := range []bool{false, true} {
		impl := numNeg(abs)
		for _, x := range numericsOf(r, 500) {
			ref := new(apd.Decimal)
			if abs {
				ref.Abs(x.Decimal())
			} else {
				ref.Neg(x.Decimal())
			}
			want, wantErr := numResult(ref)
			got, err := impl(nil, []types.Datum{x})
			sameNumeric(t, "neg/abs "+types.FormatText(x, numT, nil), got, err, want, wantErr)
		}
	}
}

// TestIntAvgInline compares avg of integers' inline result with the apd
// division over random and edge sums and counts, and feeds avgAcc int2,
// int4 and int8 inputs.
func TestIntAvgInline(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 13))
	sums := []int64{0, 1, -1, 2, 3, -3, 5, 9999, 10000, -10001, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, 1 << 40}
	counts := []int64{1, 2, 3, 6, 7, 9, 10, 9999, 10000, 10001, 1 << 20, 1e15, 1e16, 1e18, math.MaxInt64}
	for range 2000 {
		sums = append(sums, r.Int64N(tenTo(r.IntN(19)))*int64(1-2*r.IntN(2)))
		counts = append(counts, 1+r.Int64N(tenTo(r.IntN(19))))
	}
	inline := 0
	for i, s := range sums {
		for _, n := range counts[max(0, i-20) : i+1] {
			var sum int128.Int
			sum.AddMul(s, 1)
			want, wantErr := numAvg(sum.Decimal(), n)
			what := "avg sum " + types.FormatText(types.NewInt8(s), int8T, nil) + " n " + types.FormatText(types.NewInt8(n), int8T, nil)
			if d, ok := intAvg(sum, n); ok {
				inline++
				sameNumeric(t, what, d, nil, want, wantErr)
			}
		}
	}
	if inline < len(sums) {
		t.Errorf("inline avg for %d of about %d sums", inline, 20*len(sums))
	}
	// A sum beyond int64 takes apd.
	var big int128.Int
	big.AddMul(math.MaxInt64, 3)
	if _, ok := intAvg(big, 3); ok {
		t.Errorf("intAvg of a 128-bit sum is inline")
	}

	for _, k := range []types.Family{types.Int2, types.Int4, types.Int8} {
		acc := &avgAcc{kind: k, ints: intSumAcc{numeric: true}}
		for i := range 200 {
			v := r.Int64N(60000) - 30000
			var d types.Datum
			switch k {
			case types.Int2:
				d = types.NewInt2(int16(v))
			case types.Int4:
				d = types.NewInt4(int32(v) * 1000)
			default:
				d = types.NewInt8(v * 1e12)
			}
			diff := int64(1)
			if i%5 == 4 {
				diff = -1
			}
			if err := acc.add([]types.Datum{d}, diff); err != nil {
				t.Fatal(err)
			}
			if acc.ints.n <= 0 {
				continue
			}
			got, err := acc.result()
			want, wantErr := numAvg(acc.ints.sum.Decimal(), acc.ints.n)
			sameNumeric(t, "avg", got, err, want, wantErr)
		}
	}
	if got, _ := (&avgAcc{kind: types.Int4, ints: intSumAcc{sum: int128.Int{Lo: 3}, n: 2}}).result(); types.FormatText(got, numT, nil) != "1.5000000000000000" {
		t.Errorf("avg(1, 2) = %s", types.FormatText(got, numT, nil))
	}
}

// TestNumSumForms sums the same values held inline and as apd decimals,
// with retractions, and requires the same results.
func TestNumSumForms(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 17))
	var inl, dec numSumAcc
	for i := range 500 {
		x := randomInline(r)
		if c, e, _ := x.NumericCoef(); e < -25 || c == 0 && i%2 == 0 {
			continue
		}
		diff := int64(1 + r.IntN(3))
		if i%4 == 3 {
			diff = -diff
		}
		if err := inl.add([]types.Datum{x}, diff); err != nil {
			t.Fatal(err)
		}
		if err := dec.add([]types.Datum{types.NewNumeric(x.Decimal())}, diff); err != nil {
			t.Fatal(err)
		}
		got, err := inl.result()
		want, wantErr := dec.result()
		if got.IsNull() || want.IsNull() {
			if got.IsNull() != want.IsNull() || inl.n > 0 {
				t.Fatalf("sum after %d rows: inline inputs %v, apd inputs %v", i, got, want)
			}
			continue
		}
		sameNumeric(t, "sum of both forms", got, err, want, wantErr)
		// The result is numResult's, inline when it fits.
		want, wantErr = numResult(dec.sum.value())
		sameNumeric(t, "sum", got, err, want, wantErr)
	}
}

// TestNumericInlineAllocs pins that the per-row numeric paths allocate
// nothing for inline values.
func TestNumericInlineAllocs(t *testing.T) {
	x, y := types.NewNumericCoef(12345, -2), types.NewNumericCoef(-678, -1)
	add, mul, neg := numBinary(numAddOp), numBinary(numMulOp), numNeg(false)
	sum := &numSumAcc{}
	avg := &avgAcc{kind: types.Int8, ints: intSumAcc{sum: int128.Int{Lo: 7001}, n: 10, numeric: true}}
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"+", func() { _, _ = add(nil, []types.Datum{x, y}) }},
		{"*", func() { _, _ = mul(nil, []types.Datum{x, y}) }},
		{"unary -", func() { _, _ = neg(nil, []types.Datum{x}) }},
		{"sum add", func() { _ = sum.add([]types.Datum{x}, 1) }},
		{"sum result", func() { _, _ = sum.result() }},
		{"avg result", func() { _, _ = avg.result() }},
	} {
		if n := testing.AllocsPerRun(100, tc.f); n != 0 {
			t.Errorf("%s: %v allocations per run", tc.name, n)
		}
	}
}
