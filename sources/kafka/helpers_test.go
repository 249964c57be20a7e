package kafka

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// newCluster starts an in-process kfake broker on a free local port with
// the given topics seeded.
func newCluster(t testing.TB, partitions int32, topics ...string) *kfake.Cluster {
	t.Helper()
	opts := []kfake.Opt{kfake.NumBrokers(1)}
	if len(topics) > 0 {
		opts = append(opts, kfake.SeedTopics(partitions, topics...))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// newProducer returns a client producing to addrs.
func newProducer(t testing.TB, addrs []string) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.ProducerLinger(0),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// produce writes records synchronously; records keep their Partition
// (manual partitioner) and get topic as their topic.
func produce(t testing.TB, cl *kgo.Client, topic string, recs ...*kgo.Record) {
	t.Helper()
	for _, r := range recs {
		r.Topic = topic
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// rec builds a record; a nil key or value stays null.
func rec(partition int32, key, value []byte, headers ...kgo.RecordHeader) *kgo.Record {
	return &kgo.Record{Partition: partition, Key: key, Value: value, Headers: headers}
}

func b(s string) []byte { return []byte(s) }

// testSink records everything a source reports.
type testSink struct {
	mu       sync.Mutex
	cond     *sync.Cond
	cols     []sources.Column
	batches  []*sources.Batch
	changes  []string
	dead     []sources.DeadLetter
	progress map[string]int64
	states   []string
	state    sources.State
	reason   string
	// block, when non-nil, is received from before each Emit returns.
	block chan struct{}
}

func newTestSink(cols []sources.Column) *testSink {
	s := &testSink{cols: cols, progress: make(map[string]int64)}
	s.cond = sync.NewCond(&s.mu)
	return s
}

func (s *testSink) Emit(ctx context.Context, b *sources.Batch) error {
	if s.block != nil {
		select {
		case <-s.block:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.batches = append(s.batches, b)
	for _, c := range b.Changes[0] {
		s.changes = append(s.changes, formatChange(s.cols, c))
	}
	s.dead = append(s.dead, b.DeadLetters...)
	for p, v := range b.Progress {
		pos, _, err := decodePositions(map[string][]byte{p: v})
		if err != nil {
			panic(err)
		}
		for _, off := range pos {
			s.progress[p] = off
		}
	}
	s.cond.Broadcast()
	return nil
}

func (s *testSink) Status(st sources.State, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state, s.reason = st, reason
	s.states = append(s.states, string(st))
	s.cond.Broadcast()
}

// waitFor waits until cond holds under the sink's lock, failing after d.
func (s *testSink) waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	stop := time.AfterFunc(d, func() {
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	defer stop.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; state %s (%s), %d changes, %d dead letters:\n%s",
				what, s.state, s.reason, len(s.changes), len(s.dead), strings.Join(s.changes, "\n"))
		}
		s.cond.Wait()
	}
}

func (s *testSink) waitChanges(t testing.TB, n int) []string {
	t.Helper()
	s.waitFor(t, 20*time.Second, fmt.Sprintf("%d changes", n), func() bool { return len(s.changes) >= n })
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.changes...)
}

func (s *testSink) waitState(t testing.TB, st sources.State) string {
	t.Helper()
	s.waitFor(t, 30*time.Second, "state "+string(st), func() bool { return s.state == st })
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reason
}

// formatChange renders a change for comparisons: "+1 (a, b)" for appends,
// "k → (a, b)" for upserts and "k → delete" for deletes.
func formatChange(cols []sources.Column, c sources.Change) string {
	if c.Key == nil {
		return fmt.Sprintf("%+d %s", c.Diff, formatRow(cols, c.Row))
	}
	keyCols := make([]sources.Column, len(c.Key))
	for i := range keyCols {
		keyCols[i] = sources.Column{Type: types.TypeText}
	}
	key := formatRowLoose(c.Key)
	if c.Row == nil {
		return key + " → delete"
	}
	return key + " → " + formatRow(cols, c.Row)
}

func formatRow(cols []sources.Column, row types.Row) string {
	parts := make([]string, len(row))
	for i, d := range row {
		if d.IsNull() {
			parts[i] = "NULL"
			continue
		}
		parts[i] = types.FormatText(d, cols[i].Type, nil)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// formatRowLoose renders Datums whose static types are unknown, using
// their families.
func formatRowLoose(row types.Row) string {
	parts := make([]string, len(row))
	for i, d := range row {
		if d.IsNull() {
			parts[i] = "NULL"
			continue
		}
		parts[i] = types.FormatText(d, types.Type{Family: d.Kind(), Mod: -1}, nil)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// start runs src until the test ends and returns its sink.
func start(t testing.TB, src sources.Source, resume map[string][]byte) (*testSink, context.CancelFunc) {
	t.Helper()
	sink := newTestSink(src.Outputs()[0].Columns)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- src.Run(ctx, resume, sink) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("Run did not return after cancel")
		}
	})
	return sink, cancel
}

// mustNew builds a source or fails the test.
func mustNew(t testing.TB, cfg Config) sources.Source {
	t.Helper()
	if cfg.MetadataInterval == 0 {
		cfg.MetadataInterval = 200 * time.Millisecond
	}
	if cfg.StartTimestamp == 0 {
		cfg.StartTimestamp = -1
	}
	src, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// createTopic creates a topic with n partitions.
func createTopic(t testing.TB, cl *kgo.Client, topic string, n int32) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := kadm.NewClient(cl).CreateTopic(ctx, n, 1, nil, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatalf("creating topic %s: %v", topic, err)
	}
}

func scramAuth(user, pass string) sasl.Mechanism {
	return scram.Auth{User: user, Pass: pass}.AsSha256Mechanism()
}
