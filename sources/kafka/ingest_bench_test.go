package kafka

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/kafkaconn"
	"github.com/streamdb/streamdb/sources"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ingestBenchRecords is the backlog BenchmarkIngest reads; override with
// STREAMDB_KAFKA_BENCH_RECORDS.
func ingestBenchRecords() int {
	if n, err := strconv.Atoi(os.Getenv("STREAMDB_KAFKA_BENCH_RECORDS")); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}

var ingestBench struct {
	once    sync.Once
	cluster *kfake.Cluster
	n       int
	err     error
}

// ingestBenchCluster fills a 3-partition kfake topic once per test binary.
func ingestBenchCluster(b *testing.B) ([]string, int) {
	ingestBench.once.Do(func() {
		ingestBench.n = ingestBenchRecords()
		c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "bench"))
		if err != nil {
			ingestBench.err = err
			return
		}
		ingestBench.cluster = c
		cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.DefaultProduceTopic("bench"),
			kgo.ProducerBatchMaxBytes(1<<20), kgo.MaxBufferedRecords(100_000))
		if err != nil {
			ingestBench.err = err
			return
		}
		defer cl.Close()
		ctx := context.Background()
		var mu sync.Mutex
		for i := range ingestBench.n {
			cl.Produce(ctx, &kgo.Record{Value: benchRecord(i)}, func(_ *kgo.Record, err error) {
				if err != nil {
					mu.Lock()
					ingestBench.err = err
					mu.Unlock()
				}
			})
		}
		if err := cl.Flush(ctx); err != nil && ingestBench.err == nil {
			ingestBench.err = err
		}
	})
	if ingestBench.err != nil {
		b.Fatal(ingestBench.err)
	}
	return ingestBench.cluster.ListenAddrs(), ingestBench.n
}

// discardSink counts what a source emits and throws it away.
type discardSink struct {
	mu      sync.Mutex
	records int64
	target  int64
	done    chan struct{}
}

func (s *discardSink) Emit(_ context.Context, b *sources.Batch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records += int64(len(b.Changes[0]) + len(b.DeadLetters))
	if s.records >= s.target && s.done != nil {
		close(s.done)
		s.done = nil
	}
	return nil
}

func (s *discardSink) Status(sources.State, string) {}

// BenchmarkIngest reads a backlog of small JSON records from kfake, as a
// bare franz-go consumer loop that decodes each record with encoding/json
// (the baseline) and as the source with a sink that discards batches.
// Each iteration reads the whole backlog; compare the records/s metrics.
func BenchmarkIngest(b *testing.B) {
	b.Run("franz-go+encoding-json", func(b *testing.B) {
		addrs, n := ingestBenchCluster(b)
		b.ReportAllocs()
		for b.Loop() {
			cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{
				"bench": {0: kgo.NewOffset().AtStart(), 1: kgo.NewOffset().AtStart(), 2: kgo.NewOffset().AtStart()}}))
			if err != nil {
				b.Fatal(err)
			}
			got := 0
			var e benchEvent
			for got < n {
				fs := cl.PollFetches(context.Background())
				if err := fs.Err(); err != nil {
					b.Fatal(err)
				}
				for it := fs.RecordIter(); !it.Done(); {
					if err := json.Unmarshal(it.Next().Value, &e); err != nil {
						b.Fatal(err)
					}
					got++
				}
			}
			cl.Close()
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
	})
	for _, tc := range []struct {
		name    string
		columns []sources.Column
	}{
		{"source-jsonb", nil},
		{"source-columns", benchColumns},
	} {
		b.Run(tc.name, func(b *testing.B) {
			addrs, n := ingestBenchCluster(b)
			b.ReportAllocs()
			for b.Loop() {
				src, err := New(Config{Connection: kafkaconn.Connection{Brokers: addrs}, Topic: "bench", ValueFormat: jsonF, Columns: tc.columns, StartTimestamp: -1})
				if err != nil {
					b.Fatal(err)
				}
				sink := &discardSink{target: int64(n), done: make(chan struct{})}
				done := sink.done
				ctx, cancel := context.WithCancel(context.Background())
				errc := make(chan error, 1)
				go func() { errc <- src.Run(ctx, nil, sink) }()
				select {
				case <-done:
				case <-time.After(10 * time.Minute):
					b.Fatal("source did not read the backlog")
				}
				cancel()
				if err := <-errc; err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
