package kafka

import (
	"log/slog"
	"time"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
	"github.com/twmb/franz-go/pkg/kgo"
)

// source is a Kafka topic read as one output collection.
type source struct {
	cfg    Config
	output sources.Output
	log    *slog.Logger
}

var _ sources.Source = (*source)(nil)

// New validates cfg and returns the source it describes. Errors carry the
// SQLSTATE the CREATE SOURCE statement should fail with: 42601 for missing
// or contradictory clauses, 22023 for bad option values, 0A000 for
// combinations streamdb does not support.
func New(cfg Config) (sources.Source, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Topic == "" {
		return nil, pgerr.New(pgerr.SyntaxError, "kafka source requires a TOPIC")
	}
	for _, off := range cfg.StartOffsets {
		if off < 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "START OFFSET must be a nonnegative integer, not %d", off)
		}
	}
	switch {
	case cfg.StartTimestamp < -1:
		return nil, pgerr.New(pgerr.InvalidParameterValue, "START TIMESTAMP must be a nonnegative number of milliseconds, not %d", cfg.StartTimestamp).
			WithHint("Resolve a relative START TIMESTAMP against the current time before creating the source.")
	case cfg.StartTimestamp >= 0 && len(cfg.StartOffsets) > 0:
		return nil, pgerr.New(pgerr.SyntaxError, "cannot specify START TIMESTAMP and START OFFSET at the same time")
	}
	if cfg.DeadLetterTopic == cfg.Topic {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "the dead letter topic must differ from the source topic %q", cfg.Topic)
	}
	if cfg.MaxBatchRecords < 0 || cfg.MaxBatchBytes < 0 || cfg.MetadataInterval < 0 {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "batch limits and the metadata interval must not be negative")
	}
	if cfg.MaxBatchRecords == 0 {
		cfg.MaxBatchRecords = DefaultMaxBatchRecords
	}
	if cfg.MaxBatchBytes == 0 {
		cfg.MaxBatchBytes = DefaultMaxBatchBytes
	}
	if cfg.MetadataInterval == 0 {
		cfg.MetadataInterval = DefaultMetadataInterval
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	l, err := buildLayout(&cfg)
	if err != nil {
		return nil, err
	}
	return &source{
		cfg:    cfg,
		output: sources.Output{Name: cfg.Topic, Columns: l.columns, Key: l.key},
		log:    log.With("source_kind", "kafka", "topic", cfg.Topic),
	}, nil
}

// Outputs returns the one collection a Kafka source produces, named after
// its topic.
func (s *source) Outputs() []sources.Output { return []sources.Output{s.output} }

// clientOpts are the franz-go options shared by every client of the
// source.
func (s *source) clientOpts() []kgo.Opt {
	return append(s.cfg.ClientOpts(s.log),
		kgo.MetadataMinAge(s.cfg.MetadataInterval/4),
		kgo.RecordDeliveryTimeout(deadLetterTimeout),
		// Kafka's own default (fetch.max.wait.ms); franz-go's 5 s would
		// delay partitions added while a fetch is waiting.
		kgo.FetchMaxWait(500*time.Millisecond),
	)
}
