package dataflow

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

func TestWindow(t *testing.T) {
	byCol1 := ColumnSortKey([]SortColumn{{Col: 1}})
	win := func(spec WindowSpec) func(g *Graph, in []Node) Node {
		return func(g *Graph, in []Node) Node { return g.Window(in[0], spec) }
	}
	rows := func(n int64) Frame {
		return Frame{Mode: FrameRows, Start: FrameBound{Kind: Preceding, Offset: n}, End: FrameBound{Kind: CurrentRow}}
	}
	for _, tc := range []traceCase{{
		name:  "doc",
		build: win(WindowSpec{Partition: col(0), SortKey: byCol1, Funcs: []WindowFunc{{Kind: RowNumber}}}),
		ticks: [][]string{{"+(a, 1) +(a, 3)"}, {"+(a, 2)"}},
		want:  []string{"+(a, 1, 1) +(a, 3, 2)", "-(a, 3, 2) +(a, 2, 2) +(a, 3, 3)"},
	}, {
		name: "ranks with ties and duplicates",
		build: win(WindowSpec{SortKey: byCol1, Funcs: []WindowFunc{
			{Kind: RowNumber}, {Kind: Rank}, {Kind: DenseRank}}}),
		ticks: [][]string{{"+(x, 5) +2(y, 5) +(z, 7)"}, {"-(x, 5)"}},
		want: []string{"+(x, 5, 1, 1, 1) +(y, 5, 2, 1, 1) +(y, 5, 3, 1, 1) +(z, 7, 4, 4, 2)",
			"-(x, 5, 1, 1, 1) -(y, 5, 3, 1, 1) +(y, 5, 1, 1, 1) -(z, 7, 4, 4, 2) +(z, 7, 3, 3, 2)"},
	}, {
		name: "lag and lead",
		build: win(WindowSpec{SortKey: byCol1, Funcs: []WindowFunc{
			{Kind: Lag, Col: 1, N: 1}, {Kind: Lead, Col: 1, N: 1, Default: func(r types.Row) (types.Datum, error) { return types.NewInt8(-1), nil }}}}),
		ticks: [][]string{{"+(a, 1) +(a, 2) +(a, 4)"}, {"+(a, 3)"}},
		want: []string{"+(a, 1, NULL, 2) +(a, 2, 1, 4) +(a, 4, 2, -1)",
			"-(a, 2, 1, 4) +(a, 2, 1, 3) +(a, 3, 2, 4) -(a, 4, 2, -1) +(a, 4, 3, -1)"},
	}, {
		name: "lag and lead with offsets from a column",
		build: win(WindowSpec{SortKey: byCol1, Funcs: []WindowFunc{
			{Kind: Lag, Col: 0, VarN: true, NCol: 2},
			{Kind: Lead, Col: 0, VarN: true, NCol: 2, Default: func(r types.Row) (types.Datum, error) { return r[0], nil }}}}),
		ticks: [][]string{{"+(a, 1, 1) +(b, 2, 2) +(c, 3, NULL) +(d, 4, -1)"}, {"-(b, 2, 2)"}},
		want: []string{"+(a, 1, 1, NULL, b) +(b, 2, 2, NULL, d) +(c, 3, NULL, NULL, NULL) +(d, 4, -1, NULL, c)",
			"-(a, 1, 1, NULL, b) +(a, 1, 1, NULL, c) -(b, 2, 2, NULL, d)"},
	}, {
		name:  "sliding sum over ROWS 1 PRECEDING",
		build: win(WindowSpec{SortKey: byCol1, Funcs: []WindowFunc{{Kind: WindowAgg, Agg: sumAgg{col: 1}, Frame: rows(1)}}}),
		ticks: [][]string{{"+(a, 1) +(a, 2) +(a, 4) +(a, 8)"}, {"-(a, 2)"}},
		want:  []string{"+(a, 1, 1) +(a, 2, 3) +(a, 4, 6) +(a, 8, 12)", "-(a, 2, 3) -(a, 4, 6) +(a, 4, 5)"},
	}, {
		name:  "running count, default frame, peers share it",
		build: win(WindowSpec{SortKey: byCol1, Funcs: []WindowFunc{{Kind: WindowAgg, Agg: countAgg{}}}}),
		ticks: [][]string{{"+(a, 1) +(b, 1) +(c, 2)"}, {"+(d, 0)"}},
		want:  []string{"+(a, 1, 2) +(b, 1, 2) +(c, 2, 3)", "+(d, 0, 1) -(a, 1, 2) -(b, 1, 2) -(c, 2, 3) +(a, 1, 3) +(b, 1, 3) +(c, 2, 4)"},
	}, {
		name: "no ORDER BY: whole partition",
		build: win(WindowSpec{Partition: col(0), Funcs: []WindowFunc{
			{Kind: Rank}, {Kind: WindowAgg, Agg: sumAgg{col: 1}}}}),
		ticks: [][]string{{"+(a, 1) +(a, 2) +(b, 5)"}, {"-(a, 1)"}},
		want:  []string{"+(a, 1, 1, 3) +(a, 2, 1, 3) +(b, 5, 1, 5)", "-(a, 1, 1, 3) -(a, 2, 1, 3) +(a, 2, 1, 2)"},
	}, {
		name: "first, last and nth value",
		build: win(WindowSpec{SortKey: byCol1, Funcs: []WindowFunc{
			{Kind: FirstValue, Col: 1, Frame: rows(2)}, {Kind: LastValue, Col: 1},
			{Kind: NthValue, Col: 1, N: 2, Frame: rows(2)}}}),
		ticks: [][]string{{"+(a, 1) +(a, 2) +(a, 3) +(a, 4)"}},
		want:  []string{"+(a, 1, 1, 1, NULL) +(a, 2, 1, 2, 2) +(a, 3, 1, 3, 2) +(a, 4, 2, 4, 3)"},
	}, {
		name:  "ntile, percent_rank, cume_dist",
		build: win(WindowSpec{SortKey: byCol1, Funcs: []WindowFunc{{Kind: Ntile, N: 2}, {Kind: PercentRank}, {Kind: CumeDist}}}),
		ticks: [][]string{{"+(a, 1) +(a, 2) +(a, 2)"}},
		want:  []string{"+(a, 1, 1, 0, 0.3333333333333333) +(a, 2, 1, 0.5, 1) +(a, 2, 2, 0.5, 1)"},
	}, {
		name: "aggregate errors travel as data",
		build: win(WindowSpec{SortKey: byCol1, Funcs: []WindowFunc{
			{Kind: WindowAgg, Agg: sumAgg{col: 1, failOn: 3}, Frame: rows(1)}}}),
		ticks:    [][]string{{"+(a, 1) +(a, 3) +(a, 5) +(a, 9)"}, {"-(a, 3)"}},
		want:     []string{"+(a, 1, 1) +(a, 9, 14)", "+(a, 5, 6)"},
		wantErrs: []string{"+2 22012 division by zero", "-2 22012 division by zero"},
	}} {
		runTrace(t, tc)
	}
}

