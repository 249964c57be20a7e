package dataflow

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// The defining property of the engine (DBSP's correctness theorem made a
// test): for random input histories split into ticks in many ways, after
// every tick each operator's accumulated output equals the operator
// applied from scratch, in one tick, to the accumulated input. Where a
// scenario has a naive reference implementation, the result must also
// equal it, which checks the semantics and not just the incrementality.
//
// Failing seeds go to testdata/property_seeds.txt ("scenario seed" per
// line) and are replayed first on every run.

var propertyIters = flag.Int("dataflow.iters", 150, "random histories per property scenario")

// scenario is a graph under test over one or two inputs.
type scenario struct {
	name   string
	inputs int
	build  func(g *Graph, in []Node) Node
	// ref, if set, computes the expected collection from the consolidated
	// accumulated inputs (for scenarios without evaluation errors).
	ref func(in []Batch) Batch
	// anyWeights lets accumulated multiplicities go negative, for
	// operators defined on all Z-sets (linear, bilinear, threshold).
	anyWeights bool
	// appendOnly draws insertions only, for operators that require an
	// append-only input (MonotonicTopK).
	appendOnly bool
}

func propertyScenarios() []scenario {
	on0 := JoinSpec{LeftKey: keyCol(0), RightKey: keyCol(0), Output: concat}
	byCol1 := func(a, b types.Row) int { return types.Compare(a[1], b[1]) }
	countSumMin := ReduceSpec{KeyCols: []int{0}, Aggs: []Aggregate{countAgg{}, sumAgg{col: 1}, minAgg{col: 1}, minAgg{col: 2, max: true}}}
	failing := func(r types.Row) (bool, error) {
		if r[1].Int() == 5 {
			return false, errDivByZero
		}
		return r[1].Int()%2 == 0, nil
	}
	return []scenario{
		{name: "filter-errors", inputs: 1, anyWeights: true,
			build: func(g *Graph, in []Node) Node { return g.Filter(in[0], failing) }},
		{name: "map-flatmap", inputs: 1, anyWeights: true,
			build: func(g *Graph, in []Node) Node {
				m := g.Map(in[0], func(r types.Row) (types.Row, error) {
					if r[1].Int() == 4 && r[2].Str() == "c" {
						return nil, errDivByZero
					}
					return types.Row{r[2], r[0]}, nil
				})
				return g.FlatMap(m, func(r types.Row, emit func(types.Row) bool) error {
					if !emit(r) {
						return nil
					}
					if !r[1].IsNull() {
						emit(types.Row{r[0], types.NewInt8(r[1].Int() * 10)})
					}
					return nil
				})
			}},
		{name: "union-negate", inputs: 2, anyWeights: true,
			build: func(g *Graph, in []Node) Node { return g.Union(in[0], g.Negate(in[1]), in[0]) }},
		{name: "join", inputs: 2, anyWeights: true,
			build: func(g *Graph, in []Node) Node { return g.Join(in[0], in[1], on0) },
			ref:   refJoin},
		{name: "self-join", inputs: 1, anyWeights: true,
			build: func(g *Graph, in []Node) Node { return g.Join(in[0], in[0], on0) },
			ref:   func(in []Batch) Batch { return refJoin([]Batch{in[0], in[0]}) }},
		{name: "cross-join", inputs: 2,
			build: func(g *Graph, in []Node) Node { return g.Join(in[0], in[1], JoinSpec{Output: concat}) }},
		{name: "semijoin", inputs: 2,
			build: func(g *Graph, in []Node) Node { return g.SemiJoin(in[0], in[1], keyCol(0), keyCol(1)) },
			ref:   func(in []Batch) Batch { return refSemi(in, false) }},
		{name: "antijoin", inputs: 2,
			build: func(g *Graph, in []Node) Node { return g.AntiJoin(in[0], in[1], keyCol(0), keyCol(1)) },
			ref:   func(in []Batch) Batch { return refSemi(in, true) }},
		{name: "reduce", inputs: 1,
			build: func(g *Graph, in []Node) Node { return g.Reduce(in[0], countSumMin) },
			ref:   refReduce},
		{name: "reduce-flat", inputs: 1,
			build: func(g *Graph, in []Node) Node {
				return g.Reduce(in[0], ReduceSpec{KeyCols: []int{0}, Aggs: []Aggregate{flatCountAgg{}, flatIntSumAgg{col: 1}, minAgg{col: 1}, minAgg{col: 2, max: true}}})
			},
			ref: refReduce},
		{name: "reduce-inline", inputs: 1,
			build: func(g *Graph, in []Node) Node {
				return g.Reduce(in[0], ReduceSpec{KeyCols: []int{0}, Aggs: []Aggregate{flatCountAgg{}, flatIntSumAgg{col: 1}}})
			},
			ref: func(in []Batch) Batch {
				out := refReduce(in)
				for i := range out {
					out[i].Row = out[i].Row[:3]
				}
				return out
			}},
		{name: "reduce-inline-count", inputs: 1,
			build: func(g *Graph, in []Node) Node {
				return g.Reduce(in[0], ReduceSpec{KeyCols: []int{1}, Aggs: []Aggregate{flatCountColAgg{col: 0}, flatCountAgg{}}})
			},
			ref: refCountColumn},
		{name: "reduce-flat-add", inputs: 1,
			build: func(g *Graph, in []Node) Node {
				return g.Reduce(in[0], ReduceSpec{KeyCols: []int{0}, Aggs: []Aggregate{flatCountAgg{}, flatSumAgg{sumAgg{col: 1}}, minAgg{col: 1}, minAgg{col: 2, max: true}}})
			},
			ref: refReduce},
		{name: "reduce-flat-wide", inputs: 1,
			build: func(g *Graph, in []Node) Node {
				return g.Reduce(in[0], ReduceSpec{KeyCols: []int{2}, Aggs: []Aggregate{flatSumAgg{sumAgg{col: 1}}, flatCountAgg{}, flatIntSumAgg{col: 0}, flatSumAgg{sumAgg{col: 1, failOn: 4}}}})
			}},
		{name: "reduce-flat-global", inputs: 1,
			build: func(g *Graph, in []Node) Node {
				return g.Reduce(in[0], ReduceSpec{Aggs: []Aggregate{flatCountAgg{}, flatSumAgg{sumAgg{col: 1, resultFailAbove: 12}}}, Global: true})
			}},
		{name: "reduce-global", inputs: 1,
			build: func(g *Graph, in []Node) Node {
				return g.Reduce(in[0], ReduceSpec{Aggs: []Aggregate{countAgg{}, sumAgg{col: 1}}, Global: true})
			}},
		{name: "reduce-errors", inputs: 1,
			build: func(g *Graph, in []Node) Node {
				return g.Reduce(in[0], ReduceSpec{KeyCols: []int{2}, Aggs: []Aggregate{sumAgg{col: 1, failOn: 4, resultFailAbove: 12}}})
			}},
		{name: "distinct", inputs: 1,
			build: func(g *Graph, in []Node) Node { return g.Distinct(in[0]) },
			ref:   func(in []Batch) Batch { return refThreshold(in[0], nil, distinctCount) }},
		{name: "except-all", inputs: 2, anyWeights: true,
			build: func(g *Graph, in []Node) Node { return g.Threshold(in[0], in[1], exceptAll) },
			ref:   func(in []Batch) Batch { return refThreshold(in[0], in[1], exceptAll) }},
		{name: "topk", inputs: 1,
			build: func(g *Graph, in []Node) Node {
				return g.TopK(in[0], TopKSpec{Group: col(0), Compare: byCol1, Offset: 1, Limit: 2})
			},
			ref: func(in []Batch) Batch { return refTopK(in[0], col(0), byCol1, 1, 2) }},
		{name: "topk-no-limit", inputs: 1,
			build: func(g *Graph, in []Node) Node {
				return g.TopK(in[0], TopKSpec{Compare: byCol1, Offset: 3, Limit: -1})
			},
			ref: func(in []Batch) Batch { return refTopK(in[0], nil, byCol1, 3, -1) }},
		{name: "topk-global-limit", inputs: 1,
			build: func(g *Graph, in []Node) Node { return g.TopK(in[0], TopKSpec{Compare: byCol1, Limit: 4}) },
			ref:   func(in []Batch) Batch { return refTopK(in[0], nil, byCol1, 0, 4) }},
		{name: "topk-sortkey", inputs: 1,
			build: func(g *Graph, in []Node) Node {
				return g.TopK(in[0], TopKSpec{Group: col(2), SortKey: ColumnSortKey(sortCols), Offset: 1, Limit: 3})
			},
			ref: func(in []Batch) Batch { return refTopK(in[0], col(2), sortColsCompare, 1, 3) }},
		windowScenario("window-ranks", WindowSpec{Partition: col(0), SortKey: ColumnSortKey([]SortColumn{{Col: 1}}), Funcs: []WindowFunc{
			{Kind: RowNumber}, {Kind: Rank}, {Kind: DenseRank}, {Kind: PercentRank}, {Kind: CumeDist}, {Kind: Ntile, N: 3}}}),
		windowScenario("window-lag-lead", WindowSpec{Partition: col(2), SortKey: ColumnSortKey(sortCols), Funcs: []WindowFunc{
			{Kind: Lag, Col: 1, N: 1}, {Kind: Lead, Col: 0, N: 2, Default: func(r types.Row) (types.Datum, error) { return r[1], nil }},
			{Kind: Lag, Col: 2, N: 0}, {Kind: Lag, Col: 1, N: -1}}}),
		// Offsets, bucket counts and positions read from a column (col
		// 0 holds 0 to 3 and NULL): a change moves the rows that point
		// at it, wherever they are.
		windowScenario("window-var-n", WindowSpec{Partition: col(2), SortKey: ColumnSortKey(sortCols), Funcs: []WindowFunc{
			{Kind: Lag, Col: 1, VarN: true, NCol: 0}, {Kind: Lead, Col: 1, VarN: true, NCol: 0, Default: func(r types.Row) (types.Datum, error) { return r[2], nil }},
			{Kind: Ntile, VarN: true, NCol: 0}, {Kind: NthValue, Col: 1, VarN: true, NCol: 0, Frame: rowsFrame(Preceding, 2, Following, 2)}}}),
		windowScenario("window-rows-bounded", WindowSpec{Partition: col(0), SortKey: ColumnSortKey([]SortColumn{{Col: 1, Desc: true}}), Funcs: []WindowFunc{
			{Kind: WindowAgg, Agg: sumAgg{col: 1}, Frame: rowsFrame(Preceding, 1, Following, 1)},
			{Kind: WindowAgg, Agg: countAgg{}, Frame: rowsFrame(Following, 1, Following, 3)},
			{Kind: FirstValue, Col: 2, Frame: rowsFrame(Preceding, 2, CurrentRow, 0)},
			{Kind: NthValue, Col: 1, N: 2, Frame: rowsFrame(Preceding, 3, Preceding, 1)}}}),
		windowScenario("window-rows-unbounded", WindowSpec{Partition: col(0), SortKey: ColumnSortKey([]SortColumn{{Col: 1, Desc: true}}), Funcs: []WindowFunc{
			{Kind: WindowAgg, Agg: minAgg{col: 2}, Frame: rowsFrame(UnboundedPreceding, 0, CurrentRow, 0)},
			{Kind: LastValue, Col: 2, Frame: rowsFrame(CurrentRow, 0, UnboundedFollowing, 0)}}}),
		windowScenario("window-range-frames", WindowSpec{Partition: col(2), SortKey: ColumnSortKey([]SortColumn{{Col: 0, NullsFirst: true}}), Funcs: []WindowFunc{
			{Kind: WindowAgg, Agg: sumAgg{col: 1}},
			{Kind: WindowAgg, Agg: minAgg{col: 1, max: true}, Frame: Frame{Start: FrameBound{Kind: CurrentRow}, End: FrameBound{Kind: UnboundedFollowing}}},
			{Kind: LastValue, Col: 1}}}),
		windowScenario("window-range-peers", WindowSpec{Partition: col(2), SortKey: ColumnSortKey([]SortColumn{{Col: 0}}), Funcs: []WindowFunc{
			{Kind: WindowAgg, Agg: countAgg{}, Frame: Frame{Start: FrameBound{Kind: CurrentRow}, End: FrameBound{Kind: CurrentRow}}},
			{Kind: FirstValue, Col: 1, Frame: Frame{Start: FrameBound{Kind: CurrentRow}, End: FrameBound{Kind: CurrentRow}}}}}),
		windowScenario("window-range-offsets", WindowSpec{Partition: col(2), SortKey: ColumnSortKey([]SortColumn{{Col: 0, NullsFirst: true}}), Funcs: []WindowFunc{
			{Kind: WindowAgg, Agg: sumAgg{col: 1}, Frame: rangeFrame(0, true, false, Preceding, 1, Following, 1)},
			{Kind: WindowAgg, Agg: countAgg{}, Frame: rangeFrame(0, true, false, Following, 1, Following, 2)},
			{Kind: FirstValue, Col: 1, Frame: rangeFrame(0, true, false, UnboundedPreceding, 0, Preceding, 1)},
			{Kind: LastValue, Col: 1, Frame: rangeFrame(0, true, false, Preceding, 2, UnboundedFollowing, 0)}}}),
		windowScenario("window-range-offsets-desc", WindowSpec{Partition: col(2), SortKey: ColumnSortKey([]SortColumn{{Col: 0, Desc: true}}), Funcs: []WindowFunc{
			{Kind: WindowAgg, Agg: minAgg{col: 1}, Frame: rangeFrame(0, false, true, Preceding, 2, CurrentRow, 0)},
			{Kind: NthValue, Col: 1, N: 2, Frame: rangeFrame(0, false, true, CurrentRow, 0, Following, 1)}}}),
		windowScenario("window-groups", WindowSpec{Partition: col(2), SortKey: ColumnSortKey([]SortColumn{{Col: 0}}), Funcs: []WindowFunc{
			{Kind: WindowAgg, Agg: sumAgg{col: 1}, Frame: groupsFrame(Preceding, 1, Following, 1, ExcludeNoOthers)},
			{Kind: WindowAgg, Agg: countAgg{}, Frame: groupsFrame(Following, 1, Following, 2, ExcludeNoOthers)},
			{Kind: FirstValue, Col: 1, Frame: groupsFrame(Preceding, 2, Preceding, 1, ExcludeNoOthers)},
			{Kind: LastValue, Col: 1, Frame: groupsFrame(CurrentRow, 0, Following, 1, ExcludeTies)}}}),
		windowScenario("window-groups-unbounded", WindowSpec{Partition: col(2), SortKey: ColumnSortKey([]SortColumn{{Col: 0}}), Funcs: []WindowFunc{
			{Kind: WindowAgg, Agg: sumAgg{col: 1}, Frame: groupsFrame(UnboundedPreceding, 0, Preceding, 1, ExcludeNoOthers)},
			{Kind: LastValue, Col: 1, Frame: groupsFrame(CurrentRow, 0, UnboundedFollowing, 0, ExcludeGroup)}}}),
		windowScenario("window-exclude", WindowSpec{Partition: col(2), SortKey: ColumnSortKey([]SortColumn{{Col: 0}}), Funcs: []WindowFunc{
			{Kind: WindowAgg, Agg: sumAgg{col: 1}, Frame: Frame{Mode: FrameRows, Start: FrameBound{Kind: Preceding, Offset: 2}, End: FrameBound{Kind: Following, Offset: 1}, Exclude: ExcludeCurrentRow}},
			{Kind: WindowAgg, Agg: minAgg{col: 1, max: true}, Frame: Frame{Start: FrameBound{Kind: UnboundedPreceding}, End: FrameBound{Kind: CurrentRow}, Exclude: ExcludeGroup}},
			{Kind: WindowAgg, Agg: countAgg{}, Frame: Frame{Mode: FrameRows, Start: FrameBound{Kind: Preceding, Offset: 1}, End: FrameBound{Kind: Following, Offset: 3}, Exclude: ExcludeTies}},
			{Kind: FirstValue, Col: 1, Frame: Frame{Mode: FrameRows, Start: FrameBound{Kind: Preceding, Offset: 1}, End: FrameBound{Kind: Following, Offset: 1}, Exclude: ExcludeGroup}},
			{Kind: NthValue, Col: 1, N: 2, Frame: Frame{Mode: FrameRows, Start: FrameBound{Kind: UnboundedPreceding}, End: FrameBound{Kind: UnboundedFollowing}, Exclude: ExcludeTies}},
			{Kind: LastValue, Col: 1, Frame: Frame{Mode: FrameRows, Start: FrameBound{Kind: Preceding, Offset: 2}, End: FrameBound{Kind: Following, Offset: 2}, Exclude: ExcludeCurrentRow}}}}),
		windowScenario("window-no-order", WindowSpec{Partition: col(0), Funcs: []WindowFunc{
			{Kind: RowNumber}, {Kind: Rank}, {Kind: CumeDist}, {Kind: WindowAgg, Agg: sumAgg{col: 1}}}}),
		{name: "window-errors", inputs: 1,
			build: func(g *Graph, in []Node) Node {
				return g.Window(in[0], WindowSpec{Partition: col(2), SortKey: ColumnSortKey([]SortColumn{{Col: 1}}), Funcs: []WindowFunc{
					{Kind: RowNumber},
					{Kind: WindowAgg, Agg: sumAgg{col: 1, failOn: 4, resultFailAbove: 8}, Frame: rowsFrame(Preceding, 1, CurrentRow, 0)}}})
			}},
		{name: "monotonic-topk", inputs: 1, appendOnly: true,
			build: func(g *Graph, in []Node) Node {
				return g.MonotonicTopK(in[0], TopKSpec{Group: col(0), Compare: byCol1, Offset: 1, Limit: 2})
			},
			ref: func(in []Batch) Batch { return refTopK(in[0], col(0), byCol1, 1, 2) }},
		{name: "monotonic-topk-sortkey", inputs: 1, appendOnly: true,
			build: func(g *Graph, in []Node) Node {
				return g.MonotonicTopK(in[0], TopKSpec{Group: col(2), SortKey: ColumnSortKey(sortCols), Limit: 3})
			},
			ref: func(in []Batch) Batch { return refTopK(in[0], col(2), sortColsCompare, 0, 3) }},
		{name: "join-monotonic-topk-window", inputs: 2, appendOnly: true,
			// q9's shape: the first row per group of a join, numbered.
			build: func(g *Graph, in []Node) Node {
				j := g.Join(in[0], in[1], on0)
				spec := TopKSpec{Group: col(0), SortKey: ColumnSortKey([]SortColumn{{Col: 4, Desc: true}}), Limit: 1}
				return g.Window(g.MonotonicTopK(j, spec), WindowSpec{Partition: col(0), SortKey: spec.SortKey, Funcs: []WindowFunc{{Kind: RowNumber}}})
			}},
		{name: "join-reduce-topk", inputs: 2,
			build: func(g *Graph, in []Node) Node {
				j := g.Join(in[0], in[1], on0)
				r := g.Reduce(j, ReduceSpec{KeyCols: []int{2}, Aggs: []Aggregate{countAgg{}, sumAgg{col: 4}}})
				return g.TopK(r, TopKSpec{Compare: func(a, b types.Row) int { return -types.Compare(a[1], b[1]) }, Limit: 2})
			}},
		{name: "session", inputs: 1,
			build: func(g *Graph, in []Node) Node { return g.Session(in[0], SessionSpec{Key: col(0), TS: 1, Gap: 2}) },
			ref:   func(in []Batch) Batch { return refSession(in[0], col(0), 1, 2) }},
		{name: "session-one-partition", inputs: 1,
			build: func(g *Graph, in []Node) Node { return g.Session(in[0], SessionSpec{TS: 1, Gap: 1}) },
			ref:   func(in []Batch) Batch { return refSession(in[0], nil, 1, 1) }},
		{name: "session-reduce", inputs: 1,
			// Sessions per user counted: merges and splits reach the
			// counts of both sessions.
			build: func(g *Graph, in []Node) Node {
				s := g.Session(in[0], SessionSpec{Key: col(2), TS: 1, Gap: 2})
				return g.Reduce(s, ReduceSpec{KeyCols: []int{2, 3, 4}, Aggs: []Aggregate{countAgg{}, sumAgg{col: 1}}})
			}},
		{name: "distinct-antijoin-union", inputs: 2,
			build: func(g *Graph, in []Node) Node {
				d := g.Distinct(g.Map(in[0], func(r types.Row) (types.Row, error) { return types.Row{r[0], r[2]}, nil }))
				a := g.AntiJoin(d, in[1], keyCol(0), keyCol(0))
				s := g.SemiJoin(d, in[1], keyCol(0), keyCol(0))
				return g.Union(a, s, g.Negate(d))
			}},
	}
}

