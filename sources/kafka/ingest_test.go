package kafka

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/kafkaconn"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
	"github.com/twmb/franz-go/pkg/kgo"
)

var rewrite = flag.Bool("rewrite", false, "rewrite golden files in testdata")

// ingestCase is one source configuration and the records it reads from a
// single-partition topic; its output is checked against
// testdata/ingest.golden.
type ingestCase struct {
	name    string
	cfg     func(*Config)
	records []*kgo.Record
}

func hdr(k, v string) kgo.RecordHeader { return kgo.RecordHeader{Key: k, Value: []byte(v)} }

func ingestCases() []ingestCase {
	return []ingestCase{
		{"json", func(c *Config) {}, []*kgo.Record{
			rec(0, nil, b(`{"b": 2, "a": [1, {"y": null, "x": 1.50}]}`)),
			rec(0, nil, b(`"just a string"`)),
			rec(0, nil, b(`{"broken": `)),
			rec(0, nil, nil),
			rec(0, nil, b("{\"bad utf8\": \"\xff\"}")),
			rec(0, nil, b(`{"after": "bad ones"}`)),
		}},
		{"json columns", func(c *Config) {
			c.Columns = []sources.Column{col("id", types.TypeInt4), col("ts", types.TypeTimestampTZ),
				col("price", types.Type{Family: types.Numeric, Mod: types.NumericMod(5, 2)}), col("tags", types.ArrayOf(types.TypeText)),
				col("extra", types.TypeUnknown)}
		}, []*kgo.Record{
			rec(0, nil, b(`{"id": 1, "ts": "2024-05-01T12:00:00+02:00", "price": 9.999, "tags": ["a", "b"], "extra": {"k": [1]}}`)),
			rec(0, nil, b(`{"id": "two"}`)),
			rec(0, nil, b(`{"id": 3, "ts": "not a time"}`)),
			rec(0, nil, b(`{"id": 4, "price": 1000}`)),
			rec(0, nil, b(`{"id": 5, "unknown": true}`)),
			rec(0, nil, b(`[5]`)),
		}},
		{"text with metadata", func(c *Config) {
			c.KeyFormat, c.ValueFormat = textF, textF
			c.Include = []IncludeOpt{{Kind: IncludeKey}, {Kind: IncludePartition, Alias: "p"}, {Kind: IncludeOffset, Alias: "o"},
				{Kind: IncludeTimestamp, Alias: "ts"}, {Kind: IncludeHeaders}, {Kind: IncludeHeader, Header: "trace", Alias: "trace"},
				{Kind: IncludeHeader, Header: "raw", Alias: "raw", Bytes: true}}
		}, []*kgo.Record{
			rec(0, b("k1"), b("hello"), hdr("trace", "t-1"), hdr("raw", "\x00\x01")),
			rec(0, nil, b("no key"), hdr("trace", "first"), hdr("trace", "last"), kgo.RecordHeader{Key: "nil"}),
			rec(0, b("k3"), b("bad \xfe text")),
			rec(0, b("k4"), b("bad header"), hdr("trace", "\xff")),
			rec(0, b("k5"), b("")),
		}},
		{"bytes", func(c *Config) { c.ValueFormat = bytesF }, []*kgo.Record{
			rec(0, nil, b("\x00\x01\xff")),
			rec(0, nil, b("")),
		}},
		{"csv", func(c *Config) {
			c.ValueFormat = Format{Kind: FormatCSV, CSVColumns: 3, CSVDelimiter: ';'}
			c.Columns = []sources.Column{col("id", types.TypeInt8), col("name", types.TypeUnknown), col("day", types.TypeDate)}
		}, []*kgo.Record{
			rec(0, nil, b("1;alice;2024-01-31\n")),
			rec(0, nil, b(`2;"semi;colon ""quoted""";2024-02-01`)),
			rec(0, nil, b("3;too;many;fields")),
			rec(0, nil, b("x;bad id;2024-01-01")),
			rec(0, nil, b("4;bob;2024-02-30")),
		}},
		{"upsert", func(c *Config) {
			c.Envelope, c.KeyFormat, c.ValueFormat = EnvelopeUpsert, textF, jsonF
			c.Include = []IncludeOpt{{Kind: IncludeOffset}}
		}, []*kgo.Record{
			rec(0, b("a"), b(`{"v": 1}`)),
			rec(0, b("b"), b(`{"v": 2}`)),
			rec(0, b("a"), b(`{"v": 3}`)),
			rec(0, b("b"), nil),
			rec(0, nil, b(`{"v": 4}`)),
			rec(0, b("c"), b(`{"v": `)),
		}},
		{"upsert typed key", func(c *Config) {
			c.Envelope, c.KeyFormat, c.ValueFormat = EnvelopeUpsert, jsonF, textF
			c.KeyColumns = []sources.Column{col("tenant", types.TypeText), col("id", types.TypeInt4)}
		}, []*kgo.Record{
			rec(0, b(`{"tenant": "x", "id": 1}`), b("one")),
			rec(0, b(`{"id": 1, "tenant": "x"}`), nil),
			rec(0, b(`{"tenant": "x", "id": "bad"}`), b("bad key")),
		}},
		{"debezium", func(c *Config) {
			c.Envelope, c.KeyFormat = EnvelopeDebezium, jsonF
			c.Columns = []sources.Column{col("id", types.TypeInt4), col("name", types.TypeText)}
			c.KeyColumns = []sources.Column{col("id", types.TypeUnknown)}
		}, []*kgo.Record{
			rec(0, b(`{"id": 1}`), b(`{"before": null, "after": {"id": 1, "name": "a"}, "op": "c"}`)),
			rec(0, b(`{"schema": {"type": "struct"}, "payload": {"id": 2}}`),
				b(`{"schema": {"type": "struct"}, "payload": {"before": null, "after": {"id": 2, "name": "b"}, "op": "r"}}`)),
			rec(0, b(`{"id": 1}`), b(`{"before": {"id": 1, "name": "a"}, "after": {"id": 1, "name": "a2"}, "op": "u"}`)),
			rec(0, b(`{"id": 2}`), b(`{"before": {"id": 2, "name": "b"}, "after": null, "op": "d"}`)),
			rec(0, b(`{"id": 2}`), nil),
			rec(0, b(`{"id": 3}`), b(`{"op": "t"}`)),
			rec(0, b(`{"id": 4}`), b(`{"op": "c", "after": {"id": 4, "name": 5}}`)),
		}},
		{"debezium jsonb", func(c *Config) {
			c.Envelope, c.KeyFormat = EnvelopeDebezium, jsonF
		}, []*kgo.Record{
			rec(0, b(`{"id": 1}`), b(`{"after": {"name": "a", "id": 1}, "op": "c"}`)),
			rec(0, b(`{"id": 1}`), b(`{"op": "d"}`)),
		}},
	}
}