func TestFrameValidate(t *testing.T) {
	for _, tc := range []struct {
		f    Frame
		code pgerr.Code
	}{
		{Frame{}, ""},
		{Frame{Mode: FrameRows, Start: FrameBound{Kind: Preceding, Offset: 2}, End: FrameBound{Kind: Following, Offset: 1}}, ""},
		{Frame{Mode: FrameRows, Start: FrameBound{Kind: Preceding, Offset: 1}, End: FrameBound{Kind: Preceding, Offset: 3}}, ""},
		{Frame{Start: FrameBound{Kind: UnboundedFollowing}, End: FrameBound{Kind: UnboundedFollowing}}, pgerr.WindowingError},
		{Frame{Start: FrameBound{Kind: CurrentRow}, End: FrameBound{Kind: UnboundedPreceding}}, pgerr.WindowingError},
		{Frame{Mode: FrameRows, Start: FrameBound{Kind: CurrentRow}, End: FrameBound{Kind: Preceding, Offset: 1}}, pgerr.WindowingError},
		{Frame{Mode: FrameRows, Start: FrameBound{Kind: Following, Offset: 1}, End: FrameBound{Kind: CurrentRow}}, pgerr.WindowingError},
		{Frame{Start: FrameBound{Kind: Preceding, Offset: 1}, End: FrameBound{Kind: CurrentRow}}, pgerr.FeatureNotSupported},
		{Frame{Mode: FrameRows, Start: FrameBound{Kind: Preceding, Offset: -1}, End: FrameBound{Kind: CurrentRow}}, invalidPrecedingOrFollowingSize},
	} {
		err := tc.f.Validate()
		var code pgerr.Code
		if err != nil {
			code = err.(*pgerr.Error).Code
		}
		if code != tc.code {
			t.Errorf("%+v: got %v, want %s", tc.f, err, tc.code)
		}
	}
}

