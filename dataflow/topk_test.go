package dataflow

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/streamdb/streamdb/types"
)

func TestTopK(t *testing.T) {
	byX := func(a, b types.Row) int { return types.Compare(a[0], b[0]) }
	byXDesc := func(a, b types.Row) int { return -types.Compare(a[0], b[0]) }
	topk := func(spec TopKSpec) func(g *Graph, in []Node) Node {
		return func(g *Graph, in []Node) Node { return g.TopK(in[0], spec) }
	}
	for _, tc := range []traceCase{{
		name:  "doc",
		build: topk(TopKSpec{Compare: byX, Limit: 2}),
		ticks: [][]string{{"+(3) +(1) +(2)"}, {"+(0)"}, {"-(1)"}},
		want:  []string{"+(1) +(2)", "+(0) -(2)", "-(1) +(2)"},
	}, {
		name:  "multiplicities count toward the limit",
		build: topk(TopKSpec{Compare: byX, Limit: 3}),
		ticks: [][]string{{"+2(5) +4(7)"}, {"-(5)"}, {"+3(1)"}},
		want:  []string{"+2(5) +(7)", "-(5) +(7)", "-(5) -2(7) +3(1)"},
	}, {
		name:  "offset and limit",
		build: topk(TopKSpec{Compare: byX, Offset: 1, Limit: 2}),
		ticks: [][]string{{"+(1) +(2) +(3) +(4)"}, {"-(1)"}, {"+(9)"}},
		want:  []string{"+(2) +(3)", "-(2) +(4)", ""},
	}, {
		name:  "offset without limit",
		build: topk(TopKSpec{Compare: byX, Offset: 2, Limit: -1}),
		ticks: [][]string{{"+(1) +(2) +(3) +(4)"}, {"-(1) +(9)"}, {"+(0)"}},
		want:  []string{"+(3) +(4)", "-(3) +(9)", "+(3)"},
	}, {
		name:  "limit 0",
		build: topk(TopKSpec{Compare: byX, Limit: 0}),
		ticks: [][]string{{"+(1)"}},
		want:  []string{""},
	}, {
		name:  "no order, no limit",
		build: topk(TopKSpec{Limit: -1}),
		ticks: [][]string{{"+(1) +(2)"}, {"-(1)"}},
		want:  []string{"+(1) +(2)", "-(1)"},
	}, {
		name:  "per group, descending, ties broken by row",
		build: topk(TopKSpec{Group: col(0), Compare: func(a, b types.Row) int { return byXDesc(a[1:], b[1:]) }, Limit: 1}),
		ticks: [][]string{{"+(a, 1, z) +(a, 3, y) +(a, 3, x) +(b, 2, w)"}, {"-(a, 3, x)"}, {"-(b, 2, w)"}},
		want:  []string{"+(a, 3, x) +(b, 2, w)", "-(a, 3, x) +(a, 3, y)", "-(b, 2, w)"},
	}, {
		name:  "change after a full window emits nothing",
		build: topk(TopKSpec{Compare: byX, Limit: 2}),
		ticks: [][]string{{"+(1) +(2) +(3)"}, {"+(5) -(3)"}, {"+(2)"}},
		want:  []string{"+(1) +(2)", "", "-(2) +(2)"},
	}} {
		runTrace(t, tc)
	}
}

// TestTopKLargeGroups checks TopK against recomputation on groups large
// enough that the head spills into the rest and is refilled from it:
// random churn with duplicates, a queue (deletions at the front, which
// drain the head), a descending feed (every insertion a new first row),
// deletions of absent rows (negative multiplicities) and a large first
// tick.
func TestTopKLargeGroups(t *testing.T) {
	byX := func(a, b types.Row) int { return types.Compare(a[1], b[1]) }
	specs := []struct {
		name          string
		offset, limit int64
	}{{"limit", 0, 3}, {"offset+limit", 2, 5}, {"offset only", 4, -1}, {"limit 0", 0, 0}, {"wide", 0, 150}}
	workloads := []string{"random", "queue", "descending", "absent", "bulk"}
	for _, mode := range []string{"compare", "sortkey"} {
		for _, sp := range specs {
			for _, wl := range workloads {
				if sp.limit < 0 && wl == "absent" {
					// Without a limit the output passes changes through,
					// deletions of absent rows too; the reference
					// drops them.
					continue
				}
				t.Run(mode+"/"+sp.name+"/"+wl, func(t *testing.T) {
					spec := TopKSpec{Group: col(0), Offset: sp.offset, Limit: sp.limit}
					if mode == "sortkey" {
						spec.SortKey = ColumnSortKey([]SortColumn{{Col: 1}})
					} else {
						spec.Compare = byX
					}
					checkTopKWorkload(t, spec, byX, wl)
				})
			}
		}
	}
}

