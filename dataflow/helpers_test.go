package dataflow

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// The tests write batches as traces, the notation of the operator docs:
// "+(1, a) -(2, b) +3(4, NULL)" is a Z-set with weights +1, -1, +3.
// Integers are int8, NULL is NULL, anything else is text.

func parseDatum(s string) types.Datum {
	s = strings.TrimSpace(s)
	if s == "NULL" {
		return types.Null
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return types.NewInt8(v)
	}
	return types.NewText(s)
}

func parseRow(s string) types.Row {
	s = strings.TrimSpace(s)
	if s == "" {
		return types.Row{}
	}
	var r types.Row
	for _, f := range strings.Split(s, ",") {
		r = append(r, parseDatum(f))
	}
	return r
}

// parseBatch parses a trace. It panics on malformed input: traces are
// test literals.
func parseBatch(s string) Batch {
	var b Batch
	s = strings.TrimSpace(s)
	for s != "" {
		sign := int64(1)
		switch s[0] {
		case '+':
		case '-':
			sign = -1
		default:
			panic(fmt.Sprintf("bad trace %q", s))
		}
		open := strings.IndexByte(s, '(')
		end := strings.IndexByte(s, ')')
		w := int64(1)
		if open > 1 {
			v, err := strconv.ParseInt(s[1:open], 10, 64)
			if err != nil {
				panic(fmt.Sprintf("bad weight in %q", s))
			}
			w = v
		}
		b = append(b, Update{Row: parseRow(s[open+1 : end]), Diff: sign * w})
		s = strings.TrimSpace(s[end+1:])
	}
	return b
}

func fmtDatum(d types.Datum) string {
	switch {
	case d.IsNull():
		return "NULL"
	case d.Kind().IsInteger():
		return strconv.FormatInt(d.Int(), 10)
	case d.Kind() == types.Bool:
		return strconv.FormatBool(d.Bool())
	case d.Kind() == types.Float8:
		return strconv.FormatFloat(d.Float(), 'g', -1, 64)
	case d.Kind() == types.Timestamp || d.Kind() == types.TimestampTZ:
		return "t" + strconv.FormatInt(d.Int(), 10)
	}
	return d.Str()
}

