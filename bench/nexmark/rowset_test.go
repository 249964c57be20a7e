package main

import (
	"hash/maphash"
	"testing"
)

func TestRowKeyRoundTrip(t *testing.T) {
	vals := [][]byte{[]byte("a"), nil, []byte(""), []byte("1, 2")}
	got := decodeKey(string(rowKey(nil, vals)))
	if want := "(a, NULL, , 1, 2)"; got != want {
		t.Fatalf("decodeKey = %q, want %q", got, want)
	}
}

// TestRowKeyUnambiguous checks that rows differing only in how bytes are
// split between columns, or in NULL versus empty, encode differently.
func TestRowKeyUnambiguous(t *testing.T) {
	rows := [][][]byte{
		{[]byte("ab"), []byte("c")},
		{[]byte("a"), []byte("bc")},
		{nil, []byte("c")},
		{[]byte(""), []byte("c")},
	}
	seen := map[string]int{}
	for i, r := range rows {
		k := string(rowKey(nil, r))
		if j, dup := seen[k]; dup {
			t.Fatalf("rows %d and %d share an encoding", j, i)
		}
		seen[k] = i
	}
}

// TestDigestOrderIndependent checks that a digest is a multiset digest:
// the same rows in another order sum to the same value, a repeated row
// does not.
func TestDigestOrderIndependent(t *testing.T) {
	sum := func(rows ...string) uint64 {
		var s uint64
		for _, r := range rows {
			s += maphash.Bytes(rowSeed, rowKey(nil, [][]byte{[]byte(r)}))
		}
		return s
	}
	if sum("a", "b", "c") != sum("c", "a", "b") {
		t.Fatal("digest depends on row order")
	}
	if sum("a", "a", "b") == sum("a", "b", "b") {
		t.Fatal("digest ignores multiplicity")
	}
}
