package main

import "testing"

func TestSplitFiles(t *testing.T) {
	for _, c := range []struct {
		limit uint64
		asked int
		want  fileBudget
	}{
		{limit: 0, asked: 100, want: fileBudget{connections: 100}},
		{limit: 1 << 40, asked: 100, want: fileBudget{connections: 100}},
		{limit: 1 << 20, asked: 100, want: fileBudget{storage: 1000, connections: 100}},
		{limit: 1024, asked: 100, want: fileBudget{storage: 480, connections: 100}},
		{limit: 1024, asked: 5000, want: fileBudget{storage: 480, connections: 480, lowered: true}},
		{limit: 160, asked: 100, want: fileBudget{storage: 48, connections: 48, lowered: true}},
		{limit: 10, asked: 100, want: fileBudget{storage: 1, connections: 1, lowered: true}},
	} {
		if got := splitFiles(c.limit, c.asked); got != c.want {
			t.Errorf("splitFiles(%d, %d) = %+v, want %+v", c.limit, c.asked, got, c.want)
		}
	}
}
