package scalar

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// benchRows builds n rows of (int8, text, float8, int4).
func benchRows(n int) []types.Row {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"apple", "banana", "avocado", "cherry", "apricot"}
	rows := make([]types.Row, n)
	for i := range rows {
		rows[i] = types.Row{
			types.NewInt8(r.Int64N(1000)),
			types.NewText(words[r.IntN(len(words))] + strconv.Itoa(i%10)),
			types.NewFloat8(r.Float64()),
			types.NewInt4(int32(r.IntN(100))),
		}
	}
	return rows
}

const benchN = 1_000_000

func BenchmarkPredicate(b *testing.B) {
	benchPredicate(b, &And{Args: []Expr{
		call(b, ">", col(0, int8T), NewConst(types.NewInt8(100), int8T)),
		call(b, "~~", col(1, textT), NewConst(types.NewText("a%"), textT)),
		call(b, "<", col(2, f8), NewConst(types.NewFloat8(0.5), f8)),
	}})
}

// BenchmarkPredicateModulo is Nexmark q2's filter, auction % 123 = 0 on
// an int8 column: the int4 constant widened to int8, a call on a column
// and a constant under a comparison with a constant.
func BenchmarkPredicateModulo(b *testing.B) {
	benchPredicate(b, call(b, "=", call(b, "%", col(0, int8T), NewConst(types.NewInt4(123), int4T)), NewConst(types.NewInt4(0), int4T)))
}

// benchPredicate evaluates pred compiled over benchN rows per iteration.
func benchPredicate(b *testing.B, pred Expr) {
	rows := benchRows(benchN)
	p, err := CompilePredicate(pred)
	if err != nil {
		b.Fatal(err)
	}
	ctx := &EvalContext{}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, r := range rows {
			_, _ = p(ctx, r)
		}
	}
	b.ReportMetric(float64(b.N)*benchN/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkProjection(b *testing.B) {
	rows := benchRows(benchN)
	exprs := []Expr{
		call(b, "/", call(b, "+", call(b, "*", col(0, int8T), NewConst(types.NewInt8(2), int8T)), &Cast{Arg: col(3, int4T), To: int8T}), NewConst(types.NewInt8(3), int8T)),
		call(b, "*", col(2, f8), NewConst(types.NewFloat8(1.5), f8)),
		&Case{Whens: []When{{Cond: call(b, ">", col(3, int4T), NewConst(types.NewInt4(50), int4T)), Result: col(0, int8T)}}, Else: NullOf(int8T), Typ: int8T},
	}
	evs := make([]Evaluator, len(exprs))
	for i, e := range exprs {
		ev, err := Compile(e)
		if err != nil {
			b.Fatal(err)
		}
		evs[i] = ev
	}
	out := make(types.Row, len(evs))
	ctx := &EvalContext{}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, r := range rows {
			for j, ev := range evs {
				out[j], _ = ev(ctx, r)
			}
		}
	}
	b.ReportMetric(float64(b.N)*benchN/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkAggUpdate(b *testing.B) {
	rows := benchRows(100_000)
	for _, tc := range []struct {
		name string
		agg  string
		arg  Expr
	}{
		{"count", "count", nil},
		{"sum_int8", "sum", col(0, int8T)},
		{"avg_int4", "avg", col(3, int4T)},
		{"sum_float8", "sum", col(2, f8)},
		{"min_int8", "min", col(0, int8T)},
		{"stddev_int4", "stddev", col(3, int4T)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var argT []types.Type
			spec := AggSpec{Eval: &EvalContext{}}
			if tc.arg != nil {
				argT = ts(tc.arg.Type())
				ev, _ := Compile(tc.arg)
				spec.Args = []Evaluator{ev}
			}
			f, _, err := ResolveAggregate(tc.agg, argT, false)
			if err != nil {
				b.Fatal(err)
			}
			agg, err := f.Build(spec)
			if err != nil {
				b.Fatal(err)
			}
			s := agg.NewState()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r := rows[i%len(rows)]
				diff := int64(1)
				if i%3 == 2 {
					diff = -1
				}
				if err := s.Update(r, diff); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "updates/s")
		})
	}
}
