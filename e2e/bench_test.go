package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// envInt reads a positive integer from the environment, def when unset.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// benchBatchRecords is the Kafka source's batch bound
// (kafka.DefaultMaxBatchRecords): the records the engine takes in at once.
const benchBatchRecords = 10_000

// benchValue is one record: 100 keys, x counting up.
func benchValue(i int) []byte {
	return fmt.Appendf(nil, `{"k": "key-%02d", "x": %d, "note": "record %d of the ingest benchmark"}`, i%100, i, i)
}

// backlog is a topic "bench" of n benchValue records over three partitions
// on a devkafka process. The broker runs in its own process so that the
// heap a test measures is the consumer's alone.
type backlog struct {
	addr  string
	n     int
	bytes int64
}

func fillBacklog(t testing.TB, n int) backlog {
	t.Helper()
	_, addr := startDevkafka(t, "--partitions", "3")
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic("bench"), kgo.AllowAutoTopicCreation(),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.MaxBufferedRecords(100_000), kgo.ProducerBatchMaxBytes(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var failed atomic.Pointer[error]
	bl := backlog{addr: addr, n: n}
	for i := range n {
		v := benchValue(i)
		bl.bytes += int64(len(v))
		cl.Produce(ctx, &kgo.Record{Partition: int32(i % 3), Value: v}, func(_ *kgo.Record, err error) {
			if err != nil {
				failed.CompareAndSwap(nil, &err)
			}
		})
	}
	if err := cl.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := failed.Load(); err != nil {
		t.Fatalf("producing the backlog: %v", *err)
	}
	return bl
}

// heapSampler records the peak of the live heap, as the last garbage
// collection measured it, every millisecond and without stopping the
// world. Collections run every few megabytes of allocation here, so the
// peak is the memory actually held rather than garbage awaiting a cycle.
type heapSampler struct {
	stop chan struct{}
	done chan struct{}
	peak atomic.Uint64
}

func heapNow() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// liveHeap is the heap after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	return heapNow()
}

func startHeapSampler() *heapSampler {
	h := &heapSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			if v := heapNow(); v > h.peak.Load() {
				h.peak.Store(v)
			}
			select {
			case <-h.stop:
				return
			case <-t.C:
			}
		}
	}()
	return h
}

func (h *heapSampler) finish() uint64 {
	close(h.stop)
	<-h.done
	return h.peak.Load()
}

// growth is how far a above b, 0 when it is not.
func growth(a, b uint64) uint64 { return a - min(a, b) }

type benchEvent struct {
	K    string `json:"k"`
	X    int64  `json:"x"`
	Note string `json:"note"`
}

// ingestRun is one reading of the backlog.
type ingestRun struct {
	elapsed time.Duration
	// peak is the live heap's peak growth over the run; transient the
	// part of it that is gone once the records are ingested, retained
	// the part that stays (streamdb's stored source relation).
	peak, transient, retained uint64
	// inflight is the most records held at once: the largest poll for
	// the bare loop, the batch bound for streamdb.
	inflight int
}

// bareIngest reads the backlog with a franz-go consumer that decodes each
// record with encoding/json and sums x, nothing more.
func bareIngest(t testing.TB, bl backlog) ingestRun {
	base := liveHeap()
	h := startHeapSampler()
	start := time.Now()
	cl, err := kgo.NewClient(kgo.SeedBrokers(bl.addr), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{
		"bench": {0: kgo.NewOffset().AtStart(), 1: kgo.NewOffset().AtStart(), 2: kgo.NewOffset().AtStart()}}))
	if err != nil {
		t.Fatal(err)
	}
	var run ingestRun
	var e benchEvent
	var sum int64
	for got := 0; got < bl.n; {
		fs := cl.PollFetches(context.Background())
		if err := fs.Err(); err != nil {
			t.Fatal(err)
		}
		run.inflight = max(run.inflight, fs.NumRecords())
		for it := fs.RecordIter(); !it.Done(); {
			if err := json.Unmarshal(it.Next().Value, &e); err != nil {
				t.Fatal(err)
			}
			sum += e.X
			got++
		}
	}
	cl.Close()
	run.elapsed = time.Since(start)
	peak := h.finish()
	run.peak, run.transient = growth(peak, base), growth(peak, liveHeap())
	if want := int64(bl.n) * int64(bl.n-1) / 2; sum != want {
		t.Fatalf("sum(x) = %d, want %d", sum, want)
	}
	return run
}

