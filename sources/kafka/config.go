package kafka

import (
	"log/slog"
	"time"

	"github.com/streamdb/streamdb/internal/kafkaconn"
	"github.com/streamdb/streamdb/sources"
)

// Config describes one Kafka source: where to connect, which topic to read
// from where, how to decode keys and values, and which envelope turns the
// decoded records into changes. The engine builds it from CREATE SOURCE …
// FROM KAFKA; New validates it.
type Config struct {
	// Connection is where the brokers are and how to authenticate, the
	// settings shared with sinks (internal/kafkaconn).
	kafkaconn.Connection

	// Name is the source's name, for the messages that tell a user what
	// to do (ALTER SOURCE name RESET).
	Name string
	// Topic is the topic to read.
	Topic string
	// StartOffsets is START OFFSET: element i is where partition i
	// starts when there is no resume position. Partitions past the end
	// of the list start at their beginning.
	StartOffsets []int64
	// StartTimestamp is START TIMESTAMP in milliseconds since the epoch:
	// partitions without a resume position start at their first record
	// at or after it. -1 means none. Relative (negative) Materialize
	// timestamps must be resolved by the caller when the statement runs,
	// so that a restart does not move them.
	StartTimestamp int64

	// KeyFormat decodes record keys; the zero Format means no key format.
	KeyFormat Format
	// ValueFormat decodes record values.
	ValueFormat Format
	// Include lists INCLUDE options in statement order.
	Include []IncludeOpt
	// Envelope says how decoded records become changes.
	Envelope Envelope
	// Columns is the declared column list of the value, possibly empty:
	// for JSON it names and types the object fields to extract; for
	// TEXT, BYTES and CSV it renames (and for TEXT and CSV retypes) the
	// format's columns.
	Columns []sources.Column
	// KeyColumns is the declared column list of a JSON key, possibly
	// empty (then the key is one jsonb column). Under ENVELOPE DEBEZIUM,
	// key columns named like value columns are those value columns.
	KeyColumns []sources.Column

	// DeadLetterTopic, when set, also receives every record that fails
	// to decode, with the error in headers.
	DeadLetterTopic string
	// GroupID, when set, is a consumer group the source commits its
	// committed positions to, for monitoring tools that read consumer
	// lag; the source never reads them back.
	GroupID string
	// MaxBatchRecords and MaxBatchBytes bound one emitted batch; zero
	// means the defaults (DefaultMaxBatchRecords, DefaultMaxBatchBytes).
	MaxBatchRecords int
	MaxBatchBytes   int
	// MetadataInterval is how often the source polls topic metadata to
	// find new partitions and check the brokers' health; zero means
	// DefaultMetadataInterval.
	MetadataInterval time.Duration
	// Logger receives the source's logs; nil discards them.
	Logger *slog.Logger
}

// Defaults for the zero values of Config's tuning fields.
const (
	DefaultMaxBatchRecords  = 10000
	DefaultMaxBatchBytes    = 4 << 20
	DefaultMetadataInterval = 3 * time.Second
)

// FormatKind is a Kafka source format.
type FormatKind uint8

// Formats. FormatUnset is the zero value: no format given.
const (
	FormatUnset FormatKind = iota
	FormatJSON
	FormatText
	FormatBytes
	FormatCSV
)

var formatNames = [...]string{FormatUnset: "unset", FormatJSON: "JSON", FormatText: "TEXT", FormatBytes: "BYTES", FormatCSV: "CSV"}

func (k FormatKind) String() string {
	if int(k) < len(formatNames) {
		return formatNames[k]
	}
	return "unknown"
}

// Format is FORMAT JSON, TEXT, BYTES or CSV WITH n COLUMNS [DELIMITED BY
// 'c'].
type Format struct {
	Kind FormatKind
	// CSVColumns is n of CSV WITH n COLUMNS.
	CSVColumns int
	// CSVDelimiter is the field delimiter; 0 means ','.
	CSVDelimiter byte
}

// Envelope is how decoded records turn into changes.
type Envelope uint8

// Envelopes.
const (
	// EnvelopeNone appends every record as a row.
	EnvelopeNone Envelope = iota
	// EnvelopeUpsert keeps the latest value per key; a null value
	// deletes the key.
	EnvelopeUpsert
	// EnvelopeDebezium reads Debezium change events (before/after/op)
	// and keeps the latest row per key.
	EnvelopeDebezium
)

var envelopeNames = [...]string{EnvelopeNone: "NONE", EnvelopeUpsert: "UPSERT", EnvelopeDebezium: "DEBEZIUM"}

func (e Envelope) String() string {
	if int(e) < len(envelopeNames) {
		return envelopeNames[e]
	}
	return "unknown"
}

// IncludeKind is the record part an INCLUDE option adds as a column.
type IncludeKind uint8

// INCLUDE options.
const (
	// IncludeKey adds the decoded key (column "key", or the declared
	// key columns).
	IncludeKey IncludeKind = iota
	// IncludePartition adds the partition as int4 ("partition").
	IncludePartition
	// IncludeOffset adds the offset as int8 ("offset").
	IncludeOffset
	// IncludeTimestamp adds the record timestamp as timestamp
	// ("timestamp").
	IncludeTimestamp
	// IncludeHeaders adds all headers as one jsonb array of
	// {"key": …, "value": …} objects ("headers").
	IncludeHeaders
	// IncludeHeader adds the last value of one header as text, or as
	// bytea with Bytes set (HEADER 'k' AS name [BYTES]).
	IncludeHeader
)

var includeNames = [...]string{IncludeKey: "KEY", IncludePartition: "PARTITION", IncludeOffset: "OFFSET",
	IncludeTimestamp: "TIMESTAMP", IncludeHeaders: "HEADERS", IncludeHeader: "HEADER"}

func (k IncludeKind) String() string {
	if int(k) < len(includeNames) {
		return includeNames[k]
	}
	return "unknown"
}

// IncludeOpt is one INCLUDE option.
type IncludeOpt struct {
	Kind IncludeKind
	// Alias is the AS name; empty uses the default name (required for
	// IncludeHeader).
	Alias string
	// Header is the header key of IncludeHeader.
	Header string
	// Bytes makes IncludeHeader a bytea column instead of text.
	Bytes bool
}
