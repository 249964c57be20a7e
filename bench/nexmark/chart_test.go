package main

import (
	"bytes"
	"image/png"
	"testing"
)

func TestLogRange(t *testing.T) {
	for _, tc := range []struct {
		vals   []float64
		lo, hi float64
	}{
		{nil, 0, 1},
		{[]float64{2500, 180000}, 3, 6},
		{[]float64{1000}, 3, 4},
		{[]float64{0, 50}, 1, 2},
	} {
		var rs []result
		for _, v := range tc.vals {
			rs = append(rs, result{StreamdbEPS: ptr(v)})
		}
		if lo, hi := logRange(rs); lo != tc.lo || hi != tc.hi {
			t.Errorf("logRange(%v) = %v, %v; want %v, %v", tc.vals, lo, hi, tc.lo, tc.hi)
		}
	}
}

func TestHumanRate(t *testing.T) {
	for v, want := range map[float64]string{950: "950", 12345: "12.3k", 4.56e6: "4.56M", 0.5: "0.5"} {
		if got := humanRate(v); got != want {
			t.Errorf("humanRate(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestChartSize checks the image grows with the number of queries and
// tolerates missing numbers.
func TestChartSize(t *testing.T) {
	rs := []result{{Query: "q0", StreamdbEPS: ptr(5e4), PostgresEPS: ptr(2e3)}, {Query: "q5"}}
	var buf bytes.Buffer
	if err := writeChart(&buf, "t", rs); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != chartWidth || b.Dy() != chartTop+2*rowHeight+chartBottom {
		t.Fatalf("chart is %v", b)
	}
}
