package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/kafkaconn"
	"github.com/streamdb/streamdb/sinks"
	"github.com/streamdb/streamdb/sinks/sinkstest"
	"github.com/streamdb/streamdb/types"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// newCluster starts an in-process kfake broker on a free local port.
func newCluster(t testing.TB, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
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

// accountCols is the relation most tests sink: accounts by id.
var accountCols = []sinks.Column{{Name: "id", Type: types.TypeInt4}, {Name: "owner", Type: types.TypeText}, {Name: "balance", Type: types.TypeNumeric}}

func account(id int32, owner string, balance int64) types.Row {
	return types.Row{types.NewInt4(id), types.NewText(owner), types.NewNumericCoef(balance, -2)}
}

func ins(r types.Row) sinks.Change { return sinks.Change{Row: r, Diff: 1} }
func del(r types.Row) sinks.Change { return sinks.Change{Row: r, Diff: -1} }

// testConfig is an upsert sink of accounts keyed by id.
func testConfig(addrs []string, topic string) Config {
	return Config{
		Connection:  kafkaconn.Connection{Brokers: addrs},
		ID:          "u1",
		Topic:       topic,
		Columns:     accountCols,
		Key:         []int{0},
		ValueFormat: FormatJSON,
		Envelope:    EnvelopeUpsert,
		Snapshot:    true,
		Timeout:     3 * time.Second,
		MaxBackoff:  200 * time.Millisecond,
		Logger:      testLogger(),
	}
}

// testLogger discards logs unless STREAMDB_SINK_TEST_LOG names a level
// (debug, info, warn) to print at.
func testLogger() *slog.Logger {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(os.Getenv("STREAMDB_SINK_TEST_LOG"))); err != nil {
		return nil
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lvl}))
}

// running is a sink's Run in a goroutine.
type running struct {
	cancel context.CancelFunc
	done   chan error
}

func start(t *testing.T, s *sink, eng sinks.Engine) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	return startCtx(t, ctx, cancel, s, eng)
}

// startCtx runs s under ctx, which cancel ends.
func startCtx(t *testing.T, ctx context.Context, cancel context.CancelFunc, s *sink, eng sinks.Engine) *running {
	t.Helper()
	r := &running{cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- s.Run(ctx, eng) }()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop cancels the run and returns its error.
func (r *running) stop(t *testing.T) error {
	t.Helper()
	r.cancel()
	select {
	case err, ok := <-r.done:
		if ok {
			close(r.done)
		}
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("sink did not stop")
	}
	return nil
}

func mustSink(t testing.TB, cfg Config) *sink {
	t.Helper()
	s, err := newSink(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// consumed is what a consumer read from the data topic.
type consumed struct {
	recs []*kgo.Record
}

// consume reads the topic from its start with a consumer of the given
// isolation until it holds at least want records and no more arrive for
// a while (duplicates would), or fails after a timeout.
func consume(t *testing.T, addrs []string, topic string, committed bool, want int) consumed {
	t.Helper()
	opts := []kgo.Opt{kgo.SeedBrokers(addrs...), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(100 * time.Millisecond)}
	if committed {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var c consumed
	deadline := time.Now().Add(20 * time.Second)
	quietUntil := time.Time{}
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		fs := cl.PollFetches(ctx)
		cancel()
		for _, e := range fs.Errors() {
			if !errors.Is(e.Err, context.DeadlineExceeded) {
				t.Fatalf("consuming %s: %v", topic, e.Err)
			}
		}
		n := len(c.recs)
		c.recs = append(c.recs, fs.Records()...)
		switch {
		case len(c.recs) < want:
			if time.Now().After(deadline) {
				t.Fatalf("read %d records of %s, want %d:\n%s", len(c.recs), topic, want, c)
			}
		case len(c.recs) > n || quietUntil.IsZero():
			quietUntil = time.Now().Add(400 * time.Millisecond)
		case time.Now().After(quietUntil):
			return c
		}
	}
}

// String prints one record a line: tick time, key and value.
func (c consumed) String() string {
	var sb strings.Builder
	for _, r := range c.recs {
		fmt.Fprintf(&sb, "%s %s -> %s\n", header(r), nullStr(r.Key), nullStr(r.Value))
	}
	return sb.String()
}

func header(r *kgo.Record) string {
	for _, h := range r.Headers {
		if h.Key == timestampHeader {
			return string(h.Value)
		}
	}
	return "?"
}

func nullStr(b []byte) string {
	if b == nil {
		return "null"
	}
	return string(b)
}

// byTick groups records by their tick header, each group sorted.
func (c consumed) byTick() map[uint64][]string {
	out := map[uint64][]string{}
	for _, r := range c.recs {
		ts, _ := strconv.ParseUint(header(r), 10, 64)
		out[ts] = append(out[ts], nullStr(r.Key)+" -> "+nullStr(r.Value))
	}
	for _, v := range out {
		slices.Sort(v)
	}
	return out
}

// upsertState applies the records as an upsert consumer does.
func (c consumed) upsertState() map[string]string {
	st := map[string]string{}
	for _, r := range c.recs {
		if r.Value == nil {
			delete(st, string(r.Key))
		} else {
			st[string(r.Key)] = string(r.Value)
		}
	}
	return st
}

// expectedTicks encodes each tick of the script's history after
// `after` as the sink should (a snapshot tick first when given).
func expectedTicks(t *testing.T, cfg Config, ticks []sinks.Tick) map[uint64][]string {
	t.Helper()
	s := mustSink(t, cfg)
	env := newEnvelope(&s.cfg)
	out := map[uint64][]string{}
	for _, tk := range ticks {
		b := &recordBatch{topic: cfg.Topic}
		b.startTick(tk.Time)
		env.appendChanges(b, tk.Changes)
		for _, r := range b.records() {
			out[tk.Time] = append(out[tk.Time], nullStr(r.Key)+" -> "+nullStr(r.Value))
		}
		slices.Sort(out[tk.Time])
	}
	return out
}

// wantState is the upsert state the script's contents should leave.
func wantState(t *testing.T, cfg Config, contents []sinks.Change) map[string]string {
	t.Helper()
	s := mustSink(t, cfg)
	enc := newEncoder(&s.cfg)
	st := map[string]string{}
	for _, c := range contents {
		k, _ := enc.appendKey(nil, c.Row)
		v, _ := enc.appendRow(nil, c.Row)
		st[string(k)] = string(v)
	}
	return st
}

// waitStatus waits for a status after the first n.
func waitStatus(t *testing.T, sc *sinkstest.Script, n int, st sinks.State) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	reason, n, err := sc.WaitStatus(ctx, n, st)
	if err != nil {
		t.Fatal(err)
	}
	return reason, n
}

// debeziumRows is the multiset of rows a consumer of DEBEZIUM records
// holds: after-images counted up, before-images down.
func (c consumed) debeziumRows(t *testing.T) map[string]int64 {
	t.Helper()
	st := newTopicState()
	env := &envelope{kind: EnvelopeDebezium}
	for _, r := range c.recs {
		if err := st.apply(env, r); err != nil {
			t.Fatal(err)
		}
	}
	for k, n := range st.rows {
		if n == 0 {
			delete(st.rows, k)
		}
	}
	return st.rows
}

// debeziumRows is the multiset of a relation's rows as JSON objects.
func debeziumRows(t *testing.T, cfg Config, contents []sinks.Change) map[string]int64 {
	t.Helper()
	enc := newEncoder(&mustSink(t, cfg).cfg)
	out := map[string]int64{}
	for _, c := range contents {
		out[string(enc.appendObject(nil, c.Row))] += c.Diff
	}
	return out
}
