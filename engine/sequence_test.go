package engine

import (
	"math"
	"testing"
)

func TestAddBounded(t *testing.T) {
	tests := []struct {
		v, inc, lo, hi int64
		want           int64
		ok             bool
	}{
		{1, 1, 1, 10, 2, true},
		{10, 1, 1, 10, 0, false},
		{math.MaxInt64, 1, 1, math.MaxInt64, 0, false},
		{math.MinInt64 + 1, -5, math.MinInt64, -1, 0, false},
		{-3, -5, -8, 3, -8, true},
		{-7, -5, -8, 3, 0, false},
	}
	for _, tt := range tests {
		got, ok := addBounded(tt.v, tt.inc, tt.lo, tt.hi)
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("addBounded(%d, %d, %d, %d) = %d, %v; want %d, %v", tt.v, tt.inc, tt.lo, tt.hi, got, ok, tt.want, tt.ok)
		}
	}
}
