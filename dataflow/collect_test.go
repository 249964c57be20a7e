package dataflow

import (
	"context"
	"strings"
	"testing"
)

// TestCollectRows checks that CollectRows keeps a delta without
// retractions as it arrived (duplicates and order included) and
// consolidates one with retractions, which may cancel, as Collect always
// does.
func TestCollectRows(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"inserts", "+(3) +(1) +(3) +2(2)", "+(3) +(1) +(3) +2(2)"},
		{"retraction cancels", "+(3) +(1) -(3) +(2)", "+(1) +(2)"},
		{"retraction of a duplicate", "+(3) +(3) -(3)", "+(3)"},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGraph()
			in := g.Input()
			rows, all := g.CollectRows(in.Node()), g.Collect(in.Node())
			in.Push(parseBatch(tc.in))
			if err := g.Step(context.Background()); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, u := range rows.Delta() {
				got = append(got, fmtUpdate(u))
			}
			if s := strings.Join(got, " "); s != tc.want {
				t.Errorf("CollectRows = %s, want %s", s, tc.want)
			}
			if fmtBatch(rows.Delta()) != fmtBatch(all.Delta()) {
				t.Errorf("CollectRows holds %s, Collect %s: different Z-sets", fmtBatch(rows.Delta()), fmtBatch(all.Delta()))
			}
		})
	}
}
