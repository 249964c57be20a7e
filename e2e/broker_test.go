package e2e

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// broker is an in-process kfake cluster of one broker on a fixed loopback
// port, so that it can be stopped and started again at the same address
// (with its data, when it keeps it on disk).
type broker struct {
	t    testing.TB
	opts []kfake.Opt
	addr string

	mu      sync.Mutex
	cluster *kfake.Cluster

	// quiet silences kfake's logger once the test is over.
	quiet atomic.Bool

	// client produces and administers; it outlives broker restarts.
	client     *kgo.Client
	clientOpts []kgo.Opt
	admin      *kadm.Client
}

// startBroker starts a broker that keeps its data in memory; the test
// stops it when it ends.
func startBroker(t testing.TB) *broker { return newBroker(t, nil, nil) }

// startPersistentBroker starts a broker that keeps its data on disk, so
// that it survives stop and start.
func startPersistentBroker(t testing.TB) *broker {
	return newBroker(t, []kfake.Opt{kfake.DataDir(t.TempDir())}, nil)
}

// startSASLBroker starts a broker that requires SASL authentication as
// user with password, by mechanism PLAIN or SCRAM-SHA-256.
func startSASLBroker(t testing.TB, mechanism, user, password string) *broker {
	m := plain.Auth{User: user, Pass: password}.AsMechanism()
	if mechanism == "SCRAM-SHA-256" {
		m = scram.Auth{User: user, Pass: password}.AsSha256Mechanism()
	}
	return newBroker(t,
		[]kfake.Opt{kfake.EnableSASL(), kfake.Superuser(mechanism, user, password)},
		[]kgo.Opt{kgo.SASL(m)})
}

func newBroker(t testing.TB, opts []kfake.Opt, clientOpts []kgo.Opt) *broker {
	t.Helper()
	port := freePort(t)
	b := &broker{t: t}
	b.opts = append([]kfake.Opt{kfake.NumBrokers(1), kfake.Ports(port),
		kfake.WithLogger(&kfakeLogger{t: t, quiet: &b.quiet})}, opts...)
	b.start()
	b.addr = b.cluster.ListenAddrs()[0]
	b.clientOpts = append([]kgo.Opt{kgo.SeedBrokers(b.addr), kgo.ProducerLinger(0),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.MaxBufferedRecords(50_000)}, clientOpts...)
	b.connect()
	t.Cleanup(func() {
		b.client.Close()
		b.stop()
		b.quiet.Store(true)
	})
	return b
}

// connect (re)creates the producing and administering client.
func (b *broker) connect() {
	b.t.Helper()
	if b.client != nil {
		b.client.Close()
	}
	cl, err := kgo.NewClient(b.clientOpts...)
	if err != nil {
		b.t.Fatal(err)
	}
	b.client, b.admin = cl, kadm.NewClient(cl)
}

// start (re)starts the cluster, retrying while the port is still held by
// the previous incarnation.
func (b *broker) start() {
	b.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := kfake.NewCluster(b.opts...)
		if err == nil {
			b.mu.Lock()
			b.cluster = c
			b.mu.Unlock()
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("starting kfake: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stop shuts the cluster down; its data stays on disk for start.
func (b *broker) stop() {
	b.mu.Lock()
	c := b.cluster
	b.cluster = nil
	b.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

// createTopic creates a topic with the given number of partitions.
func (b *broker) createTopic(topic string, partitions int32) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := b.admin.CreateTopic(ctx, partitions, 1, nil, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		b.t.Fatalf("creating topic %s: %v", topic, err)
	}
}

// addPartitions grows a topic by n partitions.
func (b *broker) addPartitions(topic string, n int) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resps, err := b.admin.CreatePartitions(ctx, n, topic)
	if err == nil {
		err = resps.Error()
	}
	if err != nil {
		b.t.Fatalf("adding %d partitions to %s: %v", n, topic, err)
	}
	// The client's metadata does not know the new partitions yet, and
	// the manual partitioner refuses them until it does.
	b.connect()
}

// produce writes records synchronously to their Partition of topic and
// returns the end offset (next offset) of each partition written.
func (b *broker) produce(topic string, recs ...*kgo.Record) map[int32]int64 {
	b.t.Helper()
	for _, r := range recs {
		r.Topic = topic
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	results := b.client.ProduceSync(ctx, recs...)
	if err := results.FirstErr(); err != nil {
		b.t.Fatalf("producing to %s: %v", topic, err)
	}
	ends := make(map[int32]int64)
	for _, r := range results {
		ends[r.Record.Partition] = max(ends[r.Record.Partition], r.Record.Offset+1)
	}
	return ends
}

// produceMany writes many records asynchronously and waits until all are
// acknowledged. It returns the first failure rather than failing the test,
// so that it may run on a goroutine of the test's.
func (b *broker) produceMany(topic string, recs []*kgo.Record) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var mu sync.Mutex
	var first error
	for _, r := range recs {
		r.Topic = topic
		b.client.Produce(ctx, r, func(_ *kgo.Record, err error) {
			if err != nil {
				mu.Lock()
				first = cmp.Or(first, err)
				mu.Unlock()
			}
		})
	}
	if err := b.client.Flush(ctx); err != nil {
		return fmt.Errorf("producing to %s: %w", topic, err)
	}
	if first != nil {
		return fmt.Errorf("producing to %s: %w", topic, first)
	}
	return nil
}

// record builds a record for a partition; nil key or value stay null.
func record(partition int32, key, value []byte) *kgo.Record {
	return &kgo.Record{Partition: partition, Key: key, Value: value}
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// kfakeLogger passes kfake's warnings and errors to the test log until
// the test is over.
type kfakeLogger struct {
	t     testing.TB
	quiet *atomic.Bool
}

func (l *kfakeLogger) Logf(level kfake.LogLevel, format string, args ...any) {
	if (level == kfake.LogLevelError || level == kfake.LogLevelWarn) && !l.quiet.Load() {
		l.t.Logf("kfake: "+format, args...)
	}
}
