package dataflow

import (
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// memState is a StateWriter and StateReader over a map, the persisted
// state of the tests.
type memState struct {
	kv map[string]string
}

func newMemState() *memState { return &memState{kv: map[string]string{}} }

func (m *memState) Set(key, value []byte) { m.kv[string(key)] = string(value) }

func (m *memState) Delete(key []byte) { delete(m.kv, string(key)) }

func (m *memState) DeleteRange(start, end []byte) {
	for k := range m.kv {
		if k >= string(start) && k < string(end) {
			delete(m.kv, k)
		}
	}
}

func (m *memState) Scan(prefix []byte, fn func(key, value []byte) error) error {
	var keys []string
	for k := range m.kv {
		if strings.HasPrefix(k, string(prefix)) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := fn([]byte(k), []byte(m.kv[k])); err != nil {
			return err
		}
	}
	return nil
}

// The test aggregates' states persist: counts and sums whole, min's
// values as elements.

func (s *countState) AppendState(dst []byte) []byte { return binary.AppendVarint(dst, s.n) }

func (s *countState) LoadState(src []byte) error {
	n, _, err := readVarint(src)
	s.n = n
	return err
}

func (s *countColState) AppendState(dst []byte) []byte { return binary.AppendVarint(dst, s.n) }

func (s *countColState) LoadState(src []byte) error {
	n, _, err := readVarint(src)
	s.n = n
	return err
}

func (s *sumState) AppendState(dst []byte) []byte {
	return binary.AppendVarint(binary.AppendVarint(dst, s.sum), s.cnt)
}

func (s *sumState) LoadState(src []byte) error {
	sum, rest, err := readVarint(src)
	if err != nil {
		return err
	}
	cnt, _, err := readVarint(rest)
	s.sum, s.cnt = sum, cnt
	return err
}

func (s *minState) AppendState(dst []byte) []byte { return dst }

func (s *minState) LoadState([]byte) error { return nil }

func (s *minState) TrackElements() { s.changed = map[string]bool{} }

func (s *minState) DrainElements(fn func(key []byte, n int64, payload []byte)) {
	for k := range s.changed {
		var n int64
		var payload []byte
		if v := s.vals[k]; v != nil {
			n, payload = v.n, types.AppendValue(nil, v.d)
		}
		fn([]byte(k), n, payload)
	}
	clear(s.changed)
}

func (s *minState) LoadElement(key []byte, n int64, payload []byte) error {
	d, _, err := types.DecodeValue(payload)
	if err != nil {
		return err
	}
	s.vals[string(key)] = &minVal{d: d, n: n}
	return nil
}

// opaqueAgg's states cannot be persisted.
type opaqueAgg struct{}

func (opaqueAgg) NewState() AggState { return &opaqueState{} }

type opaqueState struct{ n int64 }

func (s *opaqueState) Update(_ types.Row, diff int64) error { s.n += diff; return nil }
func (s *opaqueState) Result() (types.Datum, error)         { return types.NewInt8(s.n), nil }

func TestPersistable(t *testing.T) {
	g := NewGraph()
	in := g.Input()
	g.Output(g.Reduce(g.Join(in.Node(), in.Node(), JoinSpec{Output: concat}), ReduceSpec{Aggs: []Aggregate{countAgg{}, minAgg{col: 0}}}))
	if err := g.Persistable(); err != nil {
		t.Fatalf("Persistable: %v", err)
	}
	if got, want := g.StateShape(), "Input Join(arranged/1 keep [] []) Reduce(groups/1 keys 0 words 0 states 2) Output(grouped/1 errors/1)"; got != want {
		t.Errorf("StateShape = %q, want %q", got, want)
	}
	g = NewGraph()
	in = g.Input()
	g.Output(g.Reduce(in.Node(), ReduceSpec{Aggs: []Aggregate{opaqueAgg{}}}))
	if err := g.Persistable(); err == nil || !strings.Contains(err.Error(), "cannot be persisted") {
		t.Errorf("Persistable of an opaque aggregate: %v", err)
	}
	if err := g.Restore(context.Background(), newMemState()); err == nil {
		t.Error("Restore of a graph that cannot persist succeeded")
	}
}

// TestRestoreHotKey persists a join side whose key gathers enough rows
// for a bucket, before and after the bucket's first retraction, with
// rows inserted twice, and checks the restored join against the graph
// that never restarted.
func TestRestoreHotKey(t *testing.T) {
	kv := newMemState()
	build := func() (*Graph, *Input, *Input, *Output) {
		g := NewGraph()
		l, r := g.Input(), g.Input()
		out := g.Output(g.Join(l.Node(), r.Node(), JoinSpec{LeftKey: keyCol(0), RightKey: keyCol(0), Output: concat}))
		g.Persist(kv)
		return g, l, r, out
	}
	live, ll, lr, lout := build()
	live.Persist(nil)
	g, l, r, out := build()
	var ticks [][2]Batch
	for i := range 60 {
		b := Batch{{Row: types.Row{types.NewInt8(1), types.NewInt8(int64(i % 25))}, Diff: 1}}
		var rb Batch
		if i%7 == 0 {
			rb = Batch{{Row: types.Row{types.NewInt8(1), types.NewText("x")}, Diff: 1}}
		}
		if i == 40 {
			b = append(b, Update{Row: types.Row{types.NewInt8(1), types.NewInt8(3)}, Diff: -1})
		}
		ticks = append(ticks, [2]Batch{b, rb})
	}
	for i, tk := range ticks {
		for _, side := range []struct {
			l, r *Input
			g    *Graph
		}{{ll, lr, live}, {l, r, g}} {
			side.l.Push(tk[0])
			side.r.Push(tk[1])
			if err := side.g.Step(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if i%9 == 4 {
			g, l, r, out = build()
			if err := g.Restore(context.Background(), kv); err != nil {
				t.Fatalf("restore after tick %d: %v", i, err)
			}
		}
		if got, want := fmtBatch(snapshotBatch(t, out.Snapshot())), fmtBatch(snapshotBatch(t, lout.Snapshot())); got != want {
			t.Fatalf("tick %d: restored join\n%s\nwant\n%s", i, got, want)
		}
	}
}

// TestPersistAppendsPerTick checks that the rows a tick appends to a hot
// key's bucket are persisted in one entry, and restored.
func TestPersistAppendsPerTick(t *testing.T) {
	kv := newMemState()
	build := func() (*Graph, *Input, *Output) {
		g := NewGraph()
		l, r := g.Input(), g.Input()
		out := g.Output(g.Join(l.Node(), r.Node(), JoinSpec{LeftKey: keyCol(0), RightKey: keyCol(0), Output: concat}))
		g.Persist(kv)
		r.Push(Batch{{Row: types.Row{types.NewInt8(1), types.NewText("x")}, Diff: 1}})
		return g, l, out
	}
	g, l, out := build()
	for tick, rows := range []int{20, 50} {
		var b Batch
		for i := range rows {
			b = append(b, Update{Row: types.Row{types.NewInt8(1), types.NewInt8(int64(tick*100 + i%30))}, Diff: 1})
		}
		l.Push(b)
		if err := g.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	// The left arrangement is structure 0 of the join, operator 2.
	prefix := string(g.ops[2].(*joinOp).sk.prefix(0))
	var packed, appended int
	for k := range kv.kv {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		if form := k[len(k)-5]; form == 1 {
			appended++
		} else {
			packed++
		}
	}
	// 16 rows packed, then a bucket: the first tick's last 4 rows and the
	// second tick's 50 are one entry each.
	if packed != packedMax || appended != 2 {
		t.Errorf("persisted %d rows and %d appended entries, want %d and 2", packed, appended, packedMax)
	}
	restored, _, rout := build()
	if err := restored.Restore(context.Background(), kv); err != nil {
		t.Fatal(err)
	}
	if got, want := fmtBatch(snapshotBatch(t, rout.Snapshot())), fmtBatch(snapshotBatch(t, out.Snapshot())); got != want {
		t.Fatalf("restored join\n%s\nwant\n%s", got, want)
	}
}

func TestRestoreAfterStep(t *testing.T) {
	g := NewGraph()
	in := g.Input()
	g.Output(in.Node())
	if err := g.Step(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := g.Restore(context.Background(), newMemState()); err == nil {
		t.Error("Restore of a stepped graph succeeded")
	}
	g = NewGraph()
	g.Output(g.Input().Node())
	bad := newMemState()
	bad.kv[string([]byte{0, 1, 0})+"key"] = "\xff"
	if err := g.Restore(context.Background(), bad); !errors.Is(err, errCorruptState) {
		t.Errorf("Restore of corrupt state: %v", err)
	}
}

// TestRestoreDropsStaged restores a graph whose input had rows staged
// before the restore, as a VALUES list's are when its plan is lowered:
// they are in the restored state, and a later step must not add them
// again.
func TestRestoreDropsStaged(t *testing.T) {
	kv := newMemState()
	build := func() (*Graph, *Input, *Input, *Output) {
		g := NewGraph()
		g.Persist(kv)
		consts, in := g.Input(), g.Input()
		consts.Push(Batch{{Row: types.Row{types.NewInt8(1)}, Diff: 1}})
		return g, consts, in, g.Output(g.Join(consts.Node(), in.Node(), JoinSpec{LeftKey: keyCol(0), RightKey: keyCol(0), Output: concat}))
	}
	g, _, in, _ := build()
	in.Push(Batch{{Row: types.Row{types.NewInt8(1)}, Diff: 1}})
	if err := g.Step(context.Background()); err != nil {
		t.Fatal(err)
	}
	g, _, in, out := build()
	if err := g.Restore(context.Background(), kv); err != nil {
		t.Fatal(err)
	}
	in.Push(Batch{{Row: types.Row{types.NewInt8(1)}, Diff: 1}})
	if err := g.Step(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := fmtBatch(snapshotBatch(t, out.Snapshot())); got != "+2(1, 1)" {
		t.Errorf("after the restore and a step: %s, want +2(1, 1)", got)
	}
}

// TestExpiredGroupNotPersisted closes a group behind the watermark of a
// Reduce that persists: its persisted state goes with it, so that a
// restart does not bring the closed group back.
func TestExpiredGroupNotPersisted(t *testing.T) {
	var wm types.Datum = types.Null
	g := NewGraph()
	in := g.Input()
	r := g.Reduce(in.Node(), ReduceSpec{KeyCols: []int{0}, Aggs: []Aggregate{countAgg{}, sumAgg{col: 1}},
		Expire: &GroupExpiry{Key: 0, Watermark: func() (types.Datum, bool) { return wm, !wm.IsNull() }}})
	g.Collect(r)
	st := newMemState()
	g.Persist(st)
	step := func(rows ...types.Row) {
		t.Helper()
		b := make(Batch, len(rows))
		for i, row := range rows {
			b[i] = Update{Row: row, Diff: 1}
		}
		in.Push(b)
		if err := g.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	row := func(k, v int64) types.Row { return types.Row{types.NewInt8(k), types.NewInt8(v)} }
	step(row(1, 10), row(100, 20))
	before := len(st.kv)
	wm = types.NewInt8(50)
	step(row(100, 30))
	if got := len(st.kv); got != before-1 {
		t.Errorf("persisted entries: %d before group 1 closed, %d after; want one fewer", before, got)
	}
}
