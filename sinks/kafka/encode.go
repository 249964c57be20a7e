package kafka

import (
	"github.com/streamdb/streamdb/sinks"
	"github.com/streamdb/streamdb/types"
)

// encoder turns rows into record keys and values in the sink's formats.
// Its methods append to dst and report false for a SQL NULL that TEXT
// encodes as a null key or value.
type encoder struct {
	cols        []sinks.Column
	key         []int
	keyFormat   Format
	valueFormat Format
	// members holds `"name":` for each column, the JSON object member
	// prefix, escaped once.
	members [][]byte
}

func newEncoder(cfg *Config) *encoder {
	e := &encoder{cols: cfg.Columns, key: cfg.Key, keyFormat: cfg.KeyFormat, valueFormat: cfg.ValueFormat}
	e.members = make([][]byte, len(cfg.Columns))
	for i, c := range cfg.Columns {
		e.members[i] = append(types.AppendJSONString(nil, c.Name), ':')
	}
	return e
}

// appendKey appends the record key of row: the KEY columns as a JSON
// object, or the one key column's text.
func (e *encoder) appendKey(dst []byte, row types.Row) ([]byte, bool) {
	if e.keyFormat == FormatText {
		return appendText(dst, row[e.key[0]], e.cols[e.key[0]].Type)
	}
	dst = append(dst, '{')
	for i, k := range e.key {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, e.members[k]...)
		dst = appendJSON(dst, row[k])
	}
	return append(dst, '}'), true
}

// appendRow appends row as a record value: a JSON object of every
// column, or the one column's text.
func (e *encoder) appendRow(dst []byte, row types.Row) ([]byte, bool) {
	if e.valueFormat == FormatText {
		return appendText(dst, row[0], e.cols[0].Type)
	}
	return e.appendObject(dst, row), true
}

// appendObject appends row as a JSON object.
func (e *encoder) appendObject(dst []byte, row types.Row) []byte {
	dst = append(dst, '{')
	for i, d := range row {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, e.members[i]...)
		dst = appendJSON(dst, d)
	}
	return append(dst, '}')
}

// appendText appends d's PostgreSQL text output (with the default
// settings: UTC, ISO dates, hex bytea); false for NULL.
func appendText(dst []byte, d types.Datum, t types.Type) ([]byte, bool) {
	if d.IsNull() {
		return dst, false
	}
	return types.AppendText(dst, d, t, nil), true
}
