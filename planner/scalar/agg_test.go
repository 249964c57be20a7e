package scalar

import (
	"math/rand/v2"
	"testing"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// TestAggIncremental is the aggregates' defining property: after any
// sequence of insertions and retractions, a state's result equals that of
// a fresh state fed the surviving multiset once.
func TestAggIncremental(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	values := map[string]func() types.Datum{
		"int":     func() types.Datum { return types.NewInt4(int32(r.IntN(20) - 5)) },
		"numeric": func() types.Datum { return mustNum(t, []string{"1.5", "2.25", "-3", "0.001", "7"}[r.IntN(5)]) },
		"float8":  func() types.Datum { return types.NewFloat8([]float64{0.1, 1e20, -1e20, 3.5, 2}[r.IntN(5)]) },
		"text":    func() types.Datum { return types.NewText([]string{"a", "b", "c", "dd"}[r.IntN(4)]) },
		// forms holds equal numerics written differently, which a
		// DISTINCT aggregate counts once whatever the order they come in.
		"forms": func() types.Datum { return mustNum(t, []string{"1.5", "1.50", "1.500", "7", "7.0", "-3"}[r.IntN(6)]) },
	}
	typeOf := map[string]types.Type{"int": int4T, "numeric": numT, "float8": f8, "text": textT, "forms": numT}
	cases := []struct {
		agg      string
		typ      string
		distinct bool
		order    bool
	}{
		{"count", "int", false, false}, {"count", "int", true, false}, {"sum", "int", false, false},
		{"sum", "int", true, false}, {"sum", "numeric", false, false}, {"sum", "float8", false, false},
		{"avg", "int", false, false}, {"avg", "numeric", false, false}, {"avg", "float8", false, false},
		{"min", "int", false, false}, {"max", "int", false, false}, {"min", "text", false, false},
		{"max", "numeric", false, false}, {"string_agg", "text", false, true}, {"string_agg", "text", true, true},
		{"array_agg", "int", false, true}, {"jsonb_agg", "numeric", false, true}, {"variance", "int", false, false},
		{"stddev", "numeric", false, false}, {"var_pop", "float8", false, false}, {"bit_or", "int", false, false},
		{"bool_and", "int", false, false}, {"sum", "forms", true, false}, {"avg", "forms", true, false},
		{"count", "forms", true, false}, {"min", "forms", false, false}, {"max", "forms", false, false},
		{"max", "forms", true, false}, {"array_agg", "forms", false, true}, {"array_agg", "forms", true, true},
		{"jsonb_agg", "forms", false, true},
	}
	for _, tc := range cases {
		typ := typeOf[tc.typ]
		argT := ts(typ)
		if tc.agg == "string_agg" {
			argT = ts(typ, textT)
		}
		if tc.agg == "bool_and" {
			argT, typ = ts(boolT), boolT
		}
		f, _, err := ResolveAggregate(tc.agg, argT, tc.distinct)
		if err != nil {
			t.Fatalf("%s(%v): %v", tc.agg, argT, err)
		}
		spec := AggSpec{Distinct: tc.distinct, Eval: &EvalContext{}}
		spec.Args = append(spec.Args, func(_ *EvalContext, row types.Row) (types.Datum, error) { return row[0], nil })
		if len(argT) > 1 {
			spec.Args = append(spec.Args, func(*EvalContext, types.Row) (types.Datum, error) { return types.NewText(","), nil })
		}
		if tc.order {
			spec.Order = []AggOrder{{Eval: func(_ *EvalContext, row types.Row) (types.Datum, error) { return row[0], nil }, Desc: true}}
		}
		agg, err := f.Build(spec)
		if err != nil {
			t.Fatal(err)
		}
		for trial := 0; trial < 20; trial++ {
			live := map[int]types.Row{}
			counts := map[int]int64{}
			var pool []types.Row
			s := agg.NewState()
			elems := trackElements(s)
			for step := 0; step < 60; step++ {
				drainElements(s, elems)
				if len(pool) == 0 || r.IntN(3) > 0 {
					v := values[tc.typ]()
					if tc.agg == "bool_and" {
						v = types.NewBool(r.IntN(4) > 0)
					}
					if r.IntN(8) == 0 {
						v = types.Null
					}
					pool = append(pool, types.Row{v})
					i := len(pool) - 1
					live[i] = pool[i]
					counts[i]++
					if err := s.Update(pool[i], 1); err != nil {
						t.Fatal(err)
					}
					continue
				}
				i := r.IntN(len(pool))
				if counts[i] == 0 {
					continue
				}
				counts[i]--
				if err := s.Update(pool[i], -1); err != nil {
					t.Fatal(err)
				}
			}
			fresh := agg.NewState()
			for i, row := range live {
				if counts[i] > 0 {
					if err := fresh.Update(row, counts[i]); err != nil {
						t.Fatal(err)
					}
				}
			}
			got, err1 := s.Result()
			want, err2 := fresh.Result()
			if pgerr.CodeOf(err1) != pgerr.CodeOf(err2) || err1 == nil && !sameDatum(got, want) {
				t.Fatalf("%s(%s distinct=%v): incremental %v (%v), recomputed %v (%v)", tc.agg, tc.typ, tc.distinct,
					show(got, typ), err1, show(want, typ), err2)
			}
			drainElements(s, elems)
			restored := restoreState(t, agg, s, elems)
			// Both must go on alike: retracting every row empties both.
			for i, row := range live {
				for _, st := range []dataflow.AggState{s, restored} {
					if counts[i] > 0 {
						if err := st.Update(row, -counts[i]); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			got, err1 = s.Result()
			back, err3 := restored.Result()
			if pgerr.CodeOf(err1) != pgerr.CodeOf(err3) || err1 == nil && !sameDatum(got, back) {
				t.Fatalf("%s(%s distinct=%v): restored %v (%v), kept %v (%v)", tc.agg, tc.typ, tc.distinct,
					show(back, typ), err3, show(got, typ), err1)
			}
		}
	}
}

// element is a persisted element of an ElementState.
type element struct {
	n       int64
	payload string
}

// trackElements starts tracking the elements of s, if it has any, and
// returns the map that drainElements keeps as their persisted state.
func trackElements(s dataflow.AggState) map[string]element {
	if es, ok := s.(dataflow.ElementState); ok {
		es.TrackElements()
	}
	return map[string]element{}
}

// drainElements applies the elements s changed to elems.
func drainElements(s dataflow.AggState, elems map[string]element) {
	es, ok := s.(dataflow.ElementState)
	if !ok {
		return
	}
	es.DrainElements(func(key []byte, n int64, payload []byte) {
		if n == 0 {
			delete(elems, string(key))
			return
		}
		elems[string(key)] = element{n, string(payload)}
	})
}

// restoreState persists s as a Reduce would and loads it into a fresh
// state of agg.
func restoreState(t *testing.T, agg dataflow.Aggregate, s dataflow.AggState, elems map[string]element) dataflow.AggState {
	t.Helper()
	ps, ok := s.(dataflow.PersistentState)
	if !ok {
		t.Fatalf("%T cannot be persisted", s)
	}
	fresh := agg.NewState().(dataflow.PersistentState)
	if err := fresh.LoadState(ps.AppendState(nil)); err != nil {
		t.Fatal(err)
	}
	for k, e := range elems {
		if err := fresh.(dataflow.ElementState).LoadElement([]byte(k), e.n, []byte(e.payload)); err != nil {
			t.Fatal(err)
		}
	}
	return fresh
}

func sameDatum(a, b types.Datum) bool {
	if a.IsNull() || b.IsNull() {
		return a.IsNull() == b.IsNull()
	}
	return types.FormatText(a, types.Type{Family: a.Kind(), Mod: -1}, nil) == types.FormatText(b, types.Type{Family: b.Kind(), Mod: -1}, nil)
}

func show(d types.Datum, t types.Type) string {
	if d.IsNull() {
		return "NULL"
	}
	return types.FormatText(d, t, nil)
}

func mustNum(t *testing.T, s string) types.Datum {
	d, err := types.ParseText(s, numT, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestAggFilterAndEmpty(t *testing.T) {
	f, _, err := ResolveAggregate("count", nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if f.Empty().Int() != 0 {
		t.Error("count over no rows is 0")
	}
	s, _, _ := ResolveAggregate("sum", ts(int4T), false)
	if !s.Empty().IsNull() {
		t.Error("sum over no rows is NULL")
	}
	agg, err := f.Build(AggSpec{Filter: func(_ *EvalContext, row types.Row) (bool, error) {
		return row[0].Int() > 1, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	st := agg.NewState()
	for _, v := range []int32{1, 2, 3} {
		st.Update(types.Row{types.NewInt4(v)}, 1)
	}
	if d, _ := st.Result(); d.Int() != 2 {
		t.Errorf("count(*) FILTER (WHERE x > 1) = %v", d.Int())
	}
	if _, err := f.Build(AggSpec{Args: []Evaluator{nil}}); err == nil {
		t.Error("arity mismatch accepted")
	}
}

// TestAggUpdateErrorLeavesState checks the dataflow contract: a failing
// Update changes nothing, so its retraction can fail the same way.
func TestAggUpdateErrorLeavesState(t *testing.T) {
	f, _, err := ResolveAggregate("sum", ts(int8T), false)
	if err != nil {
		t.Fatal(err)
	}
	boom := pgerr.New(pgerr.DivisionByZero, "division by zero")
	agg, _ := f.Build(AggSpec{Args: []Evaluator{func(_ *EvalContext, row types.Row) (types.Datum, error) {
		if row[0].Int() == 0 {
			return types.Null, boom
		}
		return row[0], nil
	}}})
	s := agg.NewState()
	s.Update(types.Row{types.NewInt8(5)}, 1)
	if err := s.Update(types.Row{types.NewInt8(0)}, 1); err != boom {
		t.Fatalf("got %v", err)
	}
	if d, _ := s.Result(); types.FormatText(d, numT, nil) != "5" {
		t.Errorf("state changed by a failed update: %v", d)
	}
}
