package kafka

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamdb/streamdb/sinks"
	"github.com/streamdb/streamdb/sinks/sinkstest"
	"github.com/twmb/franz-go/pkg/kfake"
)

// count is the number of records in a per-tick map.
func count(m map[uint64][]string) int {
	n := 0
	for _, v := range m {
		n += len(v)
	}
	return n
}

// checkExactlyOnce reads the topic with a read_committed consumer and
// checks that it holds exactly the records of want, tick by tick, and
// that an upsert consumer ends with the script's contents.
func checkExactlyOnce(t *testing.T, addrs []string, cfg Config, sc *sinkstest.Script, want map[uint64][]string) consumed {
	t.Helper()
	got := consume(t, addrs, cfg.Topic, true, count(want))
	if g := got.byTick(); !maps.EqualFunc(g, want, slices.Equal) {
		t.Fatalf("read_committed consumer read\n%s\nwant per tick %v", got, want)
	}
	if g, w := got.upsertState(), wantState(t, cfg, sc.Contents()); cfg.Envelope == EnvelopeUpsert && !maps.Equal(g, w) {
		t.Fatalf("upsert state %v, want %v", g, w)
	}
	return got
}

// TestCrashMidTransaction stops a sink after a transaction's records
// reached the broker and before its commit, as kill -9 would, and
// restarts it from its progress: read_committed consumers see every
// change once, although the broker holds the aborted copies too.
func TestCrashMidTransaction(t *testing.T) {
	addrs := newCluster(t).ListenAddrs()
	cfg := testConfig(addrs, "accounts")
	ticks := history(1000, 30)
	sc := sinkstest.New(1)
	for _, tk := range ticks[:5] {
		sc.Append(tk)
	}
	snap := snapshotTick(sc)

	s := mustSink(t, cfg)
	var commits atomic.Int32
	crashed := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	s.hooks = &testHooks{beforeCommit: func() {
		switch commits.Add(1) {
		case 3:
			cancel() // the process dies: no commit, no abort
			close(crashed)
		}
	}}
	waitCommits := func(n int32) {
		for deadline := time.Now().Add(20 * time.Second); commits.Load() < n; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the sink did not reach commit %d", n)
			}
		}
	}
	run := startCtx(t, ctx, cancel, s, sc)
	waitCommits(1)
	for _, tk := range ticks[5:15] {
		sc.Append(tk)
	}
	waitCommits(2)
	for _, tk := range ticks[15:] {
		sc.Append(tk)
	}
	select {
	case <-crashed:
	case <-time.After(20 * time.Second):
		t.Fatal("the sink never reached its third commit")
	}
	if err := run.stop(t); err != nil {
		t.Fatal(err)
	}

	again := start(t, mustSink(t, cfg), sc)
	want := expectedTicks(t, cfg, append([]sinks.Tick{snap}, ticks[5:]...))
	checkExactlyOnce(t, addrs, cfg, sc, want)
	if err := again.stop(t); err != nil {
		t.Fatal(err)
	}
	st := sc.Starts()
	if len(st) != 2 || !st[1].Resume || st[1].After <= snap.Time || st[1].After >= ticks[len(ticks)-1].Time {
		t.Fatalf("starts %+v: the restart should resume after the last commit before the crash", st)
	}
	// The crashed transaction's records are in the log, aborted.
	all := consume(t, addrs, cfg.Topic, false, count(want)+1)
	if len(all.recs) <= count(want) {
		t.Fatalf("a read_uncommitted consumer read %d records, no more than the %d committed: the crash did not leave a transaction behind", len(all.recs), count(want))
	}
}

// TestBrokerRestart stops the broker under a running sink and starts it
// again on the same port with the same data: the sink stalls with the
// broker's reason, resumes, and loses and repeats nothing.
func TestBrokerRestart(t *testing.T) {
	port := freePort(t)
	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.Ports(port), kfake.DataDir(t.TempDir())}
	cluster, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatal(err)
	}
	addrs := cluster.ListenAddrs()
	cfg := testConfig(addrs, "accounts")
	cfg.Timeout = time.Second
	ticks := history(1000, 30)
	sc := sinkstest.New(1)
	for _, tk := range ticks[:5] {
		sc.Append(tk)
	}
	snap := snapshotTick(sc)
	run := start(t, mustSink(t, cfg), sc)
	_, n := waitStatus(t, sc, 0, sinks.Running)
	for _, tk := range ticks[5:15] {
		sc.Append(tk)
	}
	consume(t, addrs, cfg.Topic, true, count(expectedTicks(t, cfg, append([]sinks.Tick{snap}, ticks[5:15]...))))

	cluster.Close()
	for _, tk := range ticks[15:25] {
		sc.Append(tk)
	}
	reason, n := waitStatus(t, sc, n, sinks.Stalled)
	t.Logf("stalled: %s", reason)
	if !strings.Contains(reason, "127.0.0.1") {
		t.Errorf("stall reason %q does not name the broker", reason)
	}
	var again *kfake.Cluster
	for deadline := time.Now().Add(10 * time.Second); again == nil; {
		if again, err = kfake.NewCluster(opts...); err != nil {
			if time.Now().After(deadline) {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond) // the port may linger briefly
		}
	}
	defer again.Close()
	waitStatus(t, sc, n, sinks.Running)
	for _, tk := range ticks[25:] {
		sc.Append(tk)
	}
	checkExactlyOnce(t, addrs, cfg, sc, expectedTicks(t, cfg, append([]sinks.Tick{snap}, ticks[5:]...)))
	if err := run.stop(t); err != nil {
		t.Fatal(err)
	}
}

// TestFencing starts a second instance of a running sink: it fences the
// first, which stops with ErrFenced, and carries on from the progress
// the first committed.
func TestFencing(t *testing.T) {
	addrs := newCluster(t).ListenAddrs()
	cfg := testConfig(addrs, "accounts")
	ticks := history(1000, 30)
	// Both instances export the same relation; each has its own feed.
	first, second := sinkstest.New(1), sinkstest.New(1)
	appendBoth := func(ts []sinks.Tick) {
		for _, tk := range ts {
			first.Append(tk)
			second.Append(tk)
		}
	}
	appendBoth(ticks[:5])
	snap := snapshotTick(first)
	a := start(t, mustSink(t, cfg), first)
	waitStatus(t, first, 0, sinks.Running)
	appendBoth(ticks[5:15])
	consume(t, addrs, cfg.Topic, true, count(expectedTicks(t, cfg, append([]sinks.Tick{snap}, ticks[5:15]...))))

	b := start(t, mustSink(t, cfg), second)
	waitStatus(t, second, 0, sinks.Running)
	appendBoth(ticks[15:])
	select {
	case err := <-a.done:
		if !errors.Is(err, ErrFenced) {
			t.Fatalf("the fenced instance returned %v, want ErrFenced", err)
		}
		close(a.done)
	case <-time.After(20 * time.Second):
		t.Fatal("the first instance did not notice it was fenced")
	}
	if reason, _ := waitStatus(t, first, 0, sinks.Stalled); !strings.Contains(reason, "took over") {
		t.Errorf("fenced instance's reason %q", reason)
	}
	checkExactlyOnce(t, addrs, cfg, second, expectedTicks(t, cfg, append([]sinks.Tick{snap}, ticks[5:]...)))
	if err := b.stop(t); err != nil {
		t.Fatal(err)
	}
}
