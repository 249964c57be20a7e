package kafka

import (
	"context"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/kafkaconn"
	"github.com/streamdb/streamdb/sources"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// textSource is a TEXT source with partition and offset columns.
func textConfig(addrs []string, topic string) Config {
	return Config{Connection: kafkaconn.Connection{Brokers: addrs}, Topic: topic, ValueFormat: textF,
		Include: []IncludeOpt{{Kind: IncludePartition}, {Kind: IncludeOffset}}}
}

// produceN writes n text records "p<partition>-<i>" round robin over
// partitions, numbering from first.
func produceN(t *testing.T, p *kgo.Client, topic string, partitions int32, first, n int) {
	t.Helper()
	var recs []*kgo.Record
	for i := first; i < first+n; i++ {
		part := int32(i) % partitions
		recs = append(recs, rec(part, nil, b(fmt.Sprintf("v%d", i))))
	}
	produce(t, p, topic, recs...)
}

// values returns the sorted first column of appended text rows.
func values(changes []string) []string {
	var out []string
	for _, c := range changes {
		v, _, _ := strings.Cut(strings.TrimPrefix(c, "+1 ("), ",")
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

func want(first, n int) []string {
	var out []string
	for i := first; i < first+n; i++ {
		out = append(out, fmt.Sprintf("v%d", i))
	}
	slices.Sort(out)
	return out
}

func TestResumeGivesExactlyTheRest(t *testing.T) {
	cluster := newCluster(t, 3, "r")
	addrs := cluster.ListenAddrs()
	p := newProducer(t, addrs)
	produceN(t, p, "r", 3, 0, 30)

	src := mustNew(t, textConfig(addrs, "r"))
	sink, cancel := start(t, src, nil)
	got := sink.waitChanges(t, 30)
	cancel()
	if !slices.Equal(values(got), want(0, 30)) {
		t.Fatalf("first run read %v", values(got))
	}
	resume := make(map[string][]byte)
	sink.mu.Lock()
	for p, off := range sink.progress {
		resume[p] = encodePosition(off)
	}
	sink.mu.Unlock()

	produceN(t, p, "r", 3, 30, 12)
	sink2, _ := start(t, mustNew(t, textConfig(addrs, "r")), resume)
	sink2.waitChanges(t, 12)
	time.Sleep(300 * time.Millisecond) // would-be duplicates arrive meanwhile
	sink2.mu.Lock()
	got = append([]string(nil), sink2.changes...)
	sink2.mu.Unlock()
	if !slices.Equal(values(got), want(30, 12)) {
		t.Fatalf("resumed run read %v, want %v", values(got), want(30, 12))
	}

	// Positions in the middle of partitions: partition 0 from offset 8
	// (v24, v27, …), the others from the start.
	sink3, _ := start(t, mustNew(t, textConfig(addrs, "r")), map[string][]byte{"0": encodePosition(8)})
	got = sink3.waitChanges(t, 6+14+14)
	if n := len(got); n != 34 {
		t.Fatalf("mid-partition resume read %d records, want 34", n)
	}
	for _, c := range got {
		if strings.Contains(c, ", 0, ") { // partition 0
			off, _ := strconv.Atoi(strings.TrimSuffix(c[strings.LastIndex(c, " ")+1:], ")"))
			if off < 8 {
				t.Fatalf("partition 0 read offset %d before its resume position: %s", off, c)
			}
		}
	}
}

func TestStartOffsetAndTimestamp(t *testing.T) {
	cluster := newCluster(t, 2, "s")
	addrs := cluster.ListenAddrs()
	p := newProducer(t, addrs)
	var recs []*kgo.Record
	for i := range 10 {
		r := rec(int32(i%2), nil, b(fmt.Sprintf("v%d", i)))
		r.Timestamp = time.UnixMilli(int64(1000 * i))
		recs = append(recs, r)
	}
	produce(t, p, "s", recs...)

	cfg := textConfig(addrs, "s")
	cfg.StartOffsets = []int64{3} // partition 0 from offset 3 (v6, v8); partition 1 from the start
	sink, _ := start(t, mustNew(t, cfg), nil)
	got := sink.waitChanges(t, 7)
	if w := []string{"v1", "v3", "v5", "v6", "v7", "v8", "v9"}; !slices.Equal(values(got), w) {
		t.Fatalf("START OFFSET read %v, want %v", values(got), w)
	}

	cfg = textConfig(addrs, "s")
	cfg.StartTimestamp = 6500
	sink, _ = start(t, mustNew(t, cfg), nil)
	got = sink.waitChanges(t, 3)
	if w := []string{"v7", "v8", "v9"}; !slices.Equal(values(got), w) {
		t.Fatalf("START TIMESTAMP read %v, want %v", values(got), w)
	}
}

func TestStartOffsetPastTheEnd(t *testing.T) {
	cluster := newCluster(t, 2, "past")
	addrs := cluster.ListenAddrs()
	p := newProducer(t, addrs)
	produceN(t, p, "past", 2, 0, 6) // offsets 0…2 on each partition
	cfg := textConfig(addrs, "past")
	cfg.StartOffsets = []int64{5, 1} // partition 0 from offset 5, which does not exist yet
	sink, _ := start(t, mustNew(t, cfg), nil)
	if got := sink.waitChanges(t, 2); !slices.Equal(values(got), []string{"v3", "v5"}) {
		t.Fatalf("read %v before partition 0 reached its START OFFSET, want [v3 v5]", values(got))
	}
	produceN(t, p, "past", 2, 6, 8) // offsets 3…6 on each partition
	got := sink.waitChanges(t, 2+4+2)
	time.Sleep(300 * time.Millisecond) // records before offset 5 would arrive meanwhile
	sink.mu.Lock()
	got = append(got[:0:0], sink.changes...)
	pos := sink.progress["0"]
	sink.mu.Unlock()
	if w := []string{"v10", "v11", "v13", "v3", "v5", "v7", "v9", "v12"}; !slices.Equal(values(got), slices.Sorted(slices.Values(w))) {
		t.Fatalf("read %v, want partition 0 from offset 5 (v10, v12) and partition 1 from offset 1", values(got))
	}
	if pos != 7 {
		t.Fatalf("partition 0 position %d, want 7: skipped records still advance it", pos)
	}
}

func TestPartitionAddedWhileRunning(t *testing.T) {
	cluster := newCluster(t, 2, "grow")
	addrs := cluster.ListenAddrs()
	p := newProducer(t, addrs)
	produceN(t, p, "grow", 2, 0, 4)
	cfg := textConfig(addrs, "grow")
	cfg.StartTimestamp = time.Now().Add(time.Hour).UnixMilli() // only new data on the first partitions
	sink, _ := start(t, mustNew(t, cfg), nil)
	sink.waitState(t, sources.Running)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := kadm.NewClient(p).CreatePartitions(ctx, 1, "grow"); err != nil {
		t.Fatal(err)
	}
	produce(t, newProducer(t, addrs), "grow", rec(2, nil, b("new-0")), rec(2, nil, b("new-1")))
	got := sink.waitChanges(t, 2)
	if w := []string{"new-0", "new-1"}; !slices.Equal(values(got), w) {
		t.Fatalf("read %v from the new partition, want %v (from its beginning)", values(got), w)
	}
}

func TestTopicCreatedAfterStart(t *testing.T) {
	cluster := newCluster(t, 1)
	addrs := cluster.ListenAddrs()
	sink, _ := start(t, mustNew(t, textConfig(addrs, "later")), nil)
	if reason := sink.waitState(t, sources.Stalled); !strings.Contains(reason, `topic "later" does not exist`) {
		t.Fatalf("stall reason %q", reason)
	}
	p := newProducer(t, addrs)
	createTopic(t, p, "later", 2)
	produceN(t, p, "later", 2, 0, 6)
	sink.waitState(t, sources.Running)
	if got := sink.waitChanges(t, 6); !slices.Equal(values(got), want(0, 6)) {
		t.Fatalf("read %v", values(got))
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func TestBrokerRestart(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	opts := []kfake.Opt{kfake.Ports(port), kfake.DataDir(dir), kfake.SeedTopics(2, "restart")}
	cluster, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatal(err)
	}
	addrs := cluster.ListenAddrs()
	p := newProducer(t, addrs)
	produceN(t, p, "restart", 2, 0, 10)

	sink, _ := start(t, mustNew(t, textConfig(addrs, "restart")), nil)
	sink.waitChanges(t, 10)
	sink.waitState(t, sources.Running)

	cluster.Close()
	reason := sink.waitState(t, sources.Stalled)
	t.Logf("stalled: %s", reason)

	var again *kfake.Cluster
	deadline := time.Now().Add(10 * time.Second)
	for again == nil {
		if again, err = kfake.NewCluster(opts...); err != nil {
			if time.Now().After(deadline) {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond) // the port may linger briefly
		}
	}
	defer again.Close()
	sink.waitState(t, sources.Running)
	produceN(t, p, "restart", 2, 10, 6)
	sink.waitChanges(t, 16)
	time.Sleep(300 * time.Millisecond) // would-be duplicates arrive meanwhile
	sink.mu.Lock()
	got := append([]string(nil), sink.changes...)
	sink.mu.Unlock()
	if !slices.Equal(values(got), want(0, 16)) {
		t.Fatalf("read %v across the restart, want each of v0…v15 once", values(got))
	}
}

func TestAuthentication(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(),
		kfake.Superuser("SCRAM-SHA-256", "admin", "secret"), kfake.SeedTopics(1, "auth"))
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	addrs := cluster.ListenAddrs()

	cfg := textConfig(addrs, "auth")
	cfg.SASL = kafkaconn.SASL{Mechanism: "scram-sha-256", User: "admin", Password: "wrong"}
	sink, _ := start(t, mustNew(t, cfg), nil)
	reason := sink.waitState(t, sources.Stalled)
	if !strings.Contains(strings.ToUpper(reason), "SASL") && !strings.Contains(reason, "auth") {
		t.Fatalf("stall reason %q does not mention authentication", reason)
	}

	p, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.SASL(scramAuth("admin", "secret")))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	produceN(t, p, "auth", 1, 0, 3)
	cfg.SASL.Password = "secret"
	sink, _ = start(t, mustNew(t, cfg), nil)
	if got := sink.waitChanges(t, 3); !slices.Equal(values(got), want(0, 3)) {
		t.Fatalf("read %v", values(got))
	}
}

func TestDeadLetterTopic(t *testing.T) {
	cluster := newCluster(t, 1, "in", "dlq")
	addrs := cluster.ListenAddrs()
	p := newProducer(t, addrs)
	produce(t, p, "in",
		rec(0, b("k0"), b(`{"ok": 1}`)),
		rec(0, b("k1"), b(`{"bad"`), hdr("h", "v")),
		rec(0, b("k2"), b(`{"ok": 2}`)))
	cfg := Config{Connection: kafkaconn.Connection{Brokers: addrs}, Topic: "in", ValueFormat: jsonF, DeadLetterTopic: "dlq"}
	sink, _ := start(t, mustNew(t, cfg), nil)
	sink.waitChanges(t, 2)

	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.ConsumeTopics("dlq"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var got *kgo.Record
	for got == nil && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) { got = r })
	}
	if got == nil {
		t.Fatal("no record on the dead letter topic")
	}
	headers := map[string]string{}
	for _, h := range got.Headers {
		headers[h.Key] = string(h.Value)
	}
	if string(got.Key) != "k1" || string(got.Value) != `{"bad"` || headers["h"] != "v" ||
		headers[headerTopic] != "in" || headers[headerPartition] != "0" || headers[headerOffset] != "1" ||
		!strings.Contains(headers[headerError], "invalid input syntax for type json") {
		t.Fatalf("dead letter record key=%q value=%q headers=%v", got.Key, got.Value, headers)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if len(sink.dead) != 1 || sink.dead[0].Offset != 1 {
		t.Fatalf("dead letters %+v", sink.dead)
	}
}

func TestBatchLimitsAndBackpressure(t *testing.T) {
	cluster := newCluster(t, 1, "lim")
	addrs := cluster.ListenAddrs()
	p := newProducer(t, addrs)
	produceN(t, p, "lim", 1, 0, 50)
	cfg := textConfig(addrs, "lim")
	cfg.MaxBatchRecords = 7
	src := mustNew(t, cfg)
	sink := newTestSink(src.Outputs()[0].Columns)
	sink.block = make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- src.Run(ctx, nil, sink) }()

	// While the sink blocks, Run waits in Emit and reads nothing more.
	sink.block <- struct{}{}
	time.Sleep(300 * time.Millisecond)
	sink.mu.Lock()
	if n := len(sink.batches); n != 1 {
		t.Errorf("%d batches emitted while the sink was blocked, want 1", n)
	}
	sink.mu.Unlock()
	close(sink.block)
	got := sink.waitChanges(t, 50)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !slices.Equal(values(got), want(0, 50)) {
		t.Fatalf("read %v", values(got))
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	for _, b := range sink.batches {
		if n := len(b.Changes[0]); n > 7 || n == 0 {
			t.Fatalf("batch of %d changes, want 1…7", n)
		}
	}
}

func TestCorruptPositions(t *testing.T) {
	src := mustNew(t, textConfig([]string{"127.0.0.1:1"}, "x"))
	for _, resume := range []map[string][]byte{{"zero": encodePosition(1)}, {"0": {1, 2}}, {"-1": encodePosition(0)}} {
		err := src.Run(context.Background(), resume, newTestSink(nil))
		if err == nil || !strings.Contains(err.Error(), "resume") {
			t.Errorf("Run(%v) = %v, want a corrupt position error", resume, err)
		}
	}
}

// TestGroupMirrorsPositions checks that a source with a GroupID commits the
// positions it has read to that consumer group, where lag monitors look.
func TestGroupMirrorsPositions(t *testing.T) {
	cluster := newCluster(t, 2, "watched")
	addrs := cluster.ListenAddrs()
	p := newProducer(t, addrs)
	produceN(t, p, "watched", 2, 0, 6)
	cfg := textConfig(addrs, "watched")
	cfg.GroupID = "monitor"
	sink, _ := start(t, mustNew(t, cfg), nil)
	sink.waitChanges(t, 6)

	waitGroupOffsets(t, kadm.NewClient(p), "monitor", map[int32]int64{0: 3, 1: 3}, 10*time.Second)
}

// waitGroupOffsets waits until the offsets committed to group are want.
func waitGroupOffsets(t *testing.T, adm *kadm.Client, group string, want map[int32]int64, timeout time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(timeout); ; time.Sleep(50 * time.Millisecond) {
		got, err := groupOffsets(adm, group)
		if err == nil && maps.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("group %s offsets %v (error %v), want %v", group, got, err, want)
		}
	}
}

