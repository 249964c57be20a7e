package loadgen

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// testEpoch is where virtual clocks start.
var testEpoch = time.Date(2025, time.March, 1, 12, 0, 0, 0, time.UTC)

// virtualClock is a clock whose Sleep advances time instantly.
type virtualClock struct {
	mu sync.Mutex
	t  time.Time
}

func newVirtualClock(t time.Time) *virtualClock { return &virtualClock{t: t} }

func (c *virtualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *virtualClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(max(d, 0))
	return nil
}

// recorder is a Sink that keeps every batch and ends the run when stop
// says so.
type recorder struct {
	batches []*sources.Batch
	states  []sources.State
	stop    func(r *recorder) bool
	cancel  context.CancelFunc
}

func (r *recorder) Emit(ctx context.Context, b *sources.Batch) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r.batches = append(r.batches, b)
	if r.stop != nil && r.stop(r) {
		r.cancel()
	}
	return nil
}

func (r *recorder) Status(s sources.State, _ string) { r.states = append(r.states, s) }

// afterBatches stops a run after n batches.
func afterBatches(n int) func(*recorder) bool {
	return func(r *recorder) bool { return len(r.batches) >= n }
}

// run runs src from resume until stop ends it (or, with stop nil, until
// timeout) and returns the sink. A run that ends any other way fails t.
func run(t testing.TB, src sources.Source, resume map[string][]byte, stop func(*recorder) bool, timeout time.Duration) *recorder {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	r := &recorder{stop: stop, cancel: cancel}
	err := src.Run(ctx, resume, r)
	if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run returned %v, want the context's error", err)
	}
	if stop != nil && errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run timed out after %d batches", len(r.batches))
	}
	return r
}

// newTestSource builds a generator on a virtual clock.
func newTestSource(t testing.TB, kindName string, opts Options, clk clock) sources.Source {
	t.Helper()
	k, err := parseKind(kindName)
	if err != nil {
		t.Fatal(err)
	}
	if err := opts.validate(k); err != nil {
		t.Fatal(err)
	}
	return newSource(k, opts, clk)
}

// outputRows returns the changes of all batches per output, in order.
func outputRows(batches []*sources.Batch, outputs int) [][]sources.Change {
	all := make([][]sources.Change, outputs)
	for _, b := range batches {
		for i, ch := range b.Changes {
			all[i] = append(all[i], ch...)
		}
	}
	return all
}

// lastPosition returns the position after the last batch.
func lastPosition(t testing.TB, batches []*sources.Batch) int64 {
	t.Helper()
	pos, err := decodePosition(batches[len(batches)-1].Progress)
	if err != nil {
		t.Fatal(err)
	}
	return pos
}

// formatRow prints a row in PostgreSQL's text format, columns separated by
// " | ".
func formatRow(row types.Row, cols []sources.Column) string {
	var b strings.Builder
	for i, d := range row {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(types.FormatText(d, cols[i].Type, nil))
	}
	return b.String()
}

// checkGolden compares got with testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("%s differs at line %d:\ngot:  %s\nwant: %s\n(run with -update to accept)", path, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s: got %d lines, want %d (run with -update to accept)", path, len(gl), len(wl))
	}
}

// checkSchema verifies that every row matches its output's column count
// and types and has no NULL in a NOT NULL column.
func checkSchema(t *testing.T, outputs []sources.Output, batches []*sources.Batch) {
	t.Helper()
	for bi, b := range batches {
		if len(b.Changes) > len(outputs) {
			t.Fatalf("batch %d has changes for %d outputs, source has %d", bi, len(b.Changes), len(outputs))
		}
		for oi, chs := range b.Changes {
			cols := outputs[oi].Columns
			for _, ch := range chs {
				if len(ch.Row) != len(cols) {
					t.Fatalf("%s row has %d columns, want %d", outputs[oi].Name, len(ch.Row), len(cols))
				}
				for ci, d := range ch.Row {
					if d.IsNull() {
						if cols[ci].NotNull {
							t.Fatalf("%s.%s is NULL", outputs[oi].Name, cols[ci].Name)
						}
						continue
					}
					if d.Kind() != cols[ci].Type.Family {
						t.Fatalf("%s.%s holds %v, declared %v", outputs[oi].Name, cols[ci].Name, d.Kind(), cols[ci].Type)
					}
				}
			}
		}
	}
}
