package dataflow

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"testing"
)

// TestArrangementBuckets drives a few keys past packedMax with random
// insertions, repeated rows and retractions (an append-only stretch
// first, so that buckets fill without an index before their first
// retraction), and checks after every change that each key's rows sum to
// the model's multiplicities and that the state bytes stay positive.
func TestArrangementBuckets(t *testing.T) {
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 3))
		a := newArrangement(maphash.MakeSeed())
		model := map[string]map[string]int64{}
		for step := range 3000 {
			key := fmt.Sprintf("k%d", rng.IntN(3))
			row := fmt.Sprintf("row%d", rng.IntN(60))
			diff := 1 + rng.Int64N(2)
			if step > 1000 && rng.IntN(2) == 0 {
				diff = -diff
			}
			a.update([]byte(key), a.tab.hash([]byte(key)), []byte(row), diff)
			if model[key] == nil {
				model[key] = map[string]int64{}
			}
			if model[key][row] += diff; model[key][row] == 0 {
				delete(model[key], row)
			}
			got := map[string]int64{}
			for it := a.get([]byte(key), a.tab.hash([]byte(key))); it.next(); {
				got[string(it.row)] += it.n
			}
			for r, n := range got {
				if n == 0 {
					delete(got, r)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(model[key]) {
				t.Fatalf("seed %d step %d key %s:\ngot  %v\nwant %v", seed, step, key, got, model[key])
			}
			if a.size() <= 0 {
				t.Fatalf("seed %d step %d: size %d", seed, step, a.size())
			}
		}
	}
}
