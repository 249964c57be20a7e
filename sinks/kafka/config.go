package kafka

import (
	"cmp"
	"log/slog"
	"time"

	"github.com/streamdb/streamdb/internal/kafkaconn"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sinks"
)

// Config describes one Kafka sink. The engine builds it from CREATE SINK
// … INTO KAFKA CONNECTION; New validates it.
type Config struct {
	// Connection is where the brokers are and how to authenticate, as
	// for Kafka sources.
	kafkaconn.Connection

	// ID identifies the sink for its whole life (the catalog id): it
	// names the transactional id and keys the progress records, so a
	// restarted sink finds its progress and fences its predecessor.
	ID string
	// Topic is the data topic. It is created when missing, with
	// TopicPartitions partitions and TopicReplicationFactor replicas;
	// zero means the broker's default.
	Topic                  string
	TopicPartitions        int32
	TopicReplicationFactor int16
	// ProgressTopic holds the progress records of every sink on the
	// connection (CREATE CONNECTION's PROGRESS TOPIC); empty means
	// DefaultProgressTopic. It is created when missing: one partition,
	// compacted, no retention.
	ProgressTopic string

	// Columns are the columns of the relation the sink exports.
	Columns []sinks.Column
	// Key lists the KEY columns (indexes into Columns); empty means no
	// KEY. Whether the key is unique is the engine's check at CREATE
	// SINK (sinks.CheckUniqueKey) unless it is NOT ENFORCED; at run time
	// every sink writes duplicates as Materialize does (see doc.go).
	Key []int
	// KeyFormat and ValueFormat encode record keys and values; FORMAT f
	// sets both.
	KeyFormat   Format
	ValueFormat Format
	// Envelope is how changes become records.
	Envelope Envelope
	// Snapshot is WITH (SNAPSHOT = …): on the sink's first start, write
	// the relation's contents before its changes.
	Snapshot bool

	// Timeout bounds each exchange with the brokers (connecting, a
	// transaction's delivery, its commit); past it the sink reports
	// itself stalled and starts over. Zero means DefaultTimeout.
	Timeout time.Duration
	// TransactionTimeout is the brokers' bound on one transaction
	// (transaction.timeout.ms): a sink that died mid-transaction
	// holds back read_committed consumers at most this long unless it
	// restarts sooner. Zero means DefaultTransactionTimeout.
	TransactionTimeout time.Duration
	// MaxTransactionRecords stops gathering waiting ticks into one
	// transaction once it holds this many records (a single tick is
	// never split). Zero means DefaultMaxTransactionRecords.
	MaxTransactionRecords int
	// ProgressInterval is how often a tick without changes is
	// committed (its progress record alone), so that a restart resumes
	// from recent history. Zero means DefaultProgressInterval.
	ProgressInterval time.Duration
	// MaxBackoff bounds the wait between retries; zero means
	// DefaultMaxBackoff.
	MaxBackoff time.Duration
	// Logger receives the sink's logs; nil discards them.
	Logger *slog.Logger
}

// Defaults for Config's zero values.
const (
	DefaultProgressTopic         = "_streamdb-progress"
	DefaultTimeout               = 20 * time.Second
	DefaultTransactionTimeout    = 60 * time.Second
	DefaultMaxTransactionRecords = 100_000
	DefaultProgressInterval      = time.Second
	DefaultMaxBackoff            = 5 * time.Second
)

// Format is how a record key or value is encoded.
type Format uint8

// Formats. The zero Format is unset.
const (
	// FormatJSON encodes a JSON object with a member per column, named
	// after it, in column order.
	FormatJSON Format = iota + 1
	// FormatText encodes the one column's PostgreSQL text output.
	FormatText
)

func (f Format) String() string {
	switch f {
	case FormatJSON:
		return "JSON"
	case FormatText:
		return "TEXT"
	}
	return "unset"
}

// Envelope is how a relation's changes become records.
type Envelope uint8

// Envelopes. The zero Envelope is unset.
const (
	// EnvelopeUpsert writes the new row for each changed key, and a
	// tombstone (null value) for a deleted one.
	EnvelopeUpsert Envelope = iota + 1
	// EnvelopeDebezium writes {"before": old, "after": new} per change.
	EnvelopeDebezium
)

func (e Envelope) String() string {
	switch e {
	case EnvelopeUpsert:
		return "UPSERT"
	case EnvelopeDebezium:
		return "DEBEZIUM"
	}
	return "unset"
}

