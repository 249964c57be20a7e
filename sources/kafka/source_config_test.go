package kafka

import (
	"crypto/tls"
	"fmt"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/kafkaconn"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

func baseConfig() Config {
	return Config{Connection: kafkaconn.Connection{Brokers: []string{"127.0.0.1:9092"}}, Topic: "t", ValueFormat: Format{Kind: FormatJSON}, StartTimestamp: -1}
}

var (
	jsonF  = Format{Kind: FormatJSON}
	textF  = Format{Kind: FormatText}
	bytesF = Format{Kind: FormatBytes}
)

func col(name string, t types.Type) sources.Column { return sources.Column{Name: name, Type: t} }

func TestNewRejects(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(*Config)
		code   pgerr.Code
		substr string
	}{
		{"no brokers", func(c *Config) { c.Brokers = nil }, pgerr.SyntaxError, "BROKER"},
		{"bad broker", func(c *Config) { c.Brokers = []string{"a:1,b:2"} }, pgerr.InvalidParameterValue, "broker"},
		{"no topic", func(c *Config) { c.Topic = "" }, pgerr.SyntaxError, "TOPIC"},
		{"no format", func(c *Config) { c.ValueFormat = Format{} }, pgerr.SyntaxError, "FORMAT"},
		{"upsert without key", func(c *Config) { c.Envelope = EnvelopeUpsert }, pgerr.SyntaxError, "ENVELOPE UPSERT requires that KEY FORMAT be specified"},
		{"debezium without key", func(c *Config) { c.Envelope = EnvelopeDebezium }, pgerr.SyntaxError, "KEY FORMAT"},
		{"debezium text", func(c *Config) { c.Envelope, c.KeyFormat, c.ValueFormat = EnvelopeDebezium, textF, textF }, pgerr.FeatureNotSupported, "VALUE FORMAT JSON"},
		{"include key without key format", func(c *Config) { c.Include = []IncludeOpt{{Kind: IncludeKey}} }, pgerr.SyntaxError, "INCLUDE KEY"},
		{"include key twice", func(c *Config) {
			c.KeyFormat = textF
			c.Include = []IncludeOpt{{Kind: IncludeKey}, {Kind: IncludeKey, Alias: "k2"}}
		}, pgerr.SyntaxError, "more than once"},
		{"csv key", func(c *Config) { c.KeyFormat = Format{Kind: FormatCSV, CSVColumns: 1}; c.Envelope = EnvelopeUpsert }, pgerr.FeatureNotSupported, "KEY FORMAT CSV"},
		{"csv zero columns", func(c *Config) { c.ValueFormat = Format{Kind: FormatCSV} }, pgerr.InvalidParameterValue, "positive"},
		{"csv quote delimiter", func(c *Config) { c.ValueFormat = Format{Kind: FormatCSV, CSVColumns: 2, CSVDelimiter: '"'} }, pgerr.InvalidParameterValue, "delimiter"},
		{"text two columns", func(c *Config) {
			c.ValueFormat = textF
			c.Columns = []sources.Column{col("a", types.TypeText), col("b", types.TypeText)}
		}, pgerr.SyntaxError, "produces 1 columns"},
		{"bytes as int", func(c *Config) {
			c.ValueFormat = bytesF
			c.Columns = []sources.Column{col("a", types.TypeInt4)}
		}, pgerr.DatatypeMismatch, "bytea"},
		{"key columns with text key", func(c *Config) {
			c.KeyFormat = textF
			c.KeyColumns = []sources.Column{col("id", types.TypeInt4)}
		}, pgerr.SyntaxError, "KEY FORMAT JSON"},
		{"key columns without key format", func(c *Config) { c.KeyColumns = []sources.Column{col("id", types.TypeInt4)} }, pgerr.SyntaxError, "KEY FORMAT JSON"},
		{"duplicate column", func(c *Config) { c.Include = []IncludeOpt{{Kind: IncludeOffset, Alias: "data"}} }, pgerr.DuplicateColumn, `column "data" specified more than once`},
		{"upsert key clashes with value", func(c *Config) {
			c.Envelope, c.KeyFormat = EnvelopeUpsert, jsonF
			c.Columns = []sources.Column{col("key", types.TypeInt4)}
		}, pgerr.DuplicateColumn, `"key"`},
		{"header without alias", func(c *Config) { c.Include = []IncludeOpt{{Kind: IncludeHeader, Header: "h"}} }, pgerr.SyntaxError, "AS name"},
		{"header without key", func(c *Config) { c.Include = []IncludeOpt{{Kind: IncludeHeader, Alias: "h"}} }, pgerr.SyntaxError, "header key"},
		{"negative start offset", func(c *Config) { c.StartOffsets = []int64{0, -1} }, pgerr.InvalidParameterValue, "START OFFSET"},
		{"offset and timestamp", func(c *Config) { c.StartOffsets, c.StartTimestamp = []int64{1}, 5 }, pgerr.SyntaxError, "START TIMESTAMP and START OFFSET"},
		{"relative timestamp", func(c *Config) { c.StartTimestamp = -1000 }, pgerr.InvalidParameterValue, "START TIMESTAMP"},
		{"dead letter topic is the topic", func(c *Config) { c.DeadLetterTopic = "t" }, pgerr.InvalidParameterValue, "dead letter"},
		{"negative batch", func(c *Config) { c.MaxBatchRecords = -1 }, pgerr.InvalidParameterValue, "negative"},
		{"unknown sasl", func(c *Config) { c.SASL = kafkaconn.SASL{Mechanism: "GSSAPI", User: "u"} }, pgerr.InvalidParameterValue, "SASL MECHANISMS"},
		{"sasl without user", func(c *Config) { c.SASL = kafkaconn.SASL{Mechanism: "PLAIN"} }, pgerr.InvalidParameterValue, "USERNAME"},
		{"sasl protocol without mechanism", func(c *Config) { c.SecurityProtocol = "SASL_SSL" }, pgerr.InvalidParameterValue, "requires SASL MECHANISMS"},
		{"mechanism with plaintext", func(c *Config) {
			c.SASL = kafkaconn.SASL{Mechanism: "PLAIN", User: "u"}
			c.SecurityProtocol = "PLAINTEXT"
		}, pgerr.InvalidParameterValue, "SASL_PLAINTEXT"},
		{"tls with plaintext", func(c *Config) { c.TLS, c.SecurityProtocol = &tls.Config{}, "plaintext" }, pgerr.InvalidParameterValue, "TLS"},
		{"unknown protocol", func(c *Config) { c.SecurityProtocol = "QUIC" }, pgerr.InvalidParameterValue, "SECURITY PROTOCOL"},
		{"key alias with key columns", func(c *Config) {
			c.KeyFormat = jsonF
			c.KeyColumns = []sources.Column{col("id", types.TypeInt4)}
			c.Include = []IncludeOpt{{Kind: IncludeKey, Alias: "k"}}
		}, pgerr.SyntaxError, "INCLUDE KEY AS"},
		{"debezium key type mismatch", func(c *Config) {
			c.Envelope, c.KeyFormat = EnvelopeDebezium, jsonF
			c.Columns = []sources.Column{col("id", types.TypeInt4)}
			c.KeyColumns = []sources.Column{col("id", types.TypeText)}
		}, pgerr.DatatypeMismatch, "key column"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := baseConfig()
			tc.edit(&cfg)
			_, err := New(cfg)
			e := pgerr.As(err)
			if e == nil {
				t.Fatalf("New succeeded or returned a non-pgerr error: %v", err)
			}
			if e.Code != tc.code || !strings.Contains(e.Message, tc.substr) {
				t.Fatalf("got %s %q, want %s containing %q", e.Code, e.Message, tc.code, tc.substr)
			}
		})
	}
}

