package planner

import (
	"testing"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// TestSingleValuePersists checks that a scalar subquery's state, persisted
// element by element and restored at every step, gives the same value or
// error as the state that stayed, through insertions and retractions.
func TestSingleValuePersists(t *testing.T) {
	agg := singleValue{col: 0}
	kept := agg.NewState()
	es := kept.(dataflow.ElementState)
	es.TrackElements()
	elems := map[string]int64{}
	row := func(v int64) types.Row { return types.Row{types.NewInt8(v)} }
	for i, u := range []struct {
		v, diff int64
	}{{1, 1}, {2, 1}, {1, -1}, {2, 1}, {2, -2}, {3, 1}, {3, 1}, {3, -1}} {
		if err := kept.Update(row(u.v), u.diff); err != nil {
			t.Fatal(err)
		}
		es.DrainElements(func(key []byte, n int64, _ []byte) {
			if n == 0 {
				delete(elems, string(key))
				return
			}
			elems[string(key)] = n
		})
		restored := agg.NewState().(dataflow.ElementState)
		if err := restored.LoadState(es.AppendState(nil)); err != nil {
			t.Fatal(err)
		}
		for k, n := range elems {
			if err := restored.LoadElement([]byte(k), n, nil); err != nil {
				t.Fatal(err)
			}
		}
		want, werr := kept.Result()
		got, gerr := restored.Result()
		if pgerr.CodeOf(werr) != pgerr.CodeOf(gerr) || types.Compare(want, got) != 0 || want.IsNull() != got.IsNull() {
			t.Fatalf("step %d: restored %v (%v), kept %v (%v)", i, got, gerr, want, werr)
		}
	}
}
