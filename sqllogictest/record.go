package sqllogictest

import (
	"strings"
	"time"
)

// Kind is the type of a record.
type Kind uint8

// Record kinds. KindInvalid is a record the parser could not understand; it is
// kept so that running it reports a failure at its line instead of the
// parser silently dropping it.
const (
	KindInvalid Kind = iota
	KindStatement
	KindQuery
	KindSimple
	KindHashThreshold
	KindHalt
	KindMode
	KindSleep
)

// Runnable reports whether records of kind k are counted as passed, failed
// or skipped; control records (hash-threshold, halt, mode, sleep) are not.
func (k Kind) Runnable() bool {
	return k == KindStatement || k == KindQuery || k == KindSimple || k == KindInvalid
}

// SortMode says how a query's result is sorted before it is compared.
type SortMode uint8

// Sort modes of the query record.
const (
	NoSort SortMode = iota
	RowSort
	ValueSort
)

// String returns the keyword of the sort mode.
func (s SortMode) String() string {
	switch s {
	case RowSort:
		return "rowsort"
	case ValueSort:
		return "valuesort"
	}
	return "nosort"
}

// Condition is a skipif or onlyif line in front of a record.
type Condition struct {
	// Only is true for onlyif: the record runs only on Engine.
	Only   bool
	Engine string
}

// Record is one parsed record of a sqllogictest file.
type Record struct {
	Kind Kind
	// Line is the 1-based line of the record's keyword line (the line after
	// any skipif/onlyif), the line failures are reported at and the line an
	// expected-failure entry names.
	Line       int
	Conditions []Condition
	// SQL is the statement or query text, its lines joined with "\n".
	SQL string

	// ExpectError is set for "statement error" and "query error".
	ExpectError bool
	// ErrorCode is the SQLSTATE the error must have ("pgcode XXXXX"), or "".
	ErrorCode string
	// ErrorPattern is a regular expression the error message must match, or "".
	ErrorPattern string
	// Count is the row count of "statement count N", -1 when not given.
	Count int64

	// Types holds one of 'T', 'I', 'R' per result column.
	Types string
	Sort  SortMode
	Label string
	// Expected holds the lines after "----" (query and simple records).
	Expected []string

	// SepLine is the line of "----", 0 when the record has none; EndLine is
	// the record's last line. Rewriting replaces the lines after SepLine up
	// to EndLine.
	SepLine, EndLine int

	// Threshold is the argument of hash-threshold.
	Threshold int
	// Word is the argument of mode.
	Word string
	// Duration is the argument of sleep.
	Duration time.Duration

	// Problem explains why a KindInvalid record could not be parsed.
	Problem string
}

// Skipped reports whether the record's conditions exclude it on engine,
// which may name several engines separated by commas: streamdb runs as
// "streamdb,postgresql", so that records only PostgreSQL's dialect runs
// (the SQLite corpus's onlyif postgresql) run on it and records of
// streamdb's own SQL (onlyif streamdb) only on it. Engine names compare
// case-insensitively, as in the reference runner.
func (r *Record) Skipped(engine string) bool {
	for _, c := range r.Conditions {
		match := false
		for name := range strings.SplitSeq(engine, ",") {
			match = match || strings.EqualFold(c.Engine, strings.TrimSpace(name))
		}
		if c.Only != match {
			return true
		}
	}
	return false
}
