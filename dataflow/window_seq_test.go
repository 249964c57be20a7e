package dataflow

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// TestSeqModel checks the chunked sequence's positions, peer counts and
// unit lookups against a sorted slice, across many chunk splits and
// removals.
func TestSeqModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	s := seq{trackStarts: true}
	type ent struct {
		key string
		sk  int
		n   int64
	}
	var model []ent
	for op := 0; op < 30000; op++ {
		v := rng.IntN(3000)
		key := fmt.Sprintf("%04d/%d", v/3, v%3) // sort key: first 4 bytes
		diff := int64(1 + rng.IntN(2))
		i, found := slices.BinarySearchFunc(model, key, func(e ent, k string) int { return compareStrings(e.key, k) })
		if found && rng.IntN(2) == 0 {
			diff = -model[i].n
		}
		s.add(key, 4, types.Row{types.NewInt8(int64(v))}, diff)
		switch {
		case !found:
			model = slices.Insert(model, i, ent{key: key, sk: 4, n: diff})
		case model[i].n+diff == 0:
			model = slices.Delete(model, i, i+1)
		default:
			model[i].n += diff
		}
		if op%97 != 0 {
			continue
		}
		s.fix()
		var units, starts int64
		j := 0
		for p := (pos{}); p.c < len(s.chunks); p = s.next(p) {
			e := s.at(p)
			if e.key != model[j].key || e.n != model[j].n {
				t.Fatalf("op %d: entry %d is %s×%d, want %s×%d", op, j, e.key, e.n, model[j].key, model[j].n)
			}
			if h := s.chunks[p.c].heads[p.i]; h != headOf([]byte(e.key)) || h != e.pfx {
				t.Fatalf("op %d: entry %d has head %x, key %q", op, j, h, e.key)
			}
			if got := s.unitsBefore(p); got != units {
				t.Fatalf("op %d: unitsBefore(%s) = %d, want %d", op, e.key, got, units)
			}
			if j == 0 || model[j-1].key[:4] != e.key[:4] {
				starts++
			}
			if got := s.startsBefore(p) + boolInt64(s.isStart(p)); got != starts {
				t.Fatalf("op %d: peer groups through %s = %d, want %d", op, e.key, got, starts)
			}
			for k := int64(0); k < e.n; k++ {
				q, kk := s.seekUnit(units + k)
				if q != p || kk != k {
					t.Fatalf("op %d: seekUnit(%d) = %v/%d, want %v/%d", op, units+k, q, kk, p, k)
				}
			}
			units += e.n
			j++
		}
		if j != len(model) || s.total != units {
			t.Fatalf("op %d: %d entries and %d units, model %d entries", op, j, s.total, len(model))
		}
	}
	if len(s.chunks) < 8 {
		t.Fatalf("test never split chunks: %d", len(s.chunks))
	}
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func boolInt64(b bool) int64 { return int64(boolInt(b)) }