func exceptAll(lc, rc int64) int64 { return max(lc-rc, 0) }

func windowScenario(name string, spec WindowSpec) scenario {
	return scenario{
		name:  name,
		build: func(g *Graph, in []Node) Node { return g.Window(in[0], spec) },
		ref: func(in []Batch) Batch {
			out, _ := refWindow(in[0], spec)
			return out
		},
		inputs: 1,
	}
}

// rangeFrame is a RANGE frame over the int8 order column col, sorted
// with NULLs first or last and descending if desc, with offsets compared
// as PostgreSQL's in_range does.
func rangeFrame(col int, nullsFirst, desc bool, start BoundKind, so int64, end BoundKind, eo int64) Frame {
	bound := func(k BoundKind, off int64, isStart bool) FrameBound {
		b := FrameBound{Kind: k}
		if k == Preceding || k == Following {
			sub, less := k == Preceding, !isStart
			if desc {
				sub, less = !sub, !less
			}
			b.InRange = func(val, cur types.Datum) (bool, error) {
				sum := cur.Int() + off
				if sub {
					sum = cur.Int() - off
				}
				if less {
					return val.Int() <= sum, nil
				}
				return val.Int() >= sum, nil
			}
		}
		return b
	}
	return Frame{Mode: FrameRange, Start: bound(start, so, true), End: bound(end, eo, false), OrderCol: col, NullsFirst: nullsFirst}
}