func fmtRow(r types.Row) string {
	parts := make([]string, len(r))
	for i, d := range r {
		parts[i] = fmtDatum(d)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func fmtUpdate(u Update) string {
	w := ""
	if u.Diff != 1 && u.Diff != -1 {
		w = strconv.FormatInt(abs(u.Diff), 10)
	}
	sign := "+"
	if u.Diff < 0 {
		sign = "-"
	}
	return sign + w + fmtRow(u.Row)
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// fmtBatch formats a batch in consolidated order, so that two Z-sets are
// equal exactly when their formats are.
func fmtBatch(b Batch) string {
	b = append(Batch(nil), b...).Consolidate()
	parts := make([]string, len(b))
	for i, u := range b {
		parts[i] = fmtUpdate(u)
	}
	return strings.Join(parts, " ")
}

func fmtErrors(errs []ErrorUpdate) string {
	errs = ConsolidateErrors(append([]ErrorUpdate(nil), errs...))
	parts := make([]string, len(errs))
	for i, e := range errs {
		parts[i] = fmt.Sprintf("%+d %s %s", e.Diff, e.Err.Code, e.Err.Message)
	}
	return strings.Join(parts, "; ")
}

// snapshotBatch returns a snapshot's contents as a batch, ignoring errors.
func snapshotBatch(t testing.TB, s *Snapshot) Batch {
	t.Helper()
	var b Batch
	if err := s.ScanAll(func(r types.Row, n int64) bool {
		b = append(b, Update{Row: r, Diff: n})
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return b
}

// traceCase is an operator test written as a trace: the graph, the input
// deltas of each tick (one trace per input) and the expected output delta
// of each tick, compared after consolidation. wantErrs, when set, gives
// the expected error delta per tick.
type traceCase struct {
	name     string
	inputs   int
	build    func(g *Graph, in []Node) Node
	ticks    [][]string
	want     []string
	wantErrs []string
}

func runTrace(t *testing.T, tc traceCase) {
	t.Helper()
	g := NewGraph()
	var ins []*Input
	var nodes []Node
	for range max(tc.inputs, 1) {
		in := g.Input()
		ins = append(ins, in)
		nodes = append(nodes, in.Node())
	}
	col := g.Collect(tc.build(g, nodes))
	for i, tick := range tc.ticks {
		for j, s := range tick {
			ins[j].Push(parseBatch(s))
		}
		if err := g.Step(context.Background()); err != nil {
			t.Fatalf("%s: tick %d: %v", tc.name, i, err)
		}
		if got, want := fmtBatch(col.Delta()), fmtBatch(parseBatch(tc.want[i])); got != want {
			t.Errorf("%s: tick %d:\n got %s\nwant %s", tc.name, i, got, want)
		}
		if tc.wantErrs != nil {
			if got := fmtErrors(col.Errors()); got != tc.wantErrs[i] {
				t.Errorf("%s: tick %d errors:\n got %s\nwant %s", tc.name, i, got, tc.wantErrs[i])
			}
		}
	}
}

func col(i int) func(types.Row) types.Row {
	return func(r types.Row) types.Row { return types.Row{r[i]} }
}

func keyCol(i int) KeyFunc {
	return func(r types.Row) (types.Row, bool) { return types.Row{r[i]}, !r[i].IsNull() }
}

func concat(l, r types.Row) types.Row {
	out := make(types.Row, 0, len(l)+len(r))
	return append(append(out, l...), r...)
}

var errDivByZero = pgerr.New(pgerr.DivisionByZero, "division by zero")

// Test aggregates: the real ones live in planner/scalar.

// countAgg is count(*).
type countAgg struct{}

func (countAgg) NewState() AggState { return new(countState) }

type countState struct{ n int64 }

func (s *countState) Update(_ types.Row, diff int64) error { s.n += diff; return nil }
func (s *countState) Result() (types.Datum, error)         { return types.NewInt8(s.n), nil }

// sumAgg is sum(col) over int8, NULL for no non-NULL input. failOn makes
// Update fail on that value (an evaluation error of the argument), and
// resultFailAbove makes Result fail when the sum exceeds it (an overflow).
type sumAgg struct {
	col             int
	failOn          int64
	resultFailAbove int64
}

func (a sumAgg) NewState() AggState { return &sumState{agg: a} }

type sumState struct {
	agg      sumAgg
	sum, cnt int64
}

func (s *sumState) Update(r types.Row, diff int64) error {
	d := r[s.agg.col]
	if d.IsNull() {
		return nil
	}
	if s.agg.failOn != 0 && d.Int() == s.agg.failOn {
		return errDivByZero
	}
	s.sum += d.Int() * diff
	s.cnt += diff
	return nil
}

func (s *sumState) Result() (types.Datum, error) {
	if s.cnt == 0 {
		return types.Null, nil
	}
	if s.agg.resultFailAbove != 0 && s.sum > s.agg.resultFailAbove {
		return types.Null, pgerr.New(pgerr.NumericValueOutOfRange, "bigint out of range")
	}
	return types.NewInt8(s.sum), nil
}

// flatCountAgg and flatSumAgg are countAgg and sumAgg as FlatAggregates,
// their states in the group's words.
type flatCountAgg struct{ countAgg }

func (flatCountAgg) Words() int                            { return 1 }
func (flatCountAgg) Fallible() bool                        { return false }
func (flatCountAgg) Result(w []int64) (types.Datum, error) { return types.NewInt8(w[0]), nil }

// Inline: Reduce counts the rows itself.
func (flatCountAgg) Inline() (WordsOp, bool) { return WordsOp{Kind: CountRows}, true }

func (flatCountAgg) Add(w []int64, _ types.Row, diff int64) error {
	w[0] += diff
	return nil
}

type flatSumAgg struct{ sumAgg }

func (flatSumAgg) Words() int { return 2 }

func (a flatSumAgg) Fallible() bool { return a.resultFailAbove != 0 }

// Inline: none, the sum's words are not SumColumn's, so Reduce calls Add.
func (flatSumAgg) Inline() (WordsOp, bool) { return WordsOp{}, false }

func (a flatSumAgg) Add(w []int64, row types.Row, diff int64) error {
	s := sumState{agg: a.sumAgg, sum: w[0], cnt: w[1]}
	if err := s.Update(row, diff); err != nil {
		return err
	}
	w[0], w[1] = s.sum, s.cnt
	return nil
}

func (a flatSumAgg) Result(w []int64) (types.Datum, error) {
	s := sumState{agg: a.sumAgg, sum: w[0], cnt: w[1]}
	return s.Result()
}

// flatIntSumAgg is sum(col) of an integer column as Reduce adds it
// inline (WordsOp SumColumn): NULL for no values.
type flatIntSumAgg struct{ col int }

func (a flatIntSumAgg) NewState() AggState { return &sumState{agg: sumAgg{col: a.col}} }
func (flatIntSumAgg) Words() int           { return 3 }
func (flatIntSumAgg) Fallible() bool       { return false }

func (a flatIntSumAgg) Inline() (WordsOp, bool) {
	return WordsOp{Kind: SumColumn, Col: a.col, Overflow: pgerr.New(pgerr.NumericValueOutOfRange, "sum out of range")}, true
}

func (a flatIntSumAgg) Add(w []int64, row types.Row, diff int64) error {
	op, _ := a.Inline()
	_, err := op.Add(w, row, diff)
	return err
}

func (flatIntSumAgg) Result(w []int64) (types.Datum, error) {
	if w[2] == 0 {
		return types.Null, nil
	}
	return types.NewInt8(w[1]), nil
}

// flatCountColAgg is count(col) as Reduce adds it inline (WordsOp
// CountColumn).
type flatCountColAgg struct{ col int }

func (a flatCountColAgg) NewState() AggState { return &countColState{col: a.col} }
func (flatCountColAgg) Words() int           { return 1 }
func (flatCountColAgg) Fallible() bool       { return false }
func (a flatCountColAgg) Inline() (WordsOp, bool) {
	return WordsOp{Kind: CountColumn, Col: a.col}, true
}
func (flatCountColAgg) Result(w []int64) (types.Datum, error) { return types.NewInt8(w[0]), nil }

func (a flatCountColAgg) Add(w []int64, row types.Row, diff int64) error {
	op, _ := a.Inline()
	_, err := op.Add(w, row, diff)
	return err
}

// countColState is count(col) as an AggState.
type countColState struct {
	col int
	n   int64
}

func (s *countColState) Update(r types.Row, diff int64) error {
	if !r[s.col].IsNull() {
		s.n += diff
	}
	return nil
}

func (s *countColState) Result() (types.Datum, error) { return types.NewInt8(s.n), nil }

// minAgg is min(col) (max when max is set), keeping the multiset of
// values so that deleting the current extreme works.
type minAgg struct {
	col int
	max bool
}

func (a minAgg) NewState() AggState { return &minState{agg: a, vals: map[string]*minVal{}} }

type minVal struct {
	d types.Datum
	n int64
}

type minState struct {
	agg  minAgg
	vals map[string]*minVal
	// changed lists the values changed since the last DrainElements,
	// once TrackElements was called.
	changed map[string]bool
}

func (s *minState) Update(r types.Row, diff int64) error {
	d := r[s.agg.col]
	if d.IsNull() {
		return nil
	}
	k := string(types.AppendKey(nil, d, false))
	v := s.vals[k]
	if v == nil {
		v = &minVal{d: d}
		s.vals[k] = v
	}
	v.n += diff
	if v.n == 0 {
		delete(s.vals, k)
	}
	if s.changed != nil {
		s.changed[k] = true
	}
	return nil
}

func (s *minState) Result() (types.Datum, error) {
	best := types.Null
	for _, v := range s.vals {
		if v.n <= 0 {
			continue
		}
		c := types.Compare(v.d, best)
		if best.IsNull() || (c < 0) != s.agg.max && c != 0 {
			best = v.d
		}
	}
	return best, nil
}

func (s *minState) StateBytes() int64 { return int64(len(s.vals)) * 96 }

func types2Err(code, msg string) *pgerr.Error { return pgerr.New(pgerr.Code(code), "%s", msg) }

// randomChanges returns n random changes to live, the rows inserted and
// not yet deleted, and applies them to it: each deletes a random live
// row when del says so (asked only while there is one), else inserts
// newRow().
func randomChanges(rng *rand.Rand, live *[]types.Row, n int, del func() bool, newRow func() types.Row) Batch {
	var b Batch
	for range n {
		if len(*live) > 0 && del() {
			i := rng.IntN(len(*live))
			b = append(b, Update{Row: (*live)[i], Diff: -1})
			*live = append((*live)[:i], (*live)[i+1:]...)
			continue
		}
		r := newRow()
		b = append(b, Update{Row: r, Diff: 1})
		*live = append(*live, r)
	}
	return b
}