// validate checks cfg and fills in its defaults. Errors carry the
// SQLSTATE CREATE SINK should fail with.
func (cfg *Config) validate() error {
	if err := cfg.Connection.Validate(); err != nil {
		return err
	}
	if cfg.ID == "" {
		return pgerr.New(pgerr.InvalidParameterValue, "kafka sink requires an id")
	}
	if cfg.Topic == "" {
		return pgerr.New(pgerr.SyntaxError, "kafka sink requires a TOPIC")
	}
	if cfg.ProgressTopic == "" {
		cfg.ProgressTopic = DefaultProgressTopic
	}
	if cfg.ProgressTopic == cfg.Topic {
		return pgerr.New(pgerr.InvalidParameterValue, "the sink's topic %q is the connection's progress topic", cfg.Topic)
	}
	if cfg.TopicPartitions < 0 {
		return pgerr.New(pgerr.InvalidParameterValue, "TOPIC PARTITION COUNT must be positive, not %d", cfg.TopicPartitions)
	}
	if cfg.TopicReplicationFactor < 0 {
		return pgerr.New(pgerr.InvalidParameterValue, "TOPIC REPLICATION FACTOR must be positive, not %d", cfg.TopicReplicationFactor)
	}
	if len(cfg.Columns) == 0 {
		return pgerr.New(pgerr.FeatureNotSupported, "a sink from a relation without columns is not supported")
	}
	if err := cfg.validateKey(); err != nil {
		return err
	}
	if err := cfg.validateFormats(); err != nil {
		return err
	}
	if cfg.Timeout < 0 || cfg.TransactionTimeout < 0 || cfg.MaxTransactionRecords < 0 || cfg.ProgressInterval < 0 || cfg.MaxBackoff < 0 {
		return pgerr.New(pgerr.InvalidParameterValue, "sink timeouts and limits must not be negative")
	}
	cfg.Timeout = cmp.Or(cfg.Timeout, DefaultTimeout)
	cfg.TransactionTimeout = cmp.Or(cfg.TransactionTimeout, DefaultTransactionTimeout)
	cfg.MaxTransactionRecords = cmp.Or(cfg.MaxTransactionRecords, DefaultMaxTransactionRecords)
	cfg.ProgressInterval = cmp.Or(cfg.ProgressInterval, DefaultProgressInterval)
	cfg.MaxBackoff = cmp.Or(cfg.MaxBackoff, DefaultMaxBackoff)
	if cfg.Timeout < time.Second {
		// franz-go's shortest record delivery timeout.
		return pgerr.New(pgerr.InvalidParameterValue, "the timeout (%v) must be at least a second", cfg.Timeout)
	}
	if cfg.TransactionTimeout <= 2*cfg.Timeout {
		// A transaction takes up to a timeout to deliver and another to
		// commit; the broker must not abort it (and fence the sink)
		// before.
		return pgerr.New(pgerr.InvalidParameterValue, "the transaction timeout (%v) must exceed twice the timeout (%v)", cfg.TransactionTimeout, cfg.Timeout)
	}
	return nil
}

func (cfg *Config) validateKey() error {
	seen := make(map[int]bool, len(cfg.Key))
	for _, k := range cfg.Key {
		if k < 0 || k >= len(cfg.Columns) {
			return pgerr.New(pgerr.InvalidParameterValue, "KEY column %d is out of range", k)
		}
		if seen[k] {
			return pgerr.New(pgerr.DuplicateColumn, "column %q appears twice in KEY", cfg.Columns[k].Name)
		}
		seen[k] = true
	}
	switch cfg.Envelope {
	case EnvelopeUpsert:
		if len(cfg.Key) == 0 {
			return pgerr.New(pgerr.SyntaxError, "ENVELOPE UPSERT requires a KEY")
		}
	case EnvelopeDebezium:
	default:
		return pgerr.New(pgerr.SyntaxError, "kafka sink requires ENVELOPE UPSERT or ENVELOPE DEBEZIUM")
	}
	return nil
}

func (cfg *Config) validateFormats() error {
	if cfg.ValueFormat == 0 {
		return pgerr.New(pgerr.SyntaxError, "kafka sink requires a FORMAT")
	}
	if cfg.KeyFormat == 0 {
		cfg.KeyFormat = cfg.ValueFormat
	}
	for _, f := range []Format{cfg.KeyFormat, cfg.ValueFormat} {
		if f != FormatJSON && f != FormatText {
			return pgerr.New(pgerr.FeatureNotSupported, "FORMAT %s is not supported for kafka sinks", f)
		}
	}
	if cfg.KeyFormat == FormatText && len(cfg.Key) > 1 {
		return pgerr.New(pgerr.FeatureNotSupported, "KEY FORMAT TEXT requires a single key column, not %d", len(cfg.Key))
	}
	if cfg.ValueFormat == FormatText {
		if cfg.Envelope == EnvelopeDebezium {
			return pgerr.New(pgerr.FeatureNotSupported, "ENVELOPE DEBEZIUM requires VALUE FORMAT JSON")
		}
		if len(cfg.Columns) > 1 {
			return pgerr.New(pgerr.FeatureNotSupported, "VALUE FORMAT TEXT requires a relation with a single column, not %d", len(cfg.Columns)).
				WithHint("Use FORMAT JSON, or sink a view that selects one column.")
		}
	}
	if cfg.ValueFormat == FormatJSON || cfg.KeyFormat == FormatJSON && len(cfg.Key) > 0 {
		seen := make(map[string]bool, len(cfg.Columns))
		for _, c := range cfg.Columns {
			if seen[c.Name] {
				return pgerr.New(pgerr.DuplicateColumn, "column %q appears twice in the sink's relation", c.Name).
					WithHint("FORMAT JSON names object members after columns; give the columns distinct names.")
			}
			seen[c.Name] = true
		}
	}
	return nil
}
