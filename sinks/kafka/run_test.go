package kafka

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/sinks"
	"github.com/streamdb/streamdb/sinks/sinkstest"
)

// history is a scripted stream of account changes: inserts, updates
// (-old +new in one tick), deletes, a key deleted and inserted again.
func history(from uint64, n int) []sinks.Tick {
	var ticks []sinks.Tick
	bal := map[int32]int64{}
	for i := range n {
		tk := sinks.Tick{Time: from + uint64(i)*10}
		id := int32(i % 7)
		old, exists := bal[id]
		switch {
		case !exists:
			bal[id] = int64(i * 100)
			tk.Changes = append(tk.Changes, ins(account(id, fmt.Sprint("owner", id), bal[id])))
		case i%5 == 0:
			delete(bal, id)
			tk.Changes = append(tk.Changes, del(account(id, fmt.Sprint("owner", id), old)))
		default:
			bal[id] = old + 1
			tk.Changes = append(tk.Changes, del(account(id, fmt.Sprint("owner", id), old)), ins(account(id, fmt.Sprint("owner", id), old+1)))
		}
		ticks = append(ticks, tk)
	}
	return ticks
}

// snapshotTick is the snapshot a first start with SNAPSHOT gets.
func snapshotTick(sc *sinkstest.Script) sinks.Tick {
	return sinks.Tick{Time: sc.Now(), Changes: sc.Contents(), Snapshot: true}
}

func TestExactlyOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func(*Config)
	}{
		{"upsert", func(*Config) {}},
		{"debezium", func(c *Config) { c.Envelope = EnvelopeDebezium }},
		{"debezium without key", func(c *Config) { c.Envelope, c.Key = EnvelopeDebezium, nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addrs := newCluster(t).ListenAddrs()
			cfg := testConfig(addrs, "accounts")
			cfg.TopicPartitions = 3
			tc.cfg(&cfg)
			ticks := history(1000, 40)
			sc := sinkstest.New(1)
			for _, tk := range ticks[:10] {
				sc.Append(tk)
			}
			snap := snapshotTick(sc)
			run := start(t, mustSink(t, cfg), sc)
			waitStatus(t, sc, 0, sinks.Running)
			for _, tk := range ticks[10:] {
				sc.Append(tk)
			}
			want := expectedTicks(t, cfg, append([]sinks.Tick{snap}, ticks[10:]...))
			n := 0
			for _, v := range want {
				n += len(v)
			}
			got := consume(t, addrs, "accounts", true, n)
			if g := got.byTick(); !maps.EqualFunc(g, want, slices.Equal) {
				t.Fatalf("read_committed consumer read\n%s\nwant per tick %v", got, want)
			}
			if cfg.Envelope == EnvelopeUpsert {
				if g, w := got.upsertState(), wantState(t, cfg, sc.Contents()); !maps.Equal(g, w) {
					t.Fatalf("upsert state %v, want %v", g, w)
				}
			}
			if err := run.stop(t); err != nil {
				t.Fatal(err)
			}
			if st := sc.Starts(); len(st) != 1 || st[0] != (sinks.Start{Snapshot: true}) {
				t.Fatalf("starts %+v, want one first start with a snapshot", st)
			}
		})
	}
}