// describe renders an output as "name type [not null], … key=[…]".
func describe(o sources.Output) string {
	var parts []string
	for _, c := range o.Columns {
		s := c.Name + " " + c.Type.String()
		if c.NotNull {
			s += " not null"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ") + fmt.Sprintf(" key=%v", o.Key)
}

func TestOutputs(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"json", func(c *Config) {}, "data jsonb key=[]"},
		{"text", func(c *Config) { c.ValueFormat = textF }, "text text key=[]"},
		{"bytes", func(c *Config) { c.ValueFormat = bytesF }, "data bytea key=[]"},
		{"csv", func(c *Config) { c.ValueFormat = Format{Kind: FormatCSV, CSVColumns: 3} }, "column1 text, column2 text, column3 text key=[]"},
		{"csv renamed and typed", func(c *Config) {
			c.ValueFormat = Format{Kind: FormatCSV, CSVColumns: 2}
			c.Columns = []sources.Column{col("id", types.TypeInt4), col("name", types.TypeUnknown)}
		}, "id integer, name text key=[]"},
		{"json columns", func(c *Config) {
			c.Columns = []sources.Column{col("id", types.TypeInt8), {Name: "ts", Type: types.TypeTimestamp, NotNull: true}, col("extra", types.TypeUnknown)}
		}, "id bigint, ts timestamp without time zone not null, extra jsonb key=[]"},
		{"include everything", func(c *Config) {
			c.KeyFormat = textF
			c.Include = []IncludeOpt{{Kind: IncludeTimestamp}, {Kind: IncludeHeaders, Alias: "h"}, {Kind: IncludeKey, Alias: "k"},
				{Kind: IncludePartition}, {Kind: IncludeOffset, Alias: "o"}, {Kind: IncludeHeader, Header: "trace", Alias: "trace"},
				{Kind: IncludeHeader, Header: "raw", Alias: "raw", Bytes: true}}
		}, "k text, data jsonb, timestamp timestamp without time zone not null, h jsonb not null, partition integer not null, o bigint not null, trace text, raw bytea key=[]"},
		{"upsert", func(c *Config) { c.Envelope, c.KeyFormat, c.ValueFormat = EnvelopeUpsert, textF, textF }, "key text not null, text text key=[0]"},
		{"upsert renamed key", func(c *Config) {
			c.Envelope, c.KeyFormat = EnvelopeUpsert, bytesF
			c.Include = []IncludeOpt{{Kind: IncludeKey, Alias: "id"}}
		}, "id bytea not null, data jsonb key=[0]"},
		{"upsert typed key", func(c *Config) {
			c.Envelope, c.KeyFormat = EnvelopeUpsert, jsonF
			c.KeyColumns = []sources.Column{col("tenant", types.TypeText), col("id", types.TypeInt4)}
		}, "tenant text, id integer, data jsonb key=[0 1]"},
		{"debezium jsonb", func(c *Config) { c.Envelope, c.KeyFormat = EnvelopeDebezium, jsonF }, "key jsonb not null, data jsonb key=[0]"},
		{"debezium merged key", func(c *Config) {
			c.Envelope, c.KeyFormat = EnvelopeDebezium, jsonF
			c.Columns = []sources.Column{col("name", types.TypeText), col("id", types.TypeInt4)}
			c.KeyColumns = []sources.Column{col("id", types.TypeUnknown)}
		}, "name text, id integer key=[1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := baseConfig()
			tc.edit(&cfg)
			src, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(src.Outputs()[0]); got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}