// groupsFrame is a GROUPS frame.
func groupsFrame(start BoundKind, so int64, end BoundKind, eo int64, ex Exclusion) Frame {
	return Frame{Mode: FrameGroups, Start: FrameBound{Kind: start, Offset: so}, End: FrameBound{Kind: end, Offset: eo}, Exclude: ex}
}

func rowsFrame(start BoundKind, so int64, end BoundKind, eo int64) Frame {
	return Frame{Mode: FrameRows, Start: FrameBound{Kind: start, Offset: so}, End: FrameBound{Kind: end, Offset: eo}}
}

// sortCols is ORDER BY #0 DESC NULLS LAST, #1; sortColsCompare is the
// same order as a comparator.
var sortCols = []SortColumn{{Col: 0, Desc: true}, {Col: 1}}

func sortColsCompare(a, b types.Row) int {
	x, y := a[0], b[0]
	switch {
	case x.IsNull() != y.IsNull():
		return boolInt(x.IsNull()) - boolInt(y.IsNull())
	case !x.IsNull():
		if c := types.Compare(y, x); c != 0 {
			return c
		}
	}
	return types.Compare(a[1], b[1])
}

// history is a random sequence of updates to the inputs.
type history struct {
	input []int
	upd   Batch
}

func randRow(rng *rand.Rand) types.Row {
	k := types.NewInt8(rng.Int64N(4))
	if rng.IntN(10) == 0 {
		k = types.Null
	}
	return types.Row{k, types.NewInt8(rng.Int64N(6)), types.NewText(string(rune('a' + rng.IntN(3))))}
}

