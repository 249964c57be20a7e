package kafka

import (
	"log/slog"

	"github.com/streamdb/streamdb/sinks"
)

// sink is a Kafka sink: one relation written to one topic.
type sink struct {
	cfg Config
	log *slog.Logger
	// hooks are test seams; nil in production.
	hooks *testHooks
}

// testHooks let tests stop a sink at the worst moments.
type testHooks struct {
	// beforeCommit runs after a transaction's records are flushed and
	// before it is committed.
	beforeCommit func()
	// afterCommit runs after the ticks up to time t are committed.
	afterCommit func(t uint64)
}

var _ sinks.Sink = (*sink)(nil)

// New validates cfg and returns the sink it describes. Errors carry the
// SQLSTATE the CREATE SINK statement should fail with: 42601 for missing
// clauses, 22023 for bad option values, 42701 for duplicate column names
// under FORMAT JSON, 0A000 for combinations streamdb does not support.
func New(cfg Config) (sinks.Sink, error) {
	return newSink(cfg)
}

func newSink(cfg Config) (*sink, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &sink{cfg: cfg, log: log.With("sink_kind", "kafka", "sink_id", cfg.ID, "topic", cfg.Topic)}, nil
}
