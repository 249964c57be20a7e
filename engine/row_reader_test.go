package engine

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// TestRowReader checks the decoding of a query's scan: whole rows without
// needed columns, the needed columns alone with NULL elsewhere, and one
// shared row of NULLs when no column is needed.
func TestRowReader(t *testing.T) {
	row := types.Row{types.NewInt8(7), types.NewText("url"), types.NewInt4(3)}
	enc := types.AppendRow(nil, row)
	only := func(cols ...int) func(int) bool {
		return func(c int) bool {
			for _, k := range cols {
				if c == k {
					return true
				}
			}
			return false
		}
	}
	for _, tc := range []struct {
		name string
		keep func(int) bool
		want string
	}{
		{"whole", nil, "(7,url,3)"},
		{"some", only(0, 2), "(7,,3)"},
		{"one", only(1), "(,url,)"},
		{"none", only(), "(,,)"},
	} {
		r := NewRowReader(len(row), tc.keep)
		got, err := r.Decode(enc)
		if err != nil {
			t.Fatal(err)
		}
		if s := showRow(got); s != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, s, tc.want)
		}
		again, _ := r.Decode(enc)
		if shared := &got[0] == &again[0]; shared != (tc.name == "none") {
			t.Errorf("%s: rows shared %v", tc.name, shared)
		}
	}
}

// TestReusingRowReader checks that a reusing reader's rows read back as
// decoded until its reset, across the growth of its memory, and that
// once grown it decodes without allocating.
func TestReusingRowReader(t *testing.T) {
	r := newReusingRowReader()
	var rows []types.Row
	var want []string
	for i := range 3000 {
		row := types.Row{types.NewInt8(int64(i)), types.NewText(strings.Repeat("x", i%500)), types.Null}
		got, err := r.Decode(types.AppendRow(nil, row))
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, got)
		want = append(want, showRow(row))
	}
	for i, row := range rows {
		if got := showRow(row); got != want[i] {
			t.Fatalf("row %d reads %.40s, want %.40s", i, got, want[i])
		}
	}
	if r.full() {
		t.Error("full after 3,000 short rows")
	}
	wide := types.AppendRow(nil, types.Row{types.NewText(strings.Repeat("w", hydrateChunkBytes))})
	if _, err := r.Decode(wide); err != nil || !r.full() {
		t.Errorf("not full after a row of hydrateChunkBytes (%v)", err)
	}
	enc := types.AppendRow(nil, types.Row{types.NewInt8(1), types.NewText("abc")})
	r.reset()
	if n := testing.AllocsPerRun(100, func() {
		if _, err := r.Decode(enc); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%v allocations per row", n)
	}
}

// TestTightenGC checks that overlapping holds on the collector keep it
// at hydrationGCPercent until the last ends, then restore the setting.
func TestTightenGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	a := tightenGC()
	b := tightenGC()
	a()
	if got := debug.SetGCPercent(-1); got != hydrationGCPercent {
		t.Errorf("GC percent with one hold left: %d", got)
	}
	debug.SetGCPercent(hydrationGCPercent)
	b()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("GC percent after the holds: %d, want 150", got)
	}
}

// showRow prints a row as (a,b,c), NULL as nothing.
func showRow(row types.Row) string {
	cols := make([]string, len(row))
	for i, d := range row {
		if !d.IsNull() {
			cols[i] = types.FormatText(d, types.Type{Family: d.Kind(), Mod: -1}, nil)
		}
	}
	return "(" + strings.Join(cols, ",") + ")"
}
