package scalar

import (
	"testing"

	"github.com/streamdb/streamdb/types"
)

// BenchmarkNumericArith applies numeric + * and / to inline values, the
// form the decoder and parsers produce for common numerics.
func BenchmarkNumericArith(b *testing.B) {
	args := []types.Datum{types.NewNumericCoef(12345, -2), types.NewNumericCoef(-678, -1)}
	for _, op := range []string{"+", "*", "/"} {
		b.Run("op="+op, func(b *testing.B) {
			f, _, err := ResolveBinaryOp(op, numT, numT)
			if err != nil {
				b.Fatal(err)
			}
			ctx := &EvalContext{}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := f.Impl(ctx, args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNumericAgg measures a sum(numeric) row and a sum(numeric) and
// avg(int8) result, the per-row and per-group-and-tick costs of the
// numeric aggregates.
func BenchmarkNumericAgg(b *testing.B) {
	b.Run("sum=numeric/add", func(b *testing.B) {
		acc := &numSumAcc{}
		args := []types.Datum{types.NewNumericCoef(1999, -2)}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := acc.add(args, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sum=numeric/result", func(b *testing.B) {
		acc := &numSumAcc{}
		for v := int64(1); v <= 7; v++ {
			if err := acc.add([]types.Datum{types.NewNumericCoef(v*1999, -2)}, 1); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := acc.result(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("avg=int8/result", func(b *testing.B) {
		acc := &avgAcc{kind: types.Int8, ints: intSumAcc{numeric: true}}
		for v := int64(1); v <= 7; v++ {
			if err := acc.add([]types.Datum{types.NewInt8(v * 1000003)}, 1); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := acc.result(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
