package kafka

import (
	"maps"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/sinks"
	"github.com/streamdb/streamdb/sinks/sinkstest"
)

// TestSnapshotResume restarts a sink after the engine forgot the
// history since its progress: the sink gets a snapshot and writes only
// the difference between what it committed and the snapshot.
func TestSnapshotResume(t *testing.T) {
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
			cfg.TopicPartitions = 2
			tc.cfg(&cfg)
			ticks := history(1000, 40)
			sc := sinkstest.New(1)
			// Accounts that never change: the resumed sink must not
			// write them again.
			static := sinks.Tick{Time: 500}
			for id := int32(100); id < 110; id++ {
				static.Changes = append(static.Changes, ins(account(id, "static", 1)))
			}
			sc.Append(static)
			for _, tk := range ticks[:20] {
				sc.Append(tk)
			}
			snap := snapshotTick(sc)
			run := start(t, mustSink(t, cfg), sc)
			want := expectedTicks(t, cfg, []sinks.Tick{snap})
			consume(t, addrs, cfg.Topic, true, count(want))
			if err := run.stop(t); err != nil {
				t.Fatal(err)
			}
			before := sc.Contents()

			// While the sink is down the relation changes, and the
			// engine compacts its history past the sink's progress.
			for _, tk := range ticks[20:] {
				sc.Append(tk)
			}
			sc.Compact(sc.Now())
			run = start(t, mustSink(t, cfg), sc)
			diff := diffTick(t, cfg, before, sc.Contents())
			if len(diff) == 0 || len(diff) >= len(sc.Contents()) {
				t.Fatalf("the resume writes %d records for %d rows; the test would not tell a diff from a rewrite", len(diff), len(sc.Contents()))
			}
			want[sc.Now()] = diff
			got := consume(t, addrs, cfg.Topic, true, count(want))
			if g := got.byTick(); !maps.EqualFunc(g, want, slices.Equal) {
				t.Fatalf("read_committed consumer read\n%s\nwant per tick %v", got, want)
			}
			if err := run.stop(t); err != nil {
				t.Fatal(err)
			}
			if st := sc.Starts(); len(st) != 2 || st[1] != (sinks.Start{Resume: true, After: snap.Time, Snapshot: true}) {
				t.Fatalf("starts %+v", st)
			}
			// What a consumer holds equals the relation.
			switch {
			case cfg.Envelope == EnvelopeUpsert:
				if g, w := got.upsertState(), wantState(t, cfg, sc.Contents()); !maps.Equal(g, w) {
					t.Fatalf("upsert state %v, want %v", g, w)
				}
			case cfg.Key == nil:
				if g, w := got.debeziumRows(t), debeziumRows(t, cfg, sc.Contents()); !maps.Equal(g, w) {
					t.Fatalf("debezium rows %v, want %v", g, w)
				}
			}
		})
	}
}

// diffTick is the records a resumed sink should write at time t to take
// the topic from the relation before to the relation after, computed
// from the two relations' encodings rather than by the sink's code.
func diffTick(t *testing.T, cfg Config, before, after []sinks.Change) []string {
	t.Helper()
	enc := newEncoder(&mustSink(t, cfg).cfg)
	var out []string
	if len(cfg.Key) == 0 {
		delta := map[string]int64{}
		for _, c := range before {
			delta[string(enc.appendObject(nil, c.Row))] -= c.Diff
		}
		for _, c := range after {
			delta[string(enc.appendObject(nil, c.Row))] += c.Diff
		}
		for row, n := range delta {
			for ; n > 0; n-- {
				out = append(out, `null -> {"before":null,"after":`+row+`}`)
			}
			for ; n < 0; n++ {
				out = append(out, `null -> {"before":`+row+`,"after":null}`)
			}
		}
		slices.Sort(out)
		return out
	}
	old, cur := map[string]string{}, map[string]string{}
	for _, c := range before {
		k, _ := enc.appendKey(nil, c.Row)
		old[string(k)] = string(enc.appendObject(nil, c.Row))
	}
	for _, c := range after {
		k, _ := enc.appendKey(nil, c.Row)
		cur[string(k)] = string(enc.appendObject(nil, c.Row))
	}
	for k, v := range cur {
		o, had := old[k]
		switch {
		case had && o == v:
		case cfg.Envelope == EnvelopeUpsert:
			out = append(out, k+" -> "+v)
		case had:
			out = append(out, k+` -> {"before":`+o+`,"after":`+v+`}`)
		default:
			out = append(out, k+` -> {"before":null,"after":`+v+`}`)
		}
	}
	for k, o := range old {
		if _, ok := cur[k]; ok {
			continue
		}
		if cfg.Envelope == EnvelopeUpsert {
			out = append(out, k+" -> null")
		} else {
			out = append(out, k+` -> {"before":`+o+`,"after":null}`)
		}
	}
	slices.Sort(out)
	return out
}
