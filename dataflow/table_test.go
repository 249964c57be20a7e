package dataflow

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestTableModel drives a table with random inserts, replaces (same and
// different lengths), in-place writes and deletes, against a Go map: with
// small values in one segment, and with values large enough to fill many
// segments (and some larger than a segment), so that segments are
// reclaimed and reused under the same operations.
func TestTableModel(t *testing.T) {
	for _, tc := range []struct {
		name     string
		keys     int
		ops      int
		value    func(rng *rand.Rand) string
		segments bool // the state must span several segments
	}{
		{"small", 3000, 200_000, func(rng *rand.Rand) string { return fmt.Sprint(rng.IntN(1 << rng.IntN(40))) }, false},
		{"segments", 2000, 60_000, func(rng *rand.Rand) string {
			n := rng.IntN(4000)
			if rng.IntN(2000) == 0 {
				n = segSize + rng.IntN(1000)
			}
			return strings.Repeat(string(rune('a'+rng.IntN(26))), n)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 8))
			tab := newTable(maphash.MakeSeed())
			model := map[string]string{}
			reclaimed := 0
			for op := 0; op < tc.ops; op++ {
				k := fmt.Sprintf("key-%d", rng.IntN(tc.keys))
				h := tab.hash([]byte(k))
				i := tab.find([]byte(k), h)
				if _, ok := model[k]; ok != (i >= 0) {
					t.Fatalf("op %d: find(%s) = %d, model has %v", op, k, i, ok)
				}
				vacant := len(tab.vacant)
				switch r := rng.IntN(10); {
				case i < 0:
					v := tc.value(rng)
					tab.insert([]byte(k), h, []byte(v))
					model[k] = v
				case r < 3:
					tab.delete(i)
					delete(model, k)
				case r < 6:
					v := tc.value(rng)
					tab.replace(i, []byte(v))
					model[k] = v
				default:
					if got := string(tab.value(i)); got != model[k] {
						t.Fatalf("op %d: value(%s) = %q want %q", op, k, got, model[k])
					}
					if v := tab.value(i); len(v) > 0 {
						v[0] = 'x'
						model[k] = "x" + model[k][1:]
					}
				}
				if len(tab.vacant) > vacant {
					reclaimed++
				}
				if tab.live != len(model) {
					t.Fatalf("op %d: live %d, model %d", op, tab.live, len(model))
				}
			}
			n := 0
			tab.each(func(i int) bool {
				if model[string(tab.key(i))] != string(tab.value(i)) {
					t.Fatalf("each: %s", tab.key(i))
				}
				n++
				return true
			})
			if n != len(model) {
				t.Fatalf("each visited %d of %d", n, len(model))
			}
			full := 0
			for i, seg := range tab.segs {
				if i != tab.cur && seg.garbage*2 > len(seg.buf) {
					t.Errorf("segment %d not reclaimed: %d garbage of %d", i, seg.garbage, len(seg.buf))
				}
				if len(seg.buf) > 0 {
					full++
				}
			}
			if tc.segments && (full < 3 || reclaimed == 0) {
				t.Fatalf("state in %d segments, %d reclaimed: the case does not exercise reclaiming", full, reclaimed)
			}
			var caps int64
			for _, seg := range tab.segs {
				caps += int64(cap(seg.buf))
			}
			for _, sp := range tab.spare {
				caps += int64(cap(sp))
			}
			if caps != tab.bytes {
				t.Fatalf("bytes %d, segments and spares hold %d", tab.bytes, caps)
			}
		})
	}
}

// BenchmarkTableLookup: cost of a lookup hit at 1e3 and 1e6 keys, plain
// and with the batch touched first.
func BenchmarkTableLookup(b *testing.B) {
	for _, st := range benchStates {
		tab := newTable(maphash.MakeSeed())
		var k [8]byte
		for i := 0; i < st.n; i++ {
			binary.BigEndian.PutUint64(k[:], uint64(i))
			tab.insert(k[:], tab.hash(k[:]), k[:])
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for _, batched := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/batched=%v", st.name, batched), func(b *testing.B) {
				var keys [64][8]byte
				var hs [64]uint64
				sum := 0
				for i := 0; i < b.N; i += len(keys) {
					for j := range keys {
						binary.BigEndian.PutUint64(keys[j][:], uint64(rng.IntN(st.n)))
						hs[j] = tab.hash(keys[j][:])
					}
					if batched {
						for j := range hs {
							sum += int(tab.touch(hs[j]))
						}
					}
					for j := range keys {
						sum += tab.find(keys[j][:], hs[j])
					}
				}
				_ = sum
			})
		}
	}
}