// refWindow computes window functions from scratch by their definitions:
// the property test's reference.
func refWindow(in Batch, spec WindowSpec) (Batch, []ErrorUpdate) {
	parts := map[string][]refUnit{}
	for _, u := range in {
		var pk types.Row
		if spec.Partition != nil {
			pk = spec.Partition(u.Row)
		}
		var sk []byte
		if spec.SortKey != nil {
			sk = spec.SortKey(nil, u.Row)
		}
		key := string(types.AppendKeyRow(append([]byte(nil), sk...), u.Row))
		p := string(types.AppendKeyRow(nil, pk))
		for range u.Diff {
			parts[p] = append(parts[p], refUnit{key: key, sk: string(sk), row: u.Row})
		}
	}
	var out Batch
	var errs []ErrorUpdate
	for _, us := range parts {
		slices.SortStableFunc(us, func(a, b refUnit) int { return strings.Compare(a.key, b.key) })
		n := int64(len(us))
		for u := range us {
			var vals []types.Datum
			var uerr *pgerr.Error
			var gs, ge int64 = 0, n - 1
			for gs = int64(u); gs > 0 && us[gs-1].sk == us[u].sk; gs-- {
			}
			for ge = int64(u); ge+1 < n && us[ge+1].sk == us[u].sk; ge++ {
			}
			dense := int64(1)
			for i := int64(1); i <= gs; i++ {
				if us[i].sk != us[i-1].sk {
					dense++
				}
			}
			for _, f := range spec.Funcs {
				var d types.Datum
				var err *pgerr.Error
				switch f.Kind {
				case RowNumber:
					d = types.NewInt8(int64(u) + 1)
				case Rank:
					d = types.NewInt8(gs + 1)
				case DenseRank:
					d = types.NewInt8(dense)
				case PercentRank:
					d = types.NewFloat8(0)
					if n > 1 {
						d = types.NewFloat8(float64(gs) / float64(n-1))
					}
				case CumeDist:
					d = types.NewFloat8(float64(ge+1) / float64(n))
				case Ntile:
					k := f.N
					if f.VarN {
						k = -1
						if v := us[0].row[f.NCol]; !v.IsNull() {
							k = v.Int()
						}
					}
					switch {
					case k == -1:
					case k < 1:
						err = pgerr.New(pgerr.InvalidArgumentForNtile, "argument of ntile must be greater than zero")
					default:
						d = types.NewInt4(int32(ntile(int64(u), n, k)))
					}
				case Lag, Lead:
					off := f.N
					if f.VarN {
						v := us[u].row[f.NCol]
						if v.IsNull() {
							break
						}
						off = v.Int()
					}
					at := int64(u) - off
					if f.Kind == Lead {
						at = int64(u) + off
					}
					switch {
					case at >= 0 && at < n:
						d = us[at].row[f.Col]
					case f.Default != nil:
						var e error
						if d, e = f.Default(us[u].row); e != nil {
							err = dataError(e)
						}
					}
				default:
					idx, ferr := refFrameUnits(f.frame(), us, int64(u), gs, ge)
					if ferr != nil {
						err = dataError(ferr)
						break
					}
					switch f.Kind {
					case FirstValue:
						if len(idx) > 0 {
							d = us[idx[0]].row[f.Col]
						}
					case LastValue:
						if len(idx) > 0 {
							d = us[idx[len(idx)-1]].row[f.Col]
						}
					case NthValue:
						k := f.N
						if f.VarN {
							k = -1
							if v := us[u].row[f.NCol]; !v.IsNull() {
								k = v.Int()
							}
						}
						switch {
						case k == -1:
						case k < 1:
							err = pgerr.New(pgerr.InvalidArgumentForNthValue, "argument of nth_value must be greater than zero")
						case k <= int64(len(idx)):
							d = us[idx[k-1]].row[f.Col]
						}
					case WindowAgg:
						st := f.Agg.NewState()
						var fe []ErrorUpdate
						for _, i := range idx {
							if e := st.Update(us[i].row, 1); e != nil {
								fe = append(fe, ErrorUpdate{Err: dataError(e), Diff: 1})
							}
						}
						if fe = ConsolidateErrors(fe); len(fe) > 0 {
							err = fe[0].Err
						} else if v, e := st.Result(); e != nil {
							err = dataError(e)
						} else {
							d = v
						}
					}
				}
				if err != nil && uerr == nil {
					uerr = err
				}
				vals = append(vals, d)
			}
			if uerr != nil {
				errs = append(errs, ErrorUpdate{Err: uerr, Diff: 1})
				continue
			}
			out = append(out, Update{Row: append(us[u].row.Copy(), vals...), Diff: 1})
		}
	}
	return out, errs
}

