package scalar

import (
	"testing"

	"github.com/streamdb/streamdb/types"
)

// TestExtremeMatchesMultiset feeds the same insertions to min and max
// built for an append-only input (extremeState) and for any input (the
// multiset), with a FILTER, NULLs, equal values of different
// representations (numeric 1.0 and 1.00: min keeps the form of the least
// exact encoding, max of the greatest) and text;
// after every row both must give the same value, representation
// included.
func TestExtremeMatchesMultiset(t *testing.T) {
	col := func(_ *EvalContext, row types.Row) (types.Datum, error) { return row[0], nil }
	notNeg := func(_ *EvalContext, row types.Row) (bool, error) {
		return row[0].IsNull() || row[0].Kind() != types.Int8 || row[0].Int() >= 0, nil
	}
	for _, tc := range []struct {
		name string
		typ  types.Type
		rows []types.Datum
	}{
		{"int8", int8T, []types.Datum{types.Null, types.NewInt8(5), types.NewInt8(-7), types.NewInt8(9), types.NewInt8(5), types.NewInt8(12), types.Null}},
		{"numeric", numT, []types.Datum{mustNum(t, "1.0"), mustNum(t, "1.00"), mustNum(t, "0.5"), mustNum(t, "2"), mustNum(t, "2.000"), mustNum(t, "0.50")}},
		{"text", textT, []types.Datum{types.NewText("m"), types.NewText("Z"), types.NewText(""), types.NewText("mm"), types.NewText("a")}},
	} {
		for _, name := range []string{"min", "max"} {
			f, _, err := ResolveAggregate(name, ts(tc.typ), false)
			if err != nil {
				t.Fatal(err)
			}
			spec := AggSpec{Args: []Evaluator{col}, Filter: notNeg}
			general, _ := f.Build(spec)
			spec.AppendOnly = true
			extreme, _ := f.Build(spec)
			if _, ok := extreme.(extremeAgg); !ok {
				t.Fatalf("%s over an append-only input built %T", name, extreme)
			}
			g, e := general.NewState(), extreme.NewState()
			for i, d := range tc.rows {
				row := types.Row{d}
				if err := g.Update(row, 1); err != nil {
					t.Fatal(err)
				}
				if err := e.Update(row, 1); err != nil {
					t.Fatal(err)
				}
				want, _ := g.Result()
				got, _ := e.Result()
				if !sameDatum(got, want) || types.FormatText(got, tc.typ, nil) != types.FormatText(want, tc.typ, nil) {
					t.Errorf("%s %s after row %d: %s, want %s", tc.name, name, i, show(got, tc.typ), show(want, tc.typ))
				}
				// Persisted and restored, the state goes on alike.
				e = restoreState(t, extreme, e, nil)
				if back, _ := e.Result(); types.FormatText(back, tc.typ, nil) != types.FormatText(got, tc.typ, nil) {
					t.Errorf("%s %s after row %d: restored %s, want %s", tc.name, name, i, show(back, tc.typ), show(got, tc.typ))
				}
			}
			if err := e.Update(types.Row{tc.rows[1]}, -1); err == nil {
				t.Errorf("%s %s: a retraction was accepted", tc.name, name)
			}
		}
	}
}
