package types

import "time"

// DateStyle is the output format half of PostgreSQL's DateStyle setting.
type DateStyle uint8

// DateStyle values.
const (
	DateStyleISO DateStyle = iota
	DateStyleSQL
	DateStylePostgres
	DateStyleGerman
)

// DateOrder is the field-order half of DateStyle, used to read ambiguous
// dates such as 01/02/03 and, for the SQL and Postgres styles, to print them.
type DateOrder uint8

// DateOrder values.
const (
	DateOrderMDY DateOrder = iota
	DateOrderDMY
	DateOrderYMD
)

// IntervalStyle is PostgreSQL's IntervalStyle setting.
type IntervalStyle uint8

// IntervalStyle values.
const (
	IntervalStylePostgres IntervalStyle = iota
	IntervalStylePostgresVerbose
	IntervalStyleSQLStandard
	IntervalStyleISO8601
)

// TextConfig holds the session settings that change how values are read
// from and written to text: TimeZone, DateStyle, IntervalStyle,
// extra_float_digits and bytea_output. A session owns one and replaces it
// (never mutates it) when a setting changes, so it can be shared with
// running statements.
type TextConfig struct {
	Location         *time.Location
	DateStyle        DateStyle
	DateOrder        DateOrder
	IntervalStyle    IntervalStyle
	ExtraFloatDigits int  // -15..3; >= 1 prints the shortest exact form
	ByteaEscape      bool // bytea_output = 'escape' instead of 'hex'
	// Names resolves object names for the reg* types; without it their
	// values read and print as plain OIDs.
	Names ObjectNames
}

// DefaultTextConfig returns PostgreSQL's defaults with TimeZone UTC:
// DateStyle ISO, MDY; IntervalStyle postgres; extra_float_digits 1;
// bytea_output hex.
func DefaultTextConfig() *TextConfig {
	return &TextConfig{Location: time.UTC, DateStyle: DateStyleISO, DateOrder: DateOrderMDY, ExtraFloatDigits: 1}
}
