package kafka

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/kafkaconn"
	"github.com/streamdb/streamdb/sinks"
	"github.com/streamdb/streamdb/sinks/sinkstest"
	"github.com/streamdb/streamdb/types"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// benchTickRows is the number of changes in each benchmark tick, and so
// the records of each transaction.
const benchTickRows = 1000

// benchAddrs starts a kfake broker for one benchmark run (a broker
// keeps every record in memory, so runs sharing one would slow down as
// it fills) and returns it with a topic name.
func benchAddrs(b *testing.B) ([]string, string) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	return c.ListenAddrs(), "bench"
}

var benchCols = []sinks.Column{{Name: "id", Type: types.TypeInt8}, {Name: "customer", Type: types.TypeText},
	{Name: "amount", Type: types.TypeNumeric}, {Name: "placed_at", Type: types.TypeTimestampTZ}, {Name: "status", Type: types.TypeText}}

// benchTick is tick i: benchTickRows orders inserted.
func benchTick(i int) sinks.Tick {
	tk := sinks.Tick{Time: uint64(i + 1), Changes: make([]sinks.Change, benchTickRows)}
	for j := range tk.Changes {
		id := int64(i*benchTickRows + j)
		tk.Changes[j] = sinks.Change{Diff: 1, Row: types.Row{types.NewInt8(id), types.NewText(fmt.Sprintf("customer-%d", id%977)),
			types.NewNumericCoef(id*37%100000, -2), types.NewTimestampTZ(1_700_000_000_000_000 + id*1000), types.NewText("placed")}}
	}
	return tk
}

func benchConfig(addrs []string, topic string) Config {
	return Config{Connection: kafkaconn.Connection{Brokers: addrs}, ID: topic, Topic: topic, TopicPartitions: 3,
		Columns: benchCols, Key: []int{0}, ValueFormat: FormatJSON, Envelope: EnvelopeUpsert,
		MaxTransactionRecords: benchTickRows}
}

// BenchmarkSink compares the sink with a bare franz-go transactional
// producer writing the same records, one transaction per tick of
// benchTickRows records, to the same kfake broker: "bare" produces
// records encoded beforehand; "sink" takes the tick from its feed,
// encodes it, and commits it with its progress record. Compare the
// records/s metrics.
func BenchmarkSink(b *testing.B) {
	b.Run("bare-franz-go", func(b *testing.B) {
		addrs, topic := benchAddrs(b)
		cfg := benchConfig(addrs, topic)
		s := mustSink(b, cfg)
		// Encode a few ticks beforehand and write them over and over.
		ticks := make([][]kgo.Record, 8)
		env := newEnvelope(&s.cfg)
		for i := range ticks {
			batch := &recordBatch{topic: topic}
			batch.startTick(uint64(i + 1))
			env.appendChanges(batch, benchTick(i).Changes)
			ticks[i] = batch.records()
		}
		cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.TransactionalID("bare-"+topic),
			kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)), kgo.ProducerLinger(0))
		if err != nil {
			b.Fatal(err)
		}
		defer cl.Close()
		ctx := context.Background()
		if _, err := kadm.NewClient(cl).CreateTopic(ctx, 3, -1, nil, topic); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			recs := ticks[i%len(ticks)]
			i++
			if err := cl.BeginTransaction(); err != nil {
				b.Fatal(err)
			}
			for j := range recs {
				r := &recs[j]
				*r = kgo.Record{Topic: r.Topic, Key: r.Key, Value: r.Value, Headers: r.Headers}
				cl.Produce(ctx, r, nil)
			}
			if err := cl.Flush(ctx); err != nil {
				b.Fatal(err)
			}
			if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N*benchTickRows)/b.Elapsed().Seconds(), "records/s")
	})
	b.Run("sink", func(b *testing.B) {
		addrs, topic := benchAddrs(b)
		s := mustSink(b, benchConfig(addrs, topic))
		committed := make(chan uint64, 1)
		s.hooks = &testHooks{afterCommit: func(t uint64) { committed <- t }}
		sc := sinkstest.New(0)
		sc.Append(sinks.Tick{Time: 1}) // the sink's start
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx, sc) }()
		defer func() {
			cancel()
			if err := <-done; err != nil {
				b.Error(err)
			}
		}()
		<-committed
		ticks := make([]sinks.Tick, 8)
		for i := range ticks {
			ticks[i] = benchTick(i)
		}
		b.ReportAllocs()
		next := uint64(2)
		for b.Loop() {
			tk := ticks[next%uint64(len(ticks))]
			tk.Time = next
			next++
			sc.Append(tk)
			select {
			case <-committed:
			case err := <-done:
				b.Fatalf("sink stopped: %v", err)
			case <-time.After(30 * time.Second):
				b.Fatal("the sink did not commit the tick")
			}
		}
		b.ReportMetric(float64(b.N*benchTickRows)/b.Elapsed().Seconds(), "records/s")
	})
}

// BenchmarkEncode measures turning one tick into records (the sink's
// own work on the hot path, without the broker).
func BenchmarkEncode(b *testing.B) {
	cfg := benchConfig([]string{"127.0.0.1:9092"}, "bench")
	s := mustSink(b, cfg)
	env := newEnvelope(&s.cfg)
	tk := benchTick(0)
	batch := &recordBatch{topic: "bench"}
	b.ReportAllocs()
	for b.Loop() {
		batch.reset()
		batch.startTick(tk.Time)
		env.appendChanges(batch, tk.Changes)
	}
	b.ReportMetric(float64(b.N*benchTickRows)/b.Elapsed().Seconds(), "records/s")
}
