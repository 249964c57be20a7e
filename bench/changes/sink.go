package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamdb/streamdb/bench/internal/progress"
	"github.com/streamdb/streamdb/bench/internal/server"
)

// sinkResult is the sink part's result.
type sinkResult struct {
	Records int `json:"records"`
	// SinkPerSec is the rate at which a read_committed consumer saw the
	// sink's records once the sink was catching up (see consume), over
	// SinkSeconds and Transactions; InsertSeconds is how long the
	// INSERTs of the backlog took.
	SinkPerSec    float64 `json:"sink_records_per_s"`
	SinkSeconds   float64 `json:"sink_seconds"`
	Transactions  int     `json:"transactions_seen"`
	InsertSeconds float64 `json:"insert_seconds"`
	// BarePerSec is the bare transactional producer's rate for the same
	// records, in transactions of BareTxnRecords.
	BarePerSec     float64 `json:"bare_records_per_s"`
	BareTxnRecords int     `json:"bare_transaction_records"`
	Ratio          float64 `json:"ratio"`
	// The same per CPU-second of the server and this process, which
	// runs the broker and the consumer: on a loaded machine the steadier
	// comparison.
	SinkPerCPUSec float64 `json:"sink_records_per_cpu_s"`
	BarePerCPUSec float64 `json:"bare_records_per_cpu_s"`
	CPURatio      float64 `json:"cpu_ratio"`
	Met           bool    `json:"met"`
}

func measureSink(ctx context.Context, cfg config, srv *server.Streamdb, r *results, bar *progress.Bar) error {
	b, err := newBroker()
	if err != nil {
		return err
	}
	defer b.close()
	conn, err := pgx.Connect(ctx, srv.URL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for _, sql := range []string{
		fmt.Sprintf("CREATE CONNECTION kc TO KAFKA (BROKER '%s')", b.addr),
		"CREATE TABLE orders (id bigint PRIMARY KEY, customer text, amount numeric(10,2), placed_at timestamptz, status text)",
		"CREATE SINK orders_sink FROM orders INTO KAFKA CONNECTION kc (TOPIC 'orders', TOPIC PARTITION COUNT 3) KEY (id) FORMAT JSON ENVELOPE UPSERT WITH (SNAPSHOT = false)",
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			return err
		}
	}
	if err := waitSinkStatus(ctx, conn, "running"); err != nil {
		return err
	}
	// The broker goes away and the changes wait in the sink's history;
	// when it is back, the sink writes them as fast as it can.
	b.stop()
	start := time.Now()
	for lo := 0; lo < cfg.SinkRows; lo += cfg.SinkBatch {
		hi := min(lo+cfg.SinkBatch, cfg.SinkRows) - 1
		if _, err := conn.Exec(ctx, `INSERT INTO orders SELECT g, 'customer-' || (g % 977), (g * 37 % 100000) / 100.0,
			timestamptz '2024-01-01 00:00:00+00' + g * interval '1 ms', 'placed' FROM generate_series($1::bigint, $2::bigint) AS g`, lo, hi); err != nil {
			return err
		}
		bar.Update(float64(hi) / float64(cfg.SinkRows) / 3)
	}
	inserted := time.Since(start)
	if err := waitSinkStatus(ctx, conn, "stalled"); err != nil {
		return err
	}
	cpu0, err := cpuTime(srv)
	if err != nil {
		return err
	}
	if err := b.start(); err != nil {
		return err
	}
	c, err := consume(ctx, b.addr, "orders", cfg.SinkRows)
	if err != nil {
		return err
	}
	cpu1, err := cpuTime(srv)
	if err != nil {
		return err
	}
	bar.Update(0.66)
	bare, err := bareProducer(ctx, b.addr, c.recs, c.txnRecords)
	if err != nil {
		return err
	}
	n := float64(len(c.recs))
	r.Sink = sinkResult{Records: len(c.recs), InsertSeconds: inserted.Seconds(), SinkSeconds: c.span.Seconds(),
		SinkPerSec: float64(c.afterFirst) / c.span.Seconds(), Transactions: c.txns,
		SinkPerCPUSec: n / (cpu1 - cpu0).Seconds(),
		BarePerSec:    float64(bare.afterFirst) / bare.span.Seconds(), BarePerCPUSec: n / bare.cpu.Seconds(),
		BareTxnRecords: c.txnRecords}
	r.Sink.Ratio = r.Sink.SinkPerSec / r.Sink.BarePerSec
	r.Sink.CPURatio = r.Sink.SinkPerCPUSec / r.Sink.BarePerCPUSec
	r.Sink.Met = r.Sink.Ratio >= 0.5
	bar.Printf("sink: %.0f records/s (%.0f per CPU-second) over %d reads; bare producer %.0f records/s (%.0f per CPU-second); %.2f× (%.2f× per CPU-second)",
		r.Sink.SinkPerSec, r.Sink.SinkPerCPUSec, c.txns, r.Sink.BarePerSec, r.Sink.BarePerCPUSec, r.Sink.Ratio, r.Sink.CPURatio)
	return nil
}