// refUnit is a row of a partition in the reference implementation.
type refUnit struct {
	key, sk string
	row     types.Row
}

// refFrameUnits returns the units of the frame of unit u, whose peer
// group is [gs, ge], naively: every unit is tested against the frame's
// definition.
func refFrameUnits(f *Frame, us []refUnit, u, gs, ge int64) ([]int64, error) {
	n := int64(len(us))
	group := make([]int64, n) // peer group numbers
	for i := int64(1); i < n; i++ {
		group[i] = group[i-1]
		if us[i].sk != us[i-1].sk {
			group[i]++
		}
	}
	in := func(i int64, b *FrameBound, start bool) (bool, error) {
		switch b.Kind {
		case UnboundedPreceding, UnboundedFollowing:
			return true, nil
		case CurrentRow:
			if f.Mode == FrameRows {
				return start && i >= u || !start && i <= u, nil
			}
			return start && i >= gs || !start && i <= ge, nil
		}
		off := b.Offset
		if b.Kind == Preceding {
			off = -off
		}
		switch f.Mode {
		case FrameRows:
			return start && i >= u+off || !start && i <= u+off, nil
		case FrameGroups:
			return start && group[i] >= group[u]+off || !start && group[i] <= group[u]+off, nil
		}
		return f.holds(b, start, us[i].row[f.OrderCol], us[u].row[f.OrderCol])
	}
	var idx []int64
	for i := range n {
		s, err := in(i, &f.Start, true)
		if err != nil {
			return nil, err
		}
		e, err := in(i, &f.End, false)
		if err != nil {
			return nil, err
		}
		if !s || !e {
			continue
		}
		switch f.Exclude {
		case ExcludeCurrentRow:
			if i == u {
				continue
			}
		case ExcludeGroup:
			if i >= gs && i <= ge {
				continue
			}
		case ExcludeTies:
			if i >= gs && i <= ge && i != u {
				continue
			}
		}
		idx = append(idx, i)
	}
	return idx, nil
}