func checkTopKWorkload(t *testing.T, spec TopKSpec, cmp func(a, b types.Row) int, workload string) {
	rng := rand.New(rand.NewPCG(7, uint64(len(workload))))
	g := NewGraph()
	in := g.Input()
	out := g.Output(g.TopK(in.Node(), spec))
	var acc Batch
	live := map[string]Update{} // rows with positive multiplicity
	next := int64(0)
	row := func(grp, x int64) types.Row { return int8Row(grp, x, rng.Int64N(2)) }
	for tick := 0; tick < 80; tick++ {
		var batch Batch
		n := 1 + rng.IntN(60)
		if workload == "bulk" && tick == 0 {
			n = 1500 // one large tick, as a view's first is
		}
		for range n {
			grp := rng.Int64N(2)
			var u Update
			switch {
			case workload == "queue" && len(live) > 400 && rng.IntN(2) == 0,
				workload == "descending" && len(live) > 400 && rng.IntN(3) == 0:
				// Delete a group's first row.
				var first *Update
				for _, l := range live {
					if l.Row[0].Int() == grp && (first == nil || types.CompareRows(l.Row, first.Row) < 0) {
						l := l
						first = &l
					}
				}
				if first == nil {
					continue
				}
				u = Update{Row: first.Row, Diff: -1}
			case workload == "queue":
				next++
				u = Update{Row: row(grp, next), Diff: 1}
			case workload == "descending":
				next--
				u = Update{Row: row(grp, next), Diff: 1}
			case len(live) > 0 && rng.IntN(3) == 0:
				for _, l := range live {
					u = Update{Row: l.Row, Diff: -1}
					break
				}
			case workload == "absent" && rng.IntN(10) == 0:
				u = Update{Row: row(grp, rng.Int64N(3000)), Diff: -1}
			default:
				u = Update{Row: row(grp, rng.Int64N(3000)), Diff: 1 + rng.Int64N(2)}
			}
			batch = append(batch, u)
			acc = append(acc, u)
			k := fmtRow(u.Row)
			l := live[k]
			l.Row, l.Diff = u.Row, l.Diff+u.Diff
			if l.Diff > 0 {
				live[k] = l
			} else {
				delete(live, k)
			}
		}
		in.Push(batch)
		if err := g.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
		got := snapshotBatch(t, out.Snapshot())
		want := refTopK(append(Batch(nil), acc...).Consolidate(), spec.Group, cmp, spec.Offset, spec.Limit).Consolidate()
		if fmtBatch(got) != fmtBatch(want) {
			t.Fatalf("tick %d:\nincremental %s\nreference   %s", tick, fmtBatch(got), fmtBatch(want))
		}
	}
}

// BenchmarkTopK: cost per delta row of ORDER BY … LIMIT 10 over one group
// of 1e3 or 1e6 rows, with a sort key and with a comparator.
func BenchmarkTopK(b *testing.B) {
	for _, mode := range []string{"sortkey", "compare"} {
		for _, st := range benchStates {
			b.Run(mode+"/"+st.name, func(b *testing.B) {
				spec := TopKSpec{Limit: 10}
				if mode == "sortkey" {
					spec.SortKey = ColumnSortKey([]SortColumn{{Col: 1}})
				} else {
					spec.Compare = func(a, b types.Row) int { return types.Compare(a[1], b[1]) }
				}
				g := NewGraph()
				in := g.Input()
				g.Collect(g.TopK(in.Node(), spec))
				rng := rand.New(rand.NewPCG(1, uint64(st.n)))
				fill(b, g, in, st.n, func(i int) types.Row { return int8Row(int64(i), rng.Int64N(1<<40)) })
				batches := make([]Batch, 16)
				for i := range batches {
					for j := 0; j < benchDelta; j++ {
						row := int8Row(int64(st.n+i*benchDelta+j), rng.Int64N(1<<40))
						batches[i] = append(batches[i], Update{Row: row, Diff: 1})
					}
				}
				churn(b, g, in, batches)
			})
		}
	}
}
