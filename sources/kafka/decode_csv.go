package kafka

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// csvDecoder is FORMAT CSV WITH n COLUMNS [DELIMITED BY 'c']: each record
// value is one CSV line (a trailing newline is allowed) of exactly n
// fields, read as text columns column1..columnN or, with a column list,
// with each column type's input function.
//
// Quoting follows RFC 4180 with the leniency of the csv crate Materialize
// uses: a quote inside an unquoted field is data, and text after a
// closing quote continues the field. An unterminated quote, a second line
// or a different number of fields fails the record. CSV has no NULL: an
// empty field is the empty string.
type csvDecoder struct {
	names  []string
	types  []types.Type
	delim  byte
	fields []string
	buf    []byte
}

func (d *csvDecoder) decode(dst []types.Datum, b []byte) error {
	if !utf8.Valid(b) {
		return errInvalidUTF8(b)
	}
	fields, err := d.split(string(b))
	if err != nil {
		return err
	}
	if len(fields) != len(d.types) {
		return pgerr.New(pgerr.BadCopyFileFormat, "expected %d columns, got %d", len(d.types), len(fields))
	}
	for i, f := range fields {
		if d.types[i] == types.TypeText {
			if strings.IndexByte(f, 0) >= 0 {
				return pgerr.New(pgerr.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": 0x00")
			}
			dst[i] = types.NewText(f)
			continue
		}
		v, err := parseField(sources.Column{Name: d.names[i], Type: d.types[i]}, f)
		if err != nil {
			return err
		}
		dst[i] = v
	}
	return nil
}

// split cuts one CSV line into fields. Unquoted fields are substrings of
// s; quoted fields with doubled quotes are copied.
func (d *csvDecoder) split(s string) ([]string, error) {
	switch {
	case strings.HasSuffix(s, "\r\n"):
		s = s[:len(s)-2]
	case strings.HasSuffix(s, "\n"):
		s = s[:len(s)-1]
	}
	fields := d.fields[:0]
	i := 0
	for {
		var field string
		var err error
		field, i, err = d.field(s, i)
		if err != nil {
			return nil, err
		}
		fields = append(fields, field)
		if i >= len(s) {
			break
		}
		if s[i] != d.delim {
			return nil, pgerr.New(pgerr.BadCopyFileFormat, "expected one CSV record per message, found a line break")
		}
		i++
	}
	d.fields = fields
	return fields, nil
}

// field reads the field at s[i] up to the next delimiter or line break.
func (d *csvDecoder) field(s string, i int) (string, int, error) {
	start := i
	if i >= len(s) || s[i] != '"' {
		for i < len(s) && s[i] != d.delim && s[i] != '\n' && s[i] != '\r' {
			i++
		}
		return s[start:i], i, nil
	}
	// A quoted field: copy unless it is one quoted run without doubled
	// quotes followed directly by the end of the field.
	buf := d.buf[:0]
	i++
	for {
		q := strings.IndexByte(s[i:], '"')
		if q < 0 {
			return "", 0, pgerr.New(pgerr.BadCopyFileFormat, "unterminated CSV quoted field")
		}
		buf = append(buf, s[i:i+q]...)
		i += q + 1
		if i < len(s) && s[i] == '"' {
			buf = append(buf, '"')
			i++
			continue
		}
		break
	}
	if i >= len(s) || s[i] == d.delim || s[i] == '\n' || s[i] == '\r' {
		if len(buf) == i-start-2 {
			return s[start+1 : i-1], i, nil
		}
		d.buf = buf
		return string(buf), i, nil
	}
	for i < len(s) && s[i] != d.delim && s[i] != '\n' && s[i] != '\r' {
		buf = append(buf, s[i])
		i++
	}
	d.buf = buf
	return string(buf), i, nil
}

// csvColumnName is the default name of CSV column i (0-based).
func csvColumnName(i int) string { return "column" + strconv.Itoa(i+1) }