// streamdbIngest reads the backlog with a JSON source with typed columns
// feeding a materialized view SELECT k, count(*), sum(x) … GROUP BY k,
// through the whole engine (decode, batch, Pebble commit with the offsets,
// view maintenance), timed from CREATE SOURCE until the view has counted
// every record. during, when not nil, runs on its own goroutine for the
// length of the ingestion with a second connection, until its context
// ends.
func streamdbIngest(t testing.TB, bl backlog, during func(ctx context.Context, c *client)) ingestRun {
	srv := startServer(t, "")
	defer srv.Stop()
	c := connect(t, srv.URL)
	c.exec(fmt.Sprintf(`CREATE CONNECTION kc TO KAFKA (BROKER '%s')`, bl.addr))
	c.exec(`CREATE MATERIALIZED VIEW warmup AS SELECT 1 AS one`)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if during != nil {
			during(ctx, connect(t, srv.URL))
		}
	}()
	base := liveHeap()
	h := startHeapSampler()
	start := time.Now()
	c.exec(`CREATE SOURCE bench (k text, x int8) FROM KAFKA CONNECTION kc (TOPIC 'bench') FORMAT JSON`)
	c.exec(`CREATE MATERIALIZED VIEW bench_sums AS SELECT k, count(*) AS n, sum(x) AS s FROM bench GROUP BY k`)
	want := fmt.Sprintf("%d|%d", bl.n, int64(bl.n)*int64(bl.n-1)/2)
	for c.rows(`SELECT sum(n), sum(s) FROM bench_sums`) != want {
		time.Sleep(10 * time.Millisecond)
	}
	run := ingestRun{elapsed: time.Since(start), inflight: benchBatchRecords}
	stop()
	<-done
	peak := h.finish()
	after := liveHeap()
	run.peak, run.transient, run.retained = growth(peak, base), growth(peak, after), growth(after, base)
	if groups := c.rows(`SELECT count(*) FROM bench_sums`); groups != "100" {
		t.Fatalf("%s groups, want 100", groups)
	}
	return run
}

// BenchmarkKafkaIngest reads the same backlog (STREAMDB_E2E_BENCH_RECORDS
// records, 300,000 by default) from the same broker two ways in each
// iteration: a bare franz-go consumer loop that fetches and json-decodes
// the records (the baseline), and streamdb from CREATE SOURCE until its
// GROUP BY view has counted them all. The order alternates between
// iterations, so neither side always runs on a warmer machine.
//
// Metrics: bare-records/s and streamdb-records/s, ratio (streamdb's rate
// over the bare loop's, summed over iterations; the target is ≥ 0.5);
// B/inflight-record, the transient heap at the peak (what is gone again
// once ingestion is over) over the records held at once, for each side;
// streamdb-heap-MB, the peak heap growth; retained-B/record, what streamdb
// keeps per ingested record once ingestion is over.
func BenchmarkKafkaIngest(b *testing.B) {
	bl := fillBacklog(b, envInt("STREAMDB_E2E_BENCH_RECORDS", 300_000))
	var bare, sdb ingestRun
	var bareTime, sdbTime time.Duration
	for i := range b.N {
		var r1, r2 ingestRun
		if i%2 == 0 {
			r1, r2 = bareIngest(b, bl), streamdbIngest(b, bl, nil)
		} else {
			r2, r1 = streamdbIngest(b, bl, nil), bareIngest(b, bl)
		}
		bareTime += r1.elapsed
		sdbTime += r2.elapsed
		bare.transient, bare.inflight = max(bare.transient, r1.transient), max(bare.inflight, r1.inflight)
		sdb.peak, sdb.transient, sdb.retained = max(sdb.peak, r2.peak), max(sdb.transient, r2.transient), max(sdb.retained, r2.retained)
	}
	records := float64(bl.n * b.N)
	b.ReportMetric(records/bareTime.Seconds(), "bare-records/s")
	b.ReportMetric(records/sdbTime.Seconds(), "streamdb-records/s")
	b.ReportMetric(bareTime.Seconds()/sdbTime.Seconds(), "ratio")
	b.ReportMetric(float64(bare.transient)/float64(bare.inflight), "bare-B/inflight-record")
	b.ReportMetric(float64(sdb.transient)/benchBatchRecords, "streamdb-B/inflight-record")
	b.ReportMetric(float64(sdb.peak)/(1<<20), "streamdb-heap-MB")
	b.ReportMetric(float64(sdb.retained)/float64(bl.n), "retained-B/record")
}
