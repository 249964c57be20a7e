package sql

import (
	"bytes"
	"encoding/binary"
	"strconv"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// copyFormat holds the options of a COPY: its format and, for text and
// CSV, the delimiter, NULL string, quote and escape characters.
type copyFormat struct {
	csv, binary bool
	header      bool
	delim       byte
	null        string
	quote       byte
	escape      byte
}

// binarySignature starts every binary COPY stream.
var binarySignature = []byte("PGCOPY\n\xff\r\n\x00")

// splitText splits one line of COPY's text format into fields, undoing
// backslash escapes; nulls marks the fields that were the NULL string.
// fields and nulls are reused.
func (f *copyFormat) splitText(line []byte, fields [][]byte, nulls []bool, scratch []byte) ([][]byte, []bool, []byte) {
	fields, nulls, scratch = fields[:0], nulls[:0], scratch[:0]
	start := 0
	for {
		end := bytes.IndexByte(line[start:], f.delim)
		last := end < 0
		if last {
			end = len(line)
		} else {
			end += start
		}
		// A delimiter escaped with a backslash does not end the field.
		for !last && backslashes(line[start:end])%2 == 1 {
			next := bytes.IndexByte(line[end+1:], f.delim)
			if next < 0 {
				end, last = len(line), true
			} else {
				end += 1 + next
			}
		}
		raw := line[start:end]
		if string(raw) == f.null {
			fields, nulls = append(fields, nil), append(nulls, true)
		} else if bytes.IndexByte(raw, '\\') < 0 {
			fields, nulls = append(fields, raw), append(nulls, false)
		} else {
			from := len(scratch)
			scratch = unescapeText(scratch, raw)
			fields, nulls = append(fields, scratch[from:len(scratch):len(scratch)]), append(nulls, false)
		}
		if last {
			return fields, nulls, scratch
		}
		start = end + 1
	}
}

// backslashes counts the backslashes that end b.
func backslashes(b []byte) int {
	n := 0
	for i := len(b) - 1; i >= 0 && b[i] == '\\'; i-- {
		n++
	}
	return n
}

// unescapeText appends s with COPY text-format escapes decoded: \b \f \n
// \r \t \v, \ooo octal, \xhh hex, and \c for any other c.
func unescapeText(dst, s []byte) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			dst = append(dst, c)
			continue
		}
		i++
		switch c = s[i]; c {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'v':
			dst = append(dst, '\v')
		case 'x':
			v, n := 0, 0
			for n < 2 && i+1 < len(s) && isHex(s[i+1]) {
				v = v*16 + hexVal(s[i+1])
				i++
				n++
			}
			if n == 0 {
				dst = append(dst, 'x')
			} else {
				dst = append(dst, byte(v))
			}
		default:
			if c >= '0' && c <= '7' {
				v := int(c - '0')
				for n := 1; n < 3 && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '7'; n++ {
					v = v*8 + int(s[i+1]-'0')
					i++
				}
				dst = append(dst, byte(v))
			} else {
				dst = append(dst, c)
			}
		}
	}
	return dst
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func hexVal(c byte) int {
	switch {
	case c <= '9':
		return int(c - '0')
	case c >= 'a':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}

// csvRecordEnd returns the length of the first complete CSV record in b,
// including its line ending, or -1 when b holds no complete record: a
// newline inside quotes belongs to the field.
func (f *copyFormat) csvRecordEnd(b []byte) int {
	quoted := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case quoted && c == f.escape && f.escape != f.quote && i+1 < len(b) && (b[i+1] == f.quote || b[i+1] == f.escape):
			i++
		case c == f.quote:
			quoted = !quoted
		case c == '\n' && !quoted:
			return i + 1
		}
	}
	return -1
}

