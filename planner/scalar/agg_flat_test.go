package scalar

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/sql/pgerr"
	"github.com/streamdb/streamdb/sql/types"
)

// TestFlatAggregateMatchesState feeds each aggregate that has a flat form
// the same random insertions and retractions (NULLs, a FILTER, results
// and sums that overflow, the argument read as an input column or by its
// evaluator) as words and as an AggState, and compares every AddAll's error
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
						t.Fatalf("%s(%v) trial %d step %d: Update %v, AddAll %v", tc.agg, tc.arg, trial, step, errState, errFlat)
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

// addOne adds u to words by AddAll, in a delta of u among rows of other
// groups and rows to skip, with the aggregate's words at an offset in
// each group's, and returns u's error.
func addOne(flat dataflow.FlatAggregate, words []int64, u dataflow.Update, rng *rand.Rand) error {
	n, off := flat.Words(), rng.IntN(3)
	group := make([]int64, off+n)
	copy(group[off:], words)
	delta := dataflow.Batch{u}
	base := []*int64{&group[0]}
	for range rng.IntN(3) {
		other := make([]int64, off+n)
		i := rng.IntN(len(delta) + 1)
		delta = slices.Insert(delta, i, dataflow.Update{Row: u.Row, Diff: 1})
		base = slices.Insert(base, i, &other[0])
		if rng.IntN(2) == 0 {
			base[i] = nil
		}
	}
	var err error
	flat.AddAll(delta, dataflow.NewGroupWords(base, off, n), func(i int, e error) {
		if base[i] == &group[0] {
			err = e
		}
	})
	copy(words, group[off:])
	return err
}

// TestFlatAggregateOnlyWhenFlat checks the aggregates whose accumulators
// need more than words keep their AggStates.
func TestFlatAggregateOnlyWhenFlat(t *testing.T) {
	arg := []Evaluator{func(_ *EvalContext, row types.Row) (types.Datum, error) { return row[0], nil }}
	for _, tc := range []struct {
		agg      string
		arg      types.Type
		distinct bool
	}{{"count", int4T, true}, {"sum", numT, false}, {"sum", f8, false}, {"avg", numT, false}, {"min", int4T, false}, {"variance", int4T, false}} {
		f, params, err := ResolveAggregate(tc.agg, ts(tc.arg), tc.distinct)
		if err != nil {
			t.Fatal(err)
		}
		spec := AggSpec{Eval: &EvalContext{}, Distinct: tc.distinct}
		for range params {
			spec.Args = append(spec.Args, arg[0])
		}
		agg, err := f.Build(spec)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := agg.(dataflow.FlatAggregate); ok {
			t.Errorf("%s(%v distinct=%v) is flat", tc.agg, tc.arg, tc.distinct)
		}
	}
}