// cpuTime returns the CPU time of the server and of this process (the
// broker, the producers and the consumers), together.
func cpuTime(srv *server.Streamdb) (time.Duration, error) {
	var total time.Duration
	if srv != nil {
		u, err := srv.Usage()
		if err != nil {
			return 0, err
		}
		total += u.CPU
	}
	u, err := server.ReadUsage(os.Getpid())
	return total + u.CPU, err
}

// broker is an in-process kfake broker that keeps its data on disk, so
// that it can stop and start again on the same port.
type broker struct {
	opts    []kfake.Opt
	addr    string
	dir     string
	cluster *kfake.Cluster
}

func newBroker() (*broker, error) {
	dir, err := os.MkdirTemp("", "changes-kfake-*")
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	b := &broker{opts: []kfake.Opt{kfake.NumBrokers(1), kfake.Ports(port), kfake.DataDir(dir)}, dir: dir}
	if err := b.start(); err != nil {
		return nil, err
	}
	b.addr = b.cluster.ListenAddrs()[0]
	return b, nil
}

// start starts the broker, waiting for its port to be free.
func (b *broker) start() error {
	var err error
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if b.cluster, err = kfake.NewCluster(b.opts...); err == nil || time.Now().After(deadline) {
			return err
		}
	}
}

func (b *broker) stop() { b.cluster.Close() }

func (b *broker) close() {
	b.cluster.Close()
	os.RemoveAll(b.dir)
}

// waitSinkStatus waits for SHOW SINKS to say the sink is in state.
func waitSinkStatus(ctx context.Context, conn *pgx.Conn, state string) error {
	deadline := time.Now().Add(time.Minute)
	for {
		var name, kind, status string
		if err := conn.QueryRow(ctx, "SHOW SINKS").Scan(&name, &kind, &status); err != nil {
			return err
		}
		if strings.HasPrefix(status, state) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the sink is %s", status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// consumed is what a read_committed consumer read of the sink's topic:
// the records, the transactions they came in (told apart by the batch
// boundaries the consumer sees, each a poll), and the time from the end
// of the first transaction to the end of the last.
type consumed struct {
	recs       []*kgo.Record
	txns       int
	txnRecords int
	afterFirst int
	span       time.Duration
}

// consume reads n records of topic with a read_committed consumer. A
// transaction becomes visible at once when it commits, so each poll
// that returns records ends one or more transactions; the rate counts
// the records after the first poll over the time since it.
func consume(ctx context.Context, addr, topic string, n int) (consumed, error) {
	var c consumed
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(10*time.Millisecond))
	if err != nil {
		return c, err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	c.recs = make([]*kgo.Record, 0, n)
	var first time.Time
	for len(c.recs) < n {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return c, fmt.Errorf("read %d of %d records: %w", len(c.recs), n, err)
		}
		before := len(c.recs)
		fs.EachRecord(func(r *kgo.Record) { c.recs = append(c.recs, r) })
		if len(c.recs) == before {
			continue
		}
		c.txns++
		if first.IsZero() {
			first, c.afterFirst = time.Now(), -len(c.recs)
		}
	}
	c.span = time.Since(first)
	c.afterFirst += len(c.recs)
	c.txnRecords = (len(c.recs) + c.txns - 1) / c.txns
	if c.txns < 2 || c.span <= 0 {
		return c, fmt.Errorf("the sink wrote %d records in %d reads: too few to time", len(c.recs), c.txns)
	}
	return c, nil
}

// bareRun is the bare producer's result, read by a consumer as the
// sink's records are.
type bareRun struct {
	consumed
	cpu time.Duration
}

// bareProducer writes recs to a new topic of three partitions with a
// transactional franz-go producer configured as the sink's, txn records
// a transaction, while a read_committed consumer reads them as it reads
// the sink's.
func bareProducer(ctx context.Context, addr string, recs []*kgo.Record, txn int) (bareRun, error) {
	var run bareRun
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.TransactionalID("bare-producer"),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)), kgo.ProducerLinger(0),
		kgo.MaxBufferedRecords(64<<10), kgo.MaxBufferedBytes(64<<20))
	if err != nil {
		return run, err
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 3, -1, nil, "bare"); err != nil {
		return run, err
	}
	cpu0, err := cpuTime(nil)
	if err != nil {
		return run, err
	}
	done := make(chan error, 1)
	go func() {
		var err error
		run.consumed, err = consume(ctx, addr, "bare", len(recs))
		done <- err
	}()
	for lo := 0; lo < len(recs); lo += txn {
		if err := cl.BeginTransaction(); err != nil {
			return run, err
		}
		var mu sync.Mutex
		var first error
		for _, r := range recs[lo:min(lo+txn, len(recs))] {
			cl.Produce(ctx, &kgo.Record{Topic: "bare", Key: r.Key, Value: r.Value, Headers: r.Headers}, func(_ *kgo.Record, err error) {
				if err != nil {
					mu.Lock()
					first = err
					mu.Unlock()
				}
			})
		}
		if err := cl.Flush(ctx); err != nil {
			return run, err
		}
		if first != nil {
			return run, first
		}
		if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
			return run, err
		}
	}
	if err := <-done; err != nil {
		return run, err
	}
	cpu1, err := cpuTime(nil)
	run.cpu = cpu1 - cpu0
	return run, err
}
