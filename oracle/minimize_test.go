package oracle

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestMinimize shrinks a scenario against a fake engine that fails view
// v0 whenever t1 receives the row (3) while a table t1 exists.
func TestMinimize(t *testing.T) {
	sc := &Scenario{
		Notes:  []string{"seed 0"},
		Tables: []string{"CREATE TABLE t0 (k int)", "CREATE TABLE t1 (k int)", "CREATE TABLE t2 (k int)"},
		Views:  []View{{Name: "v0", Query: "SELECT k FROM t1"}, {Name: "v1", Query: "SELECT k FROM t0"}},
	}
	for i := range 12 {
		st := Step{Stmts: []string{
			fmt.Sprintf("INSERT INTO t0 VALUES (%d), (%d)", i, i+1),
			fmt.Sprintf("INSERT INTO t1 VALUES (%d), (%d), (%d)", i, i+1, i+2),
			"DELETE FROM t2",
		}}
		sc.Steps = append(sc.Steps, st)
		if i == 6 {
			sc.Steps = append(sc.Steps, Step{Restart: true})
		}
	}
	runs := 0
	run := func(c *Scenario, only []string) *Outcome {
		runs++
		if !reflect.DeepEqual(only, []string{"v0"}) {
			t.Fatalf("run restricted to %v, want [v0]", only)
		}
		out := &Outcome{}
		if !slices.Contains(c.Tables, "CREATE TABLE t1 (k int)") {
			return out
		}
		for i, st := range c.Steps {
			for _, s := range st.Stmts {
				if strings.HasPrefix(s, "INSERT INTO t1") && strings.Contains(s, "(3)") {
					out.Failures = append(out.Failures, Failure{Kind: KindRows, View: "v0", Step: i})
					return out
				}
			}
		}
		return out
	}
	first := run(sc, []string{"v0"}).Failures[0]
	got := Minimize(sc, first, run)
	want := &Scenario{
		Notes:  []string{"seed 0"},
		Tables: []string{"CREATE TABLE t1 (k int)"},
		Views:  []View{{Name: "v0", Query: "SELECT k FROM t1"}},
		Steps:  []Step{{Stmts: []string{"INSERT INTO t1 VALUES (3)"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("minimised to\n%s\nwant\n%s", got.Script(), want.Script())
	}
	t.Logf("%d runs", runs)

	if Minimize(sc, Failure{Kind: KindError, View: "v0", Step: 3}, run) != nil {
		t.Error("a failure that does not reproduce was minimised")
	}
}

func TestShrink(t *testing.T) {
	xs := []int{1, 2, 3, 4, 5, 6, 7, 8, 9}
	got := shrink(xs, func(c []int) bool { return slices.Contains(c, 4) && slices.Contains(c, 7) })
	if !reflect.DeepEqual(got, []int{4, 7}) {
		t.Errorf("shrink = %v, want [4 7]", got)
	}
	if got := shrink([]int{}, func([]int) bool { return true }); len(got) != 0 {
		t.Errorf("shrink of nothing = %v", got)
	}
}