// randHistory draws insertions of random rows and retractions of present
// ones (so accumulated multiplicities stay non-negative unless anyWeights),
// with repeated rows, weights above one and rows that appear and vanish
// within a tick; only insertions when appendOnly.
func randHistory(rng *rand.Rand, inputs int, anyWeights, appendOnly bool) history {
	var h history
	present := make([]map[string]Update, inputs)
	for i := range present {
		present[i] = map[string]Update{}
	}
	n := 10 + rng.IntN(50)
	for len(h.upd) < n {
		in := rng.IntN(inputs)
		var u Update
		switch p := rng.IntN(10); {
		case anyWeights && p == 0:
			u = Update{Row: randRow(rng), Diff: -1 - rng.Int64N(2)}
		case p < 6 || len(present[in]) == 0 || appendOnly:
			u = Update{Row: randRow(rng), Diff: 1 + rng.Int64N(2)*rng.Int64N(3)}
		default:
			keys := make([]string, 0, len(present[in]))
			for k := range present[in] {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			cur := present[in][keys[rng.IntN(len(keys))]]
			u = Update{Row: cur.Row, Diff: -1 - rng.Int64N(cur.Diff)}
		}
		k := fmtRow(u.Row)
		cur := present[in][k]
		cur.Row, cur.Diff = u.Row, cur.Diff+u.Diff
		if cur.Diff > 0 {
			present[in][k] = cur
		} else {
			delete(present[in], k)
		}
		h.input = append(h.input, in)
		h.upd = append(h.upd, u)
		if !appendOnly && rng.IntN(8) == 0 { // appears and vanishes
			r := randRow(rng)
			h.input = append(h.input, in, in)
			h.upd = append(h.upd, Update{Row: r, Diff: 1}, Update{Row: r, Diff: -1})
		}
	}
	return h
}

// splits returns ways to cut the history into ticks: one update per
// tick, everything in one tick, and random cuts.
func splits(rng *rand.Rand, n int) [][]int {
	single := make([]int, n)
	for i := range single {
		single[i] = i + 1
	}
	out := [][]int{single, {n}}
	for k := 0; k < 3; k++ {
		var cuts []int
		for i := 1; i < n; i++ {
			if rng.IntN(4+k*3) == 0 {
				cuts = append(cuts, i)
			}
		}
		out = append(out, append(cuts, n))
	}
	return out
}

// checkScenario runs one random history of sc under every split and
// returns a description of the first discrepancy. Every other split
// runs persisted (Graph.Persist) and restarts at random ticks: the
// graph is built again and restored from what it persisted, must read
// as it did before, and goes on with the next ticks. In one of them the
// inputs are replayable, as stored tables are: the state derived from
// them is not persisted, and a restore feeds their accumulated contents
// to Derive, in two parts.
func checkScenario(sc scenario, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	h := randHistory(rng, sc.inputs, sc.anyWeights, sc.appendOnly)
	for si, cuts := range splits(rng, len(h.upd)) {
		persisted := si%2 == 1
		replayable := si == 3
		var kv *memState
		build := func() (*Graph, []*Input, *Output) {
			g := NewGraph()
			ins, nodes := inputs(g, sc.inputs)
			out := g.Output(sc.build(g, nodes))
			if replayable {
				for _, in := range ins {
					in.Replayable()
				}
			}
			switch {
			case persisted && g.Persistable() != nil:
				// As the engine does, a graph with an operator that
				// cannot persist runs without persisting.
				persisted = false
			case persisted:
				g.Persist(kv)
			}
			return g, ins, out
		}
		if persisted {
			kv = newMemState()
		}
		g, ins, out := build()
		acc := make([]Batch, sc.inputs)
		start := 0
		for tick, end := range cuts {
			for i := start; i < end; i++ {
				ins[h.input[i]].Push(h.upd[i : i+1])
				acc[h.input[i]] = append(acc[h.input[i]], h.upd[i])
			}
			start = end
			if err := g.Step(context.Background()); err != nil {
				return err
			}
			snap := out.Snapshot()
			got := snapshotBatch(nopTB{}, snap)
			want, wantErrs, err := recompute(sc, acc)
			if err != nil {
				return err
			}
			if fmtBatch(got) != fmtBatch(want) || fmtErrors(snap.Errors()) != fmtErrors(wantErrs) {
				return fmt.Errorf("cuts %v, tick %d (persisted %v):\nincremental %s | errors %s\nrecomputed  %s | errors %s",
					cuts, tick, persisted, fmtBatch(got), fmtErrors(snap.Errors()), fmtBatch(want), fmtErrors(wantErrs))
			}
			if sc.ref != nil {
				cons := make([]Batch, len(acc))
				for i := range acc {
					cons[i] = append(Batch(nil), acc[i]...).Consolidate()
				}
				if ref := sc.ref(cons); fmtBatch(got) != fmtBatch(ref) {
					return fmt.Errorf("cuts %v, tick %d:\nincremental %s\nreference   %s", cuts, tick, fmtBatch(got), fmtBatch(ref))
				}
			}
			if persisted && rng.IntN(3) == 0 {
				g, ins, out = build()
				if err := g.Restore(context.Background(), kv); err != nil {
					return fmt.Errorf("cuts %v, restore after tick %d: %w", cuts, tick, err)
				}
				if err := derive(g, ins, acc); err != nil {
					return fmt.Errorf("cuts %v, derive after tick %d: %w", cuts, tick, err)
				}
				rs := out.Snapshot()
				if r := snapshotBatch(nopTB{}, rs); fmtBatch(r) != fmtBatch(got) || fmtErrors(rs.Errors()) != fmtErrors(snap.Errors()) {
					return fmt.Errorf("cuts %v, restored after tick %d:\nrestored %s | errors %s\nbefore   %s | errors %s",
						cuts, tick, fmtBatch(r), fmtErrors(rs.Errors()), fmtBatch(got), fmtErrors(snap.Errors()))
				}
			}
		}
	}
	return nil
}

// derive feeds a restored graph's inputs that derive state their
// accumulated contents, as the engine feeds a table's rows, in two
// calls of Derive.
func derive(g *Graph, ins []*Input, acc []Batch) error {
	for part := range 2 {
		for i, in := range ins {
			if !in.Derives() {
				continue
			}
			rows := append(Batch(nil), acc[i]...).Consolidate()
			half := len(rows) / 2
			if part == 0 {
				in.Push(rows[:half])
			} else {
				in.Push(rows[half:])
			}
		}
		if err := g.Derive(context.Background()); err != nil {
			return err
		}
	}
	return nil
}

// recompute runs sc from scratch as a one-tick dataflow over acc.
func recompute(sc scenario, acc []Batch) (Batch, []ErrorUpdate, error) {
	g := NewGraph()
	ins, nodes := inputs(g, sc.inputs)
	c := g.Collect(sc.build(g, nodes))
	for i, b := range acc {
		ins[i].Push(append(Batch(nil), b...).Consolidate())
	}
	// StepFinal, as an ad hoc query runs: operators skip the state
	// later ticks would need, and the result must not change.
	if err := g.StepFinal(context.Background()); err != nil {
		return nil, nil, err
	}
	return append(Batch(nil), c.Delta()...), append([]ErrorUpdate(nil), c.Errors()...), nil
}

func inputs(g *Graph, n int) ([]*Input, []Node) {
	var ins []*Input
	var nodes []Node
	for range n {
		in := g.Input()
		ins = append(ins, in)
		nodes = append(nodes, in.Node())
	}
	return ins, nodes
}

func TestIncrementalEqualsRecomputation(t *testing.T) {
	scenarios := append(propertyScenarios(), recursiveScenarios()...)
	byName := map[string]scenario{}
	for _, sc := range scenarios {
		byName[sc.name] = sc
	}
	for _, reg := range regressionSeeds(t) {
		sc, ok := byName[reg.name]
		if !ok {
			t.Fatalf("regression seed for unknown scenario %q", reg.name)
		}
		if err := checkScenario(sc, reg.seed); err != nil {
			t.Errorf("%s seed %d (regression): %v", reg.name, reg.seed, err)
		}
	}
	iters := *propertyIters
	if testing.Short() {
		iters = 20
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			for seed := uint64(1); seed <= uint64(iters); seed++ {
				if err := checkScenario(sc, seed); err != nil {
					t.Fatalf("seed %d (add %q to testdata/property_seeds.txt): %v", seed, sc.name+" "+strconv.FormatUint(seed, 10), err)
				}
			}
		})
	}
}

type regression struct {
	name string
	seed uint64
}

func regressionSeeds(t *testing.T) []regression {
	f, err := os.Open("testdata/property_seeds.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var regs []regression
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, seed, _ := strings.Cut(line, " ")
		s, err := strconv.ParseUint(strings.TrimSpace(seed), 10, 64)
		if err != nil {
			t.Fatalf("bad seed line %q", line)
		}
		regs = append(regs, regression{name: name, seed: s})
	}
	return regs
}

// nopTB lets helpers that take a testing.TB run outside a test's
// goroutine; checkScenario reports through its error instead.
type nopTB struct{ testing.TB }

func (nopTB) Helper()           {}
func (nopTB) Fatal(args ...any) { panic(fmt.Sprint(args...)) }