// TestWindowLargePartition drives one partition of thousands of rows (many
// chunks) through random ticks and checks the maintained output against
// the reference every few ticks.
func TestWindowLargePartition(t *testing.T) {
	if testing.Short() {
		t.Skip("large partition")
	}
	byCol0 := ColumnSortKey([]SortColumn{{Col: 0}})
	for _, spec := range []WindowSpec{{SortKey: byCol0, Funcs: []WindowFunc{
		{Kind: RowNumber}, {Kind: Rank}, {Kind: DenseRank},
		{Kind: WindowAgg, Agg: countAgg{}},
	}}, {SortKey: byCol0, Funcs: []WindowFunc{
		{Kind: Lag, Col: 1, N: 2}, {Kind: Lead, Col: 1, N: 1},
		{Kind: WindowAgg, Agg: sumAgg{col: 1}, Frame: rowsFrame(Preceding, 3, Following, 1)},
		{Kind: NthValue, Col: 1, N: 3, Frame: rowsFrame(Preceding, 5, CurrentRow, 0)},
	}}, {SortKey: byCol0, Funcs: []WindowFunc{{Kind: Ntile, N: 7}, {Kind: CumeDist}}}} {
		checkLargePartition(t, spec)
	}
}

func checkLargePartition(t *testing.T, spec WindowSpec) {
	rng := rand.New(rand.NewPCG(11, 12))
	g := NewGraph()
	in := g.Input()
	w := g.Window(in.Node(), spec)
	out := g.Output(w)
	var acc Batch
	present := map[int64]types.Row{}
	id := int64(0)
	for tick := 0; tick < 24; tick++ {
		var b Batch
		for range 120 {
			if len(present) > 0 && rng.IntN(3) == 0 {
				for k, r := range present {
					b = append(b, Update{Row: r, Diff: -1})
					delete(present, k)
					break
				}
				continue
			}
			id++
			r := types.Row{types.NewInt8(rng.Int64N(400)), types.NewInt8(id)}
			present[id] = r
			b = append(b, Update{Row: r, Diff: 1})
		}
		acc = append(acc, b...)
		in.Push(b)
		step(t, g)
		if tick%6 != 5 {
			continue
		}
		want, _ := refWindow(append(Batch(nil), acc...).Consolidate(), spec)
		if got := fmtBatch(snapshotBatch(t, out.Snapshot())); got != fmtBatch(want) {
			t.Fatalf("tick %d: output differs from reference (%d rows present)", tick, len(present))
		}
	}
	if chunks := len(g.ops[w.id].(*windowOp).parts[0].s.chunks); chunks < 5 {
		t.Fatalf("partition spans only %d chunks", chunks)
	}
}

func negated(bt Batch) Batch {
	out := make(Batch, len(bt))
	for i, u := range bt {
		out[i] = Update{Row: u.Row, Diff: -u.Diff}
	}
	return out
}

// BenchmarkWindow: cost per delta row of window functions whose values
// depend on nearby rows (lag, lead, a bounded ROWS frame) over one
// partition of 1e3 or 1e6 rows: a change re-evaluates its neighbourhood,
// not the partition. With the common delta of 256 rows per tick the
// changes to 1e3 rows are so dense that their neighbourhoods overlap and
// share evaluations (outputs/row says how much work a change caused), so
// sparse/ repeats it with 8 rows per tick, where a change costs the same
// work on both states and only the state's size differs.
func BenchmarkWindow(b *testing.B) {
	for _, st := range benchStates {
		b.Run(st.name, func(b *testing.B) { benchWindow(b, st.n, benchDelta) })
	}
	for _, st := range benchStates {
		b.Run("sparse/"+st.name, func(b *testing.B) { benchWindow(b, st.n, 8) })
	}
}

