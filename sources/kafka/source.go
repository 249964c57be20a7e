package kafka

import (
	"crypto/tls"
	"log/slog"
	"strings"
	"time"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
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
	if err := validateConnection(&cfg); err != nil {
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

// validateConnection checks brokers, SASL and TLS and settles
// SecurityProtocol.
func validateConnection(cfg *Config) error {
	if len(cfg.Brokers) == 0 {
		return pgerr.New(pgerr.SyntaxError, "kafka source requires at least one BROKER")
	}
	for _, b := range cfg.Brokers {
		if b == "" || strings.ContainsAny(b, " ,") {
			return pgerr.New(pgerr.InvalidParameterValue, "invalid broker address %q", b).WithHint("List each broker as host:port.")
		}
	}
	mech := strings.ToUpper(cfg.SASL.Mechanism)
	switch mech {
	case "", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512":
	default:
		return pgerr.New(pgerr.InvalidParameterValue, "invalid SASL MECHANISMS %q", cfg.SASL.Mechanism).
			WithHint("Supported mechanisms are PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512.")
	}
	cfg.SASL.Mechanism = mech
	if mech != "" && cfg.SASL.User == "" {
		return pgerr.New(pgerr.InvalidParameterValue, "SASL MECHANISMS %s requires SASL USERNAME", mech)
	}
	proto := strings.ToUpper(cfg.SecurityProtocol)
	if proto == "" {
		switch {
		case mech != "" && cfg.TLS != nil:
			proto = "SASL_SSL"
		case mech != "":
			proto = "SASL_PLAINTEXT"
		case cfg.TLS != nil:
			proto = "SSL"
		default:
			proto = "PLAINTEXT"
		}
	}
	sasl := proto == "SASL_PLAINTEXT" || proto == "SASL_SSL"
	ssl := proto == "SSL" || proto == "SASL_SSL"
	switch {
	case !sasl && !ssl && proto != "PLAINTEXT":
		return pgerr.New(pgerr.InvalidParameterValue, "invalid SECURITY PROTOCOL %q", cfg.SecurityProtocol).
			WithHint("Supported protocols are PLAINTEXT, SSL, SASL_PLAINTEXT and SASL_SSL.")
	case sasl && mech == "":
		return pgerr.New(pgerr.InvalidParameterValue, "SECURITY PROTOCOL %s requires SASL MECHANISMS", proto)
	case !sasl && mech != "":
		return pgerr.New(pgerr.InvalidParameterValue, "SASL MECHANISMS requires SECURITY PROTOCOL SASL_PLAINTEXT or SASL_SSL, not %s", proto)
	case !ssl && cfg.TLS != nil:
		return pgerr.New(pgerr.InvalidParameterValue, "TLS settings require SECURITY PROTOCOL SSL or SASL_SSL, not %s", proto)
	}
	if ssl && cfg.TLS == nil {
		cfg.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	cfg.SecurityProtocol = proto
	return nil
}

// clientOpts are the franz-go options shared by every client of the
// source.
func (s *source) clientOpts() []kgo.Opt {
	opts := []kgo.Opt{
		kgo.SeedBrokers(s.cfg.Brokers...),
		kgo.ClientID("streamdb"),
		kgo.WithLogger(kgoLogger{s.log}),
		kgo.MetadataMinAge(s.cfg.MetadataInterval / 4),
		kgo.RecordDeliveryTimeout(deadLetterTimeout),
		// Kafka's own default (fetch.max.wait.ms); franz-go's 5 s would
		// delay partitions added while a fetch is waiting.
		kgo.FetchMaxWait(500 * time.Millisecond),
	}
	if s.cfg.TLS != nil {
		opts = append(opts, kgo.DialTLSConfig(s.cfg.TLS.Clone()))
	}
	user, pass := s.cfg.SASL.User, s.cfg.SASL.Password
	switch s.cfg.SASL.Mechanism {
	case "PLAIN":
		opts = append(opts, kgo.SASL(plain.Auth{User: user, Pass: pass}.AsMechanism()))
	case "SCRAM-SHA-256":
		opts = append(opts, kgo.SASL(scram.Auth{User: user, Pass: pass}.AsSha256Mechanism()))
	case "SCRAM-SHA-512":
		opts = append(opts, kgo.SASL(scram.Auth{User: user, Pass: pass}.AsSha512Mechanism()))
	}
	return opts
}
