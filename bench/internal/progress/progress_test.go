package progress

import (
	"strings"
	"testing"
)

// TestBarLog checks the non-terminal output: one line per step, none per
// update.
func TestBarLog(t *testing.T) {
	var sb strings.Builder
	b := New(&sb, 4)
	b.Step(0, "q0 streamdb")
	b.Update(0.5)
	b.Update(0.9)
	b.Step(1, "q0 postgres")
	b.Printf("q0: %d events/s", 1000)
	b.Finish()
	lines := strings.Split(strings.TrimSpace(sb.String()), "\n")
	want := []string{"[  0%] q0 streamdb", "[ 25%] q0 postgres", "q0: 1000 events/s", "[100%] done"}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), sb.String())
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want prefix %q", i, lines[i], w)
		}
	}
}

// TestBarDraw checks the terminal rendering of a partly complete step.
func TestBarDraw(t *testing.T) {
	var sb strings.Builder
	b := New(&sb, 2)
	b.tty = true
	b.Step(1, "q1")
	b.frac = 0.5
	sb.Reset()
	b.draw()
	got := sb.String()
	want := "\r[######################........]  75% q1 ("
	if !strings.HasPrefix(got, want) {
		t.Fatalf("draw = %q, want prefix %q", got, want)
	}
}
