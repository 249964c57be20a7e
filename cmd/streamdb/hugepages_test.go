//go:build unix

package main

import (
	"slices"
	"testing"
)

func TestWithHugeTLB(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		want []string
		ok   bool
	}{
		{"absent", []string{"A=1"}, []string{"A=1", "GLIBC_TUNABLES=glibc.malloc.hugetlb=1"}, true},
		{"other tunables kept", []string{"GLIBC_TUNABLES=glibc.malloc.arena_max=2", "B=2"},
			[]string{"GLIBC_TUNABLES=glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1", "B=2"}, true},
		{"empty", []string{"GLIBC_TUNABLES="}, []string{"GLIBC_TUNABLES=glibc.malloc.hugetlb=1"}, true},
		{"set by the user", []string{"GLIBC_TUNABLES=glibc.malloc.hugetlb=0"}, []string{"GLIBC_TUNABLES=glibc.malloc.hugetlb=0"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := withHugeTLB(tt.env)
			if ok != tt.ok || !slices.Equal(got, tt.want) {
				t.Errorf("withHugeTLB(%q) = %q, %v; want %q, %v", tt.env, got, ok, tt.want, tt.ok)
			}
		})
	}
}
