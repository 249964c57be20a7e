package storage

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// stateWrite is one write of a test: put, del, or a range deletion
// [key, end).
type stateWrite struct {
	op       string
	flow     uint64
	key, val string
	end      string
}

// TestStagedStateWrites checks that the staged state writes of a batch
// commit as if written in order: the last write of a key wins, and a
// range deletion deletes what was written before it and nothing after.
func TestStagedStateWrites(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before []stateWrite // committed first, in a batch of their own
		writes []stateWrite
		want   string
	}{
		{
			name:   "unordered",
			writes: []stateWrite{{"put", 1, "c", "3", ""}, {"put", 1, "a", "1", ""}, {"put", 2, "a", "x", ""}, {"put", 1, "b", "2", ""}},
			want:   "1:a=1 1:b=2 1:c=3 2:a=x",
		},
		{
			name:   "last write wins",
			writes: []stateWrite{{"put", 1, "a", "1", ""}, {"put", 1, "a", "2", ""}, {"del", 1, "b", "", ""}, {"put", 1, "b", "3", ""}, {"put", 1, "c", "4", ""}, {"del", 1, "c", "", ""}},
			want:   "1:a=2 1:b=3",
		},
		{
			name:   "delete of a committed key",
			before: []stateWrite{{"put", 1, "a", "1", ""}, {"put", 1, "b", "2", ""}},
			writes: []stateWrite{{"del", 1, "a", "", ""}, {"put", 1, "b", "5", ""}},
			want:   "1:b=5",
		},
		{
			name:   "range deletion between writes",
			before: []stateWrite{{"put", 1, "a", "old", ""}, {"put", 1, "d", "old", ""}},
			writes: []stateWrite{{"put", 1, "b", "1", ""}, {"range", 1, "a", "", "c"}, {"put", 1, "a", "new", ""}, {"put", 1, "e", "2", ""}},
			want:   "1:a=new 1:d=old 1:e=2",
		},
		{
			name:   "drop of a flow",
			before: []stateWrite{{"put", 2, "z", "old", ""}},
			writes: []stateWrite{{"put", 2, "a", "1", ""}, {"drop", 2, "", "", ""}, {"put", 2, "b", "2", ""}, {"put", 1, "a", "3", ""}},
			want:   "1:a=3 2:b=2",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := Open(t.TempDir(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, ws := range [][]stateWrite{tc.before, tc.writes} {
				b := db.NewBatch()
				for _, w := range ws {
					switch w.op {
					case "put":
						b.PutState(w.flow, []byte(w.key), []byte(w.val))
					case "del":
						b.DeleteState(w.flow, []byte(w.key))
					case "range":
						b.DeleteStateRange(w.flow, []byte(w.key), []byte(w.end))
					case "drop":
						b.DropState(w.flow)
					}
				}
				if err := b.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			var got []string
			for _, flow := range []uint64{1, 2} {
				if err := db.ScanState(flow, nil, func(k, v []byte) error {
					got = append(got, fmt.Sprintf("%d:%s=%s", flow, k, v))
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			if s := strings.Join(got, " "); s != tc.want {
				t.Errorf("state %s, want %s", s, tc.want)
			}
		})
	}
}

// TestStagedLen checks that a batch counts its staged writes in Len and
// Empty, which decide when a hydration's batch is committed.
func TestStagedLen(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b := db.NewBatch()
	defer b.Discard()
	empty := b.Len()
	b.PutState(1, []byte("key"), make([]byte, 1000))
	if b.Empty() || b.Len() < empty+1000 {
		t.Errorf("after a staged write: Empty %v, Len %d", b.Empty(), b.Len())
	}
}

// BenchmarkStateBatch commits ticks of state writes in random key order,
// as views write them (their keys start with a hash bucket), into a store
// that grows as a view's state does.
func BenchmarkStateBatch(b *testing.B) {
	b.ReportAllocs()
	db, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	const perTick = 5000
	rng := rand.New(rand.NewPCG(1, 2))
	key := make([]byte, 0, 40)
	val := make([]byte, 40)
	b.ResetTimer()
	for i := 0; i < b.N; {
		batch := db.NewBatch()
		for j := 0; j < perTick && i < b.N; j++ {
			key = binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint16(key[:0], 3), rng.Uint64())
			key = append(key, "a row of the state, encoded"...)
			batch.PutState(20006, key, val)
			i++
		}
		if err := batch.CommitUnsynced(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
}