// splitCSV splits one CSV record (without its line ending) into fields.
// An unquoted field equal to the NULL string is NULL; a quoted one never
// is.
func (f *copyFormat) splitCSV(rec []byte, fields [][]byte, nulls []bool, scratch []byte) ([][]byte, []bool, []byte, error) {
	fields, nulls, scratch = fields[:0], nulls[:0], scratch[:0]
	i := 0
	for {
		from := len(scratch)
		quotedAny := false
		rawStart := i
		for i < len(rec) && rec[i] != f.delim {
			c := rec[i]
			if c != f.quote {
				scratch = append(scratch, c)
				i++
				continue
			}
			quotedAny = true
			i++
			for {
				if i >= len(rec) {
					return nil, nil, nil, pgerr.New(pgerr.BadCopyFileFormat, "unterminated CSV quoted field")
				}
				c = rec[i]
				if c == f.escape && i+1 < len(rec) && (rec[i+1] == f.quote || rec[i+1] == f.escape) && (f.escape != f.quote || rec[i+1] == f.quote) {
					scratch = append(scratch, rec[i+1])
					i += 2
					continue
				}
				if c == f.quote {
					i++
					break
				}
				scratch = append(scratch, c)
				i++
			}
		}
		raw := rec[rawStart:i]
		if !quotedAny && string(raw) == f.null {
			scratch = scratch[:from]
			fields, nulls = append(fields, nil), append(nulls, true)
		} else {
			fields, nulls = append(fields, scratch[from:len(scratch):len(scratch)]), append(nulls, false)
		}
		if i >= len(rec) {
			return fields, nulls, scratch, nil
		}
		i++ // the delimiter
	}
}

// appendTextField appends a value in COPY's text format, escaping
// backslashes, line breaks, tabs and the delimiter.
func (f *copyFormat) appendTextField(dst []byte, s []byte) []byte {
	for _, c := range s {
		switch c {
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			if f.delim == '\t' {
				dst = append(dst, '\\', 't')
			} else {
				dst = append(dst, c)
			}
		default:
			if c == f.delim {
				dst = append(dst, '\\')
			}
			dst = append(dst, c)
		}
	}
	return dst
}

// appendCSVField appends a value in CSV, quoted when it holds the
// delimiter, the quote, a line break, or would read as the NULL string.
func (f *copyFormat) appendCSVField(dst []byte, s []byte) []byte {
	needs := string(s) == f.null
	for _, c := range s {
		if c == f.delim || c == f.quote || c == '\n' || c == '\r' || c == f.escape {
			needs = true
			break
		}
	}
	if !needs {
		return append(dst, s...)
	}
	dst = append(dst, f.quote)
	for _, c := range s {
		if c == f.quote || c == f.escape {
			dst = append(dst, f.escape)
		}
		dst = append(dst, c)
	}
	return append(dst, f.quote)
}

// appendRow appends one row in the COPY's format, ending with a newline
// (text, CSV) or as a binary tuple.
func (f *copyFormat) appendRow(dst []byte, row types.Row, cols []types.Type, cfg *types.TextConfig, scratch []byte) ([]byte, []byte) {
	if f.binary {
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(row)))
		for i, d := range row {
			if d.IsNull() {
				dst = binary.BigEndian.AppendUint32(dst, 0xFFFFFFFF)
				continue
			}
			at := len(dst)
			dst = append(dst, 0, 0, 0, 0)
			dst = types.AppendBinary(dst, d, cols[i])
			binary.BigEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
		}
		return dst, scratch
	}
	for i, d := range row {
		if i > 0 {
			dst = append(dst, f.delim)
		}
		if d.IsNull() {
			dst = append(dst, f.null...)
			continue
		}
		scratch = types.AppendText(scratch[:0], d, cols[i], cfg)
		if f.csv {
			dst = f.appendCSVField(dst, scratch)
		} else {
			dst = f.appendTextField(dst, scratch)
		}
	}
	return append(dst, '\n'), scratch
}

// lineContext is the CONTEXT PostgreSQL gives a COPY error, here carried
// in the error's detail.
func lineContext(table string, line int64, column string, value []byte, isNull bool) string {
	s := "COPY " + table + ", line " + strconv.FormatInt(line, 10)
	if column != "" {
		s += ", column " + column
		if !isNull {
			s += ": \"" + string(value) + "\""
		} else {
			s += ": null input"
		}
	}
	return s
}
