package scalar

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// TestFlatAggregateMatchesState feeds each aggregate that has a flat form
// the same random insertions and retractions (NULLs, a FILTER, results
// and sums that overflow, the argument read as an input column or by its
// evaluator) as words and as an AggState, and compares every addition's error
// and every result: the two forms of one aggregate must not differ.
func TestFlatAggregateMatchesState(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	ints := func(t types.Type) func() types.Datum {
		return func() types.Datum {
			v := int64(rng.IntN(40) - 10)
			switch t.Family {
			case types.Int2:
				return types.NewInt2(int16(v))
			case types.Int4:
				return types.NewInt4(int32(v))
			}
			if rng.IntN(6) == 0 {
				v = math.MaxInt64 - v // sums overflow int8 and then 128 bits
			}
			return types.NewInt8(v)
		}
	}
	bools := func() types.Datum { return types.NewBool(rng.IntN(4) > 0) }
	for _, tc := range []struct {
		agg    string
		arg    []types.Type
		values func() types.Datum
	}{
		{"count", nil, ints(int4T)}, {"count", ts(int4T), ints(int4T)},
		{"sum", ts(types.TypeInt2), ints(types.TypeInt2)}, {"sum", ts(int4T), ints(int4T)}, {"sum", ts(int8T), ints(int8T)},
		{"avg", ts(types.TypeInt2), ints(types.TypeInt2)}, {"avg", ts(int4T), ints(int4T)}, {"avg", ts(int8T), ints(int8T)},
		{"bool_and", ts(boolT), bools}, {"bool_or", ts(boolT), bools},
	} {
		for variant := range 6 {
			// With a FILTER or not, and with the argument read by its
			// evaluator, as the input column it is (AggSpec.ArgCols), or
			// by its evaluator for a column past the rows' end.
			filtered, byColumn := variant&1 != 0, variant>>1
			argCol := []int{0, 0, 5}[byColumn]
			f, _, err := ResolveAggregate(tc.agg, tc.arg, false)
			if err != nil {
				t.Fatal(err)
			}
			spec := AggSpec{Eval: &EvalContext{}}
			if tc.arg != nil {
				spec.Args = []Evaluator{func(_ *EvalContext, row types.Row) (types.Datum, error) { return row[0], nil }}
				if byColumn > 0 {
					spec.ArgCols = []int{argCol}
				}
			}
			if filtered {
				spec.Filter = func(_ *EvalContext, row types.Row) (bool, error) { return row[1].Bool(), nil }
			}
			agg, err := f.Build(spec)
			if err != nil {
				t.Fatal(err)
			}
			flat, ok := agg.(dataflow.FlatAggregate)
			if !ok {
				t.Fatalf("%s(%v) has no flat form", tc.agg, tc.arg)
			}
			for trial := range 20 {
				st, words := flat.NewState(), make([]int64, flat.Words())
				var pool []dataflow.Update
				for step := range 50 {
					u := dataflow.Update{Row: types.Row{tc.values(), types.NewBool(rng.IntN(3) > 0)}, Diff: 1}
					if rng.IntN(8) == 0 {
						u.Row[0] = types.Null
					}
					if rng.IntN(10) == 0 {
						u.Diff = math.MaxInt64 // a weight that overflows 128-bit sums
					}
					if len(pool) > 0 && rng.IntN(3) == 0 {
						i := rng.IntN(len(pool))
						u = dataflow.Update{Row: pool[i].Row, Diff: -pool[i].Diff}
						pool = append(pool[:i], pool[i+1:]...)
					}
					errState, errFlat := st.Update(u.Row, u.Diff), addOne(flat, words, u, rng)
					if pgerr.CodeOf(errState) != pgerr.CodeOf(errFlat) {
						t.Fatalf("%s(%v) trial %d step %d: Update %v, flat %v", tc.agg, tc.arg, trial, step, errState, errFlat)
					}
					if errState == nil && u.Diff > 0 {
						pool = append(pool, u)
					}
					want, err1 := st.Result()
					got, err2 := flat.Result(words)
					if err2 != nil && !flat.Fallible() {
						t.Fatalf("%s(%v) trial %d step %d: Result failed (%v) but Fallible is false", tc.agg, tc.arg, trial, step, err2)
					}
					if pgerr.CodeOf(err1) != pgerr.CodeOf(err2) || err1 == nil && (!sameDatum(got, want) || got.Kind() != want.Kind()) {
						t.Fatalf("%s(%v) trial %d step %d: flat %v (%v), state %v (%v)", tc.agg, tc.arg, trial, step,
							show(got, f.Ret), err2, show(want, f.Ret), err1)
					}
				}
			}
		}
	}
}

// addOne adds u to words by the aggregate's Add or, at random when it has
// one, by its inline addition (what Reduce performs), and returns u's
// error.
func addOne(flat dataflow.FlatAggregate, words []int64, u dataflow.Update, rng *rand.Rand) error {
	if op, ok := flat.Inline(); ok && rng.IntN(2) == 0 {
		if done, err := op.Add(words, u.Row, u.Diff); done {
			return err
		}
	}
	return flat.Add(words, u.Row, u.Diff)
}
