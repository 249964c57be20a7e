package dataflow

import (
	"context"
	"errors"
	"testing"

	"github.com/streamdb/streamdb/types"
)

func step(t testing.TB, g *Graph) {
	t.Helper()
	if err := g.Step(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestStepCanceled(t *testing.T) {
	g := NewGraph()
	in := g.Input()
	out := g.Output(g.Distinct(in.Node()))
	in.Push(parseBatch("+(1)"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := g.Step(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	// Canceled before starting: nothing happened, the tick can be retried.
	step(t, g)
	if got := fmtBatch(out.Delta()); got != "+(1)" {
		t.Fatalf("got %s", got)
	}
}

func TestStepPoisonedByFailure(t *testing.T) {
	g := NewGraph()
	in := g.Input()
	j := g.Join(in.Node(), in.Node(), JoinSpec{Output: concat})
	g.Output(j)
	in.Push(parseBatch("+(1)"))
	step(t, g)
	// Corrupt the arrangement: an internal failure must fail the Step
	// and every later one.
	la := g.ops[j.id].(*joinOp).la
	la.tab.each(func(i int) bool {
		la.tab.value(i)[1+8+1] = 0x7f // the row's column count
		return true
	})
	in.Push(parseBatch("+(2)"))
	err := g.Step(context.Background())
	if err == nil {
		t.Fatal("corrupt state not detected")
	}
	if err2 := g.Step(context.Background()); !errors.Is(err2, err) && err2.Error() != err.Error() {
		t.Fatalf("graph not poisoned: %v", err2)
	}
}

func TestNodeInfo(t *testing.T) {
	g := NewGraph()
	in := g.Input()
	d := g.Distinct(in.Node())
	if d.Name() != "Distinct" || in.Node().Name() != "Input" {
		t.Fatalf("names %q %q", d.Name(), in.Node().Name())
	}
	in.Push(parseBatch("+(1) +(2)"))
	step(t, g)
	if d.StateBytes() <= 0 || g.StateBytes() < d.StateBytes() {
		t.Fatalf("state bytes %d %d", d.StateBytes(), g.StateBytes())
	}
}

func TestForeignNodePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	g1, g2 := NewGraph(), NewGraph()
	g2.Distinct(g1.Input().Node())
}

// TestInputBatches: a single pushed batch is read in place and left
// intact; several are concatenated.
func TestInputBatches(t *testing.T) {
	g := NewGraph()
	in := g.Input()
	c := g.Collect(in.Node())
	b := parseBatch("+(1) +(2)")
	in.Push(b)
	step(t, g)
	step(t, g)
	if fmtBatch(b) != "+(1) +(2)" || b[0].Row == nil {
		t.Fatalf("pushed batch modified: %v", b)
	}
	in.Push(parseBatch("+(3)"))
	in.Push(nil)
	in.Push(parseBatch("+(4) -(3)"))
	in.Push(parseBatch("+(5)"))
	step(t, g)
	if got := fmtBatch(c.Delta()); got != "+(4) +(5)" {
		t.Fatalf("got %s", got)
	}
	step(t, g)
	if got := fmtBatch(c.Delta()); got != "" {
		t.Fatalf("empty tick got %s", got)
	}
}

// TestStepCanceledInsideJoin: a cross join checks its context while it
// works.
func TestStepCanceledInsideJoin(t *testing.T) {
	g := NewGraph()
	l, r := g.Input(), g.Input()
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	g.Collect(g.Join(l.Node(), r.Node(), JoinSpec{Output: func(a, b types.Row) types.Row {
		if calls++; calls == 10 {
			cancel()
		}
		return concat(a, b)
	}}))
	var big Batch
	for i := range 1000 {
		big = append(big, Update{Row: int8Row(int64(i)), Diff: 1})
	}
	r.Push(big)
	step(t, g)
	l.Push(big)
	if err := g.Step(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	if calls >= 1000*1000 {
		t.Fatalf("join ran to completion: %d outputs", calls)
	}
}

// TestStepFinal checks that a graph's final step yields what Step would
// and that the graph refuses to step again.
func TestStepFinal(t *testing.T) {
	g := NewGraph()
	l, r := g.Input(), g.Input()
	c := g.Collect(g.Join(l.Node(), r.Node(), JoinSpec{LeftKey: keyCol(0), RightKey: keyCol(0), Output: concat}))
	l.Push(parseBatch("+(1, a) +2(2, b) +(NULL, c)"))
	r.Push(parseBatch("+(1, x) +(1, y) +3(2, z) +(NULL, w)"))
	if err := g.StepFinal(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := fmtBatch(c.Delta()), "+(1, a, 1, x) +(1, a, 1, y) +6(2, b, 2, z)"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	if n := g.StateBytes(); n > 1<<10 {
		t.Errorf("final step arranged its inputs: %d state bytes", n)
	}
	if err := g.Step(context.Background()); !errors.Is(err, errSteppedAfterFinal) {
		t.Fatalf("step after the final one: %v", err)
	}
}