func benchWindow(b *testing.B, n, delta int) {
	spec := WindowSpec{SortKey: ColumnSortKey([]SortColumn{{Col: 0}}), Funcs: []WindowFunc{
		{Kind: Lag, Col: 1, N: 1}, {Kind: Lead, Col: 1, N: 1},
		{Kind: WindowAgg, Agg: sumAgg{col: 1}, Frame: rowsFrame(Preceding, 2, Following, 2)},
	}}
	g := NewGraph()
	in := g.Input()
	c := g.Collect(g.Window(in.Node(), spec))
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	fill(b, g, in, n, func(i int) types.Row { return int8Row(rng.Int64N(1<<40), int64(i)) })
	batches := make([]Batch, 16)
	for i := range batches {
		for j := 0; j < delta; j++ {
			row := int8Row(rng.Int64N(1<<40), int64(n+i*delta+j))
			batches[i] = append(batches[i], Update{Row: row, Diff: 1})
		}
	}
	churn(b, g, in, batches)
	// The work a change caused, from one more tick like the others.
	next := batches[b.N%len(batches)]
	in.Push(next)
	in.Push(negated(batches[(b.N-1)%len(batches)]))
	if err := g.Step(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(c.Delta()))/float64(2*len(next)), "outputs/row")
}

// TestWindowStateBytesCounted checks that a Window counts its partitions'
// bytes as their rows come and go: after every tick of random insertions
// and deletions over a few partitions (one large enough to split its
// chunks, rows with strings), StateBytes equals a walk of every
// partition's chunks, keys and strings, and of the changes' buffers the
// operator keeps for the next tick.
func TestWindowStateBytesCounted(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	g := NewGraph()
	in := g.Input()
	node := g.Window(in.Node(), WindowSpec{Partition: col(0), SortKey: ColumnSortKey([]SortColumn{{Col: 1}}), Funcs: []WindowFunc{{Kind: DenseRank}}})
	g.Collect(node)
	op := g.ops[node.id].(*windowOp)
	walk := func() int64 {
		n := op.index.size() + int64(cap(op.parts))*sizePointer + int64(cap(op.changes)+cap(op.sorted))*sizeWChange
		for _, part := range op.parts {
			if part == nil {
				continue
			}
			s := &part.s
			n += int64(cap(s.chunks))*sizePointer + int64(2*cap(s.lastPfx)+cap(s.units.t)+cap(s.starts.t))*8
			for _, ch := range s.chunks {
				n += chunkBytes(ch)
				for i := range ch.ents {
					n += int64(len(ch.ents[i].key))
				}
				for _, d := range ch.vals {
					n += int64(len(d.Str()))
				}
			}
		}
		return n
	}
	var live []types.Row
	for tick := range 300 {
		in.Push(randomChanges(rng, &live, rng.IntN(40), func() bool { return rng.IntN(5) < 2 }, func() types.Row {
			part := int64(rng.IntN(4))
			if rng.IntN(2) == 0 {
				part = 0
			}
			return types.Row{types.NewInt8(part), types.NewInt8(int64(rng.IntN(500))), types.NewText(strings.Repeat("s", rng.IntN(20)))}
		}))
		step(t, g)
		if got, want := node.StateBytes(), walk(); got != want {
			t.Fatalf("tick %d: StateBytes %d, want %d", tick, got, want)
		}
	}
	if !slices.ContainsFunc(op.parts, func(p *wPart) bool { return p != nil && len(p.s.chunks) > 1 }) {
		t.Fatal("no partition split its chunks")
	}
	// Deleting the first half of partition 0 in order empties whole
	// chunks while the partition stays.
	var b Batch
	for _, r := range live {
		if r[0].Int() == 0 && r[1].Int() < 250 {
			b = append(b, Update{Row: r, Diff: -1})
		}
	}
	in.Push(b)
	step(t, g)
	if got, want := node.StateBytes(), walk(); got != want {
		t.Fatalf("after emptying chunks: StateBytes %d, want %d", got, want)
	}
}