func TestIngestGolden(t *testing.T) {
	cluster := newCluster(t, 1)
	addrs := cluster.ListenAddrs()
	p := newProducer(t, addrs)
	var out strings.Builder
	for i, tc := range ingestCases() {
		topic := fmt.Sprintf("ingest-%d", i)
		createTopic(t, p, topic, 1)
		for j, r := range tc.records {
			r.Timestamp = time.UnixMilli(1700000000000 + int64(j)).UTC()
		}
		produce(t, p, topic, tc.records...)

		cfg := Config{Connection: kafkaconn.Connection{Brokers: addrs}, Topic: topic, ValueFormat: jsonF}
		tc.cfg(&cfg)
		src := mustNew(t, cfg)
		sink, cancel := start(t, src, nil)
		sink.waitFor(t, 20*time.Second, "all records", func() bool {
			return sink.progress["0"] == int64(len(tc.records))
		})
		cancel()

		fmt.Fprintf(&out, "== %s\n%s\n", tc.name, describe(src.Outputs()[0]))
		sink.mu.Lock()
		for _, c := range sink.changes {
			fmt.Fprintln(&out, c)
		}
		for _, d := range sink.dead {
			fmt.Fprintf(&out, "dead letter %s/%d key=%q value=%q: %s\n", d.Partition, d.Offset, d.Key, d.Value, d.Err)
		}
		sink.mu.Unlock()
	}
	golden(t, "ingest.golden", out.String())
}

// golden compares got with testdata/name, rewriting it under -rewrite.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *rewrite {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -rewrite to create it)", err)
	}
	if got != string(want) {
		t.Fatalf("output differs from %s (run with -rewrite and review the diff):\n%s", path, got)
	}
}
