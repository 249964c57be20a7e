package kafka

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/sinks"
	"github.com/streamdb/streamdb/sinks/sinkstest"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestWithoutSnapshot starts a sink WITH (SNAPSHOT = false): it writes
// only the changes after its start, records that start at once, commits
// ticks without changes as progress, and resumes after the last of them.
func TestWithoutSnapshot(t *testing.T) {
	addrs := newCluster(t).ListenAddrs()
	cfg := testConfig(addrs, "accounts")
	cfg.Snapshot = false
	cfg.ProgressInterval = time.Nanosecond // commit every tick
	ticks := history(1000, 20)
	sc := sinkstest.New(1)
	for _, tk := range ticks[:10] {
		sc.Append(tk)
	}
	startedAt := sc.Now()
	s := mustSink(t, cfg)
	run := start(t, s, sc)
	waitStatus(t, sc, 0, sinks.Running)
	waitProgress(t, s, startedAt)
	for _, tk := range ticks[10:] {
		sc.Append(tk)
	}
	idle := sinks.Tick{Time: sc.Now() + 100}
	sc.Append(idle)
	want := expectedTicks(t, cfg, ticks[10:])
	got := consume(t, addrs, cfg.Topic, true, count(want))
	if g := got.byTick(); !maps.EqualFunc(g, want, slices.Equal) {
		t.Fatalf("read\n%s\nwant per tick %v", got, want)
	}
	waitProgress(t, s, idle.Time)
	if err := run.stop(t); err != nil {
		t.Fatal(err)
	}
	run = start(t, mustSink(t, cfg), sc)
	waitStatus(t, sc, 2, sinks.Running)
	if err := run.stop(t); err != nil {
		t.Fatal(err)
	}
	if st := sc.Starts(); len(st) != 2 || st[0] != (sinks.Start{}) || st[1] != (sinks.Start{Resume: true, After: idle.Time, Snapshot: true}) {
		t.Fatalf("starts %+v: want a first start without snapshot, then a resume after the idle tick", st)
	}
}

// waitProgress waits until the sink's committed progress reaches tm.
func waitProgress(t *testing.T, s *sink, tm uint64) {
	t.Helper()
	cl, err := kgo.NewClient(s.cfg.ClientOpts(s.log)...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		got, ok, err := s.readProgress(ctx, adm)
		cancel()
		if err == nil && ok && got >= tm {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("progress %d (ok %v, err %v), want %d", got, ok, err, tm)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTopicCreation checks the topics a sink creates: the data topic
// with the partitions and replicas asked for, the progress topic with one
// compacted partition that never expires.
func TestTopicCreation(t *testing.T) {
	addrs := newCluster(t, kfake.NumBrokers(3)).ListenAddrs()
	cfg := testConfig(addrs, "accounts")
	cfg.TopicPartitions, cfg.TopicReplicationFactor = 5, 3
	cfg.ProgressTopic = "progress"
	sc := sinkstest.New(1)
	sc.Append(sinks.Tick{Time: 10, Changes: []sinks.Change{ins(account(1, "a", 1))}})
	run := start(t, mustSink(t, cfg), sc)
	waitStatus(t, sc, 0, sinks.Running)
	if err := run.stop(t); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	topics, err := adm.ListTopics(ctx, "accounts", "progress")
	if err != nil {
		t.Fatal(err)
	}
	if d := topics["accounts"]; len(d.Partitions) != 5 || len(d.Partitions[0].Replicas) != 3 {
		t.Errorf("data topic has %d partitions with %d replicas, want 5 with 3", len(d.Partitions), len(d.Partitions[0].Replicas))
	}
	if d := topics["progress"]; len(d.Partitions) != 1 {
		t.Errorf("progress topic has %d partitions, want 1", len(d.Partitions))
	}
	configs, err := adm.DescribeTopicConfigs(ctx, "progress")
	if err != nil {
		t.Fatal(err)
	}
	rc, err := configs.On("progress", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range rc.Configs {
		if c.Value != nil {
			got[c.Key] = *c.Value
		}
	}
	for k, v := range map[string]string{"cleanup.policy": "compact", "retention.ms": "-1", "retention.bytes": "-1"} {
		if got[k] != v {
			t.Errorf("progress topic %s = %q, want %q", k, got[k], v)
		}
	}
}

// TestStalledAtStart points a sink at a broker that is not there yet: it
// reports itself stalled with the dial error, and running once the
// broker is up.
func TestStalledAtStart(t *testing.T) {
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cfg := testConfig([]string{addr}, "accounts")
	cfg.Timeout = time.Second
	sc := sinkstest.New(1)
	run := start(t, mustSink(t, cfg), sc)
	reason, n := waitStatus(t, sc, 0, sinks.Stalled)
	if !strings.Contains(reason, addr) || !strings.Contains(reason, "refused") {
		t.Errorf("stall reason %q does not say the broker refused the connection", reason)
	}
	newCluster(t, kfake.Ports(port))
	waitStatus(t, sc, n, sinks.Running)
	if err := run.stop(t); err != nil {
		t.Fatal(err)
	}
}
