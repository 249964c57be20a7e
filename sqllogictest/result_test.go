package sqllogictest

import (
	"slices"
	"strconv"
	"testing"
)

func newResult(ncols int, values ...string) *resultSet {
	return &resultSet{ncols: ncols, values: values}
}

func TestSort(t *testing.T) {
	tests := []struct {
		mode SortMode
		in   []string
		want []string
	}{
		{NoSort, []string{"b", "2", "a", "1"}, []string{"b", "2", "a", "1"}},
		{RowSort, []string{"b", "2", "a", "1", "a", "0"}, []string{"a", "0", "a", "1", "b", "2"}},
		// Bytewise, like strcmp: "10" sorts before "9" and "NULL" after digits.
		{RowSort, []string{"9", "x", "10", "y", "NULL", "z"}, []string{"10", "y", "9", "x", "NULL", "z"}},
		{ValueSort, []string{"b", "2", "a", "1"}, []string{"1", "2", "a", "b"}},
	}
	for _, tt := range tests {
		rs := newResult(2, slices.Clone(tt.in)...)
		rs.sort(tt.mode)
		if !slices.Equal(rs.values, tt.want) {
			t.Errorf("%v sort of %q = %q, want %q", tt.mode, tt.in, rs.values, tt.want)
		}
	}
}

func TestHash(t *testing.T) {
	// The MD5 of "1\n2\n", as the reference runner computes it.
	if got, want := newResult(1, "1", "2").hash(), "2 values hashing to 6ddb4095eb719e2a9f0a3f95677d24e0"; got != want {
		t.Errorf("hash = %q, want %q", got, want)
	}
	if got, want := newResult(1).hash(), "0 values hashing to d41d8cd98f00b204e9800998ecf8427e"; got != want {
		t.Errorf("hash of nothing = %q, want %q", got, want)
	}
}

func TestIsHashLine(t *testing.T) {
	for s, want := range map[string]bool{
		"30 values hashing to 6ddb4095eb719e2a9f0a3f95677d24e0":  true,
		"30 values hashing to 6DDB4095EB719E2A9F0A3F95677D24E0":  false,
		"x values hashing to 6ddb4095eb719e2a9f0a3f95677d24e0":   false,
		"30 values hashing to 6ddb4095eb719e2a9f0a3f95677d24e":   false,
		" values hashing to 6ddb4095eb719e2a9f0a3f95677d24e0":    false,
		"30 values hashed to 6ddb4095eb719e2a9f0a3f95677d24e0xx": false,
	} {
		if got := isHashLine(s); got != want {
			t.Errorf("isHashLine(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestMatchesAndLines(t *testing.T) {
	rs := newResult(2, "1", "a b", "2", "NULL")
	hash := rs.hash()
	tests := []struct {
		name     string
		expected []string
		rowwise  bool
		want     bool
	}{
		{"values", []string{"1", "a b", "2", "NULL"}, false, true},
		{"hash", []string{hash}, false, true},
		{"hash in rowwise layout", []string{hash}, true, true},
		{"wrong hash", []string{"4 values hashing to 00000000000000000000000000000000"}, false, false},
		{"missing value", []string{"1", "a b", "2"}, false, false},
		{"extra value", []string{"1", "a b", "2", "NULL", "3"}, false, false},
		{"rows", []string{"1 a b", "2 NULL"}, true, true},
		{"rows, wrong split", []string{"1 a", "b 2 NULL"}, true, false},
		{"rows, trailing space", []string{"1 a b ", "2 NULL"}, true, false},
	}
	for _, tt := range tests {
		if got := rs.matches(tt.expected, tt.rowwise); got != tt.want {
			t.Errorf("%s: matches = %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := rs.lines(3, false); !slices.Equal(got, []string{hash}) {
		t.Errorf("lines over threshold = %q", got)
	}
	if got := rs.lines(0, true); !slices.Equal(got, []string{"1 a b", "2 NULL"}) {
		t.Errorf("rowwise lines = %q", got)
	}
	if got := rs.lines(8, false); !slices.Equal(got, rs.values) {
		t.Errorf("lines under threshold = %q", got)
	}
}

func BenchmarkSortAndHash(b *testing.B) {
	values := make([]string, 0, 3000)
	for i := range 1000 {
		values = append(values, strconv.Itoa(i*7919%1000), "text"+strconv.Itoa(i), "1.500")
	}
	rs := newResult(3)
	b.ReportAllocs()
	for b.Loop() {
		rs.values = append(rs.values[:0], values...)
		rs.sort(RowSort)
		rs.hash()
	}
	b.ReportMetric(float64(b.N*len(values))/b.Elapsed().Seconds(), "values/s")
}
