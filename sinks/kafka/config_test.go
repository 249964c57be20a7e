package kafka

import (
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/kafkaconn"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sinks"
	"github.com/streamdb/streamdb/types"
)

func TestNewRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
		code pgerr.Code
		want string
	}{
		{"no broker", func(c *Config) { c.Brokers = nil }, pgerr.SyntaxError, "BROKER"},
		{"no topic", func(c *Config) { c.Topic = "" }, pgerr.SyntaxError, "TOPIC"},
		{"no id", func(c *Config) { c.ID = "" }, pgerr.InvalidParameterValue, "id"},
		{"topic is the progress topic", func(c *Config) { c.ProgressTopic = c.Topic }, pgerr.InvalidParameterValue, "progress topic"},
		{"negative partitions", func(c *Config) { c.TopicPartitions = -1 }, pgerr.InvalidParameterValue, "PARTITION COUNT"},
		{"negative replication", func(c *Config) { c.TopicReplicationFactor = -2 }, pgerr.InvalidParameterValue, "REPLICATION FACTOR"},
		{"no columns", func(c *Config) { c.Columns, c.Key = nil, nil }, pgerr.FeatureNotSupported, "without columns"},
		{"key out of range", func(c *Config) { c.Key = []int{3} }, pgerr.InvalidParameterValue, "out of range"},
		{"key twice", func(c *Config) { c.Key = []int{0, 0} }, pgerr.DuplicateColumn, `"id" appears twice in KEY`},
		{"upsert without key", func(c *Config) { c.Key = nil }, pgerr.SyntaxError, "requires a KEY"},
		{"no envelope", func(c *Config) { c.Envelope = 0 }, pgerr.SyntaxError, "ENVELOPE"},
		{"no format", func(c *Config) { c.ValueFormat = 0 }, pgerr.SyntaxError, "FORMAT"},
		{"text key of two columns", func(c *Config) { c.KeyFormat, c.Key = FormatText, []int{0, 1} }, pgerr.FeatureNotSupported, "single key column"},
		{"text value of three columns", func(c *Config) { c.ValueFormat = FormatText }, pgerr.FeatureNotSupported, "single column"},
		{"debezium text", func(c *Config) {
			c.Envelope, c.ValueFormat, c.Columns, c.Key = EnvelopeDebezium, FormatText, c.Columns[:1], nil
		}, pgerr.FeatureNotSupported, "DEBEZIUM requires VALUE FORMAT JSON"},
		{"duplicate column names", func(c *Config) {
			c.Columns = append(c.Columns[:2:2], sinks.Column{Name: "id", Type: types.TypeInt8})
		}, pgerr.DuplicateColumn, `"id" appears twice`},
		{"negative timeout", func(c *Config) { c.Timeout = -1 }, pgerr.InvalidParameterValue, "negative"},
		{"timeout too short", func(c *Config) { c.Timeout = 500 * time.Millisecond }, pgerr.InvalidParameterValue, "at least a second"},
		{"transaction timeout too short", func(c *Config) { c.TransactionTimeout = 2 * c.Timeout }, pgerr.InvalidParameterValue, "transaction timeout"},
		{"bad sasl", func(c *Config) { c.SASL = kafkaconn.SASL{Mechanism: "GSSAPI", User: "u"} }, pgerr.InvalidParameterValue, "SASL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig([]string{"127.0.0.1:9092"}, "accounts")
			tc.edit(&cfg)
			_, err := New(cfg)
			if pgerr.CodeOf(err) != tc.code || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v (%s), want %s containing %q", err, pgerr.CodeOf(err), tc.code, tc.want)
			}
		})
	}
	cfg := testConfig([]string{"127.0.0.1:9092"}, "accounts")
	cfg.ValueFormat, cfg.KeyFormat = FormatJSON, 0
	cfg.Timeout, cfg.MaxBackoff = 0, 0
	s, err := newSink(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.cfg.KeyFormat != FormatJSON || s.cfg.ProgressTopic != DefaultProgressTopic || s.cfg.TransactionTimeout != DefaultTransactionTimeout ||
		s.cfg.Timeout != DefaultTimeout || s.cfg.MaxBackoff != DefaultMaxBackoff {
		t.Fatalf("defaults not filled in: %+v", s.cfg)
	}
}