// groupOffsets reads the offsets committed to a consumer group, by
// partition.
func groupOffsets(adm *kadm.Client, group string) (map[int32]int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := adm.FetchOffsets(ctx, group)
	if err != nil {
		return nil, err
	}
	got := map[int32]int64{}
	resp.Each(func(o kadm.OffsetResponse) { got[o.Partition] = o.At })
	return got, nil
}

// TestGroupCommitRetried checks that a refused group commit is retried
// while the topic stays quiet: the group must not keep stale positions
// until the next record arrives.
func TestGroupCommitRetried(t *testing.T) {
	cluster := newCluster(t, 1, "quiet")
	var refused atomic.Int32
	cluster.ControlKey(int16(kmsg.OffsetCommit), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		if refused.Add(1) > 2 {
			return nil, nil, false
		}
		cluster.KeepControl()
		req := kreq.(*kmsg.OffsetCommitRequest)
		resp := req.ResponseKind().(*kmsg.OffsetCommitResponse)
		for _, rt := range req.Topics {
			st := kmsg.NewOffsetCommitResponseTopic()
			st.Topic = rt.Topic
			for _, rp := range rt.Partitions {
				sp := kmsg.NewOffsetCommitResponseTopicPartition()
				sp.Partition = rp.Partition
				sp.ErrorCode = kerr.GroupAuthorizationFailed.Code
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	addrs := cluster.ListenAddrs()
	p := newProducer(t, addrs)
	produceN(t, p, "quiet", 1, 0, 4)
	cfg := textConfig(addrs, "quiet")
	cfg.GroupID = "lagged"
	sink, _ := start(t, mustNew(t, cfg), nil)
	sink.waitChanges(t, 4)

	waitGroupOffsets(t, kadm.NewClient(p), "lagged", map[int32]int64{0: 4}, 15*time.Second)
	if n := refused.Load(); n < 3 {
		t.Fatalf("offsets committed after %d commit requests, want the two refusals first", n)
	}
}

// TestStatusStartingThenRunning checks the states SHOW SOURCES shows for a
// healthy source: starting until the first metadata assigns partitions,
// then running, never stalled.
func TestStatusStartingThenRunning(t *testing.T) {
	cluster := newCluster(t, 1, "healthy")
	sink, _ := start(t, mustNew(t, textConfig(cluster.ListenAddrs(), "healthy")), nil)
	sink.waitState(t, sources.Running)
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if w := []string{"starting", "running"}; !slices.Equal(slices.Compact(slices.Clone(sink.states)), w) {
		t.Fatalf("states %v, want %v", sink.states, w)
	}
}
