package types

import (
	"strings"
	"unicode/utf8"

	"github.com/streamdb/streamdb/pgerr"
)

// AppendText appends d in PostgreSQL's text output format for type t under
// the session settings cfg (nil means DefaultTextConfig). NULL appends
// nothing; the caller signals NULL out of band, as the wire protocol does.
// The Datum's family decides the format; t supplies the element type of
// empty arrays and is otherwise informational.
func AppendText(dst []byte, d Datum, t Type, cfg *TextConfig) []byte {
	if cfg == nil {
		cfg = defaultTextConfig
	}
	switch d.kind {
	case Bool:
		if d.i != 0 {
			return append(dst, 't')
		}
		return append(dst, 'f')
	case Int2, Int4, Int8, Oid:
		if t.Family.IsReg() {
			return appendReg(dst, d, t.Family, cfg)
		}
		return appendInt(dst, d.i)
	case Float4:
		return appendFloat(dst, d.Float(), 32, cfg.ExtraFloatDigits)
	case Float8:
		return appendFloat(dst, d.Float(), 64, cfg.ExtraFloatDigits)
	case Numeric:
		if d.p == nil {
			return appendCoefText(dst, d.i, d.e)
		}
		return appendNumeric(dst, d.dec())
	case Text, Varchar, Char, Name, JSON, JSONB:
		return append(dst, d.str()...)
	case Bytea:
		return appendBytea(dst, d.str(), cfg.ByteaEscape)
	case QChar:
		return appendQChar(dst, d.str())
	case Void:
		return dst
	case UUID:
		return appendUUID(dst, d.str())
	case Date:
		return appendDate(dst, d.i, cfg)
	case Time:
		return appendTimeOfDay(dst, d.i)
	case Timestamp:
		return appendTimestamp(dst, d.i, false, cfg)
	case TimestampTZ:
		return appendTimestamp(dst, d.i, true, cfg)
	case Interval:
		return appendInterval(dst, d.Interval(), cfg.IntervalStyle)
	case Array:
		if t.IsVector() {
			return appendVector(dst, d.arr())
		}
		return appendArray(dst, d.arr(), cfg)
	case Record:
		return appendRecord(dst, d.rec(), cfg)
	}
	return dst
}

// FormatText returns AppendText's output as a string.
func FormatText(d Datum, t Type, cfg *TextConfig) string {
	return string(AppendText(nil, d, t, cfg))
}

var defaultTextConfig = DefaultTextConfig()

// ParseText reads s with type t's input function under the session
// settings cfg (nil means DefaultTextConfig), applying t's modifier as an
// INSERT or COPY does: too-long strings and numerics that overflow their
// precision are errors (22001, 22003), not truncated. The input is never
// NULL; SQL NULL is decided by the caller.
func ParseText(s string, t Type, cfg *TextConfig) (Datum, error) {
	if cfg == nil {
		cfg = defaultTextConfig
	}
	d, err := parseTextValue(s, t, cfg)
	if err != nil {
		return Null, err
	}
	if t.Mod >= 0 {
		return applyInputTypmod(d, t)
	}
	return d, nil
}

func parseTextValue(s string, t Type, cfg *TextConfig) (Datum, error) {
	switch t.Family {
	case Bool:
		return parseBool(s)
	case Int2, Int4, Int8:
		return parseInt(s, t.Family)
	case Oid:
		return parseOid(s)
	case RegClass, RegType, RegProc, RegNamespace:
		return parseReg(s, t.Family, cfg)
	case Float4, Float8:
		return parseFloat(s, t.Family)
	case Numeric:
		return parseNumeric(s)
	case Text, Varchar, Char, Unknown:
		if err := checkUTF8(s); err != nil {
			return Null, err
		}
		if t.Family == Unknown {
			return NewText(s), nil
		}
		return NewString(t.Family, s), nil
	case Name:
		if err := checkUTF8(s); err != nil {
			return Null, err
		}
		return NewString(Name, truncateName(s)), nil
	case Bytea:
		return parseBytea(s)
	case QChar:
		return parseQChar(s), nil
	case Void:
		return NewString(Void, ""), nil
	case UUID:
		return parseUUID(s)
	case JSON:
		if err := ValidateJSON(s); err != nil {
			return Null, err
		}
		return NewString(JSON, s), nil
	case JSONB:
		c, err := CanonicalJSONB(s)
		if err != nil {
			return Null, err
		}
		return NewString(JSONB, c), nil
	case Date:
		return parseDate(s, cfg)
	case Time:
		return parseTime(s, cfg)
	case Timestamp:
		return parseTimestamp(s, false, cfg)
	case TimestampTZ:
		return parseTimestamp(s, true, cfg)
	case Interval:
		return parseInterval(s, cfg.IntervalStyle, intervalRange(t.Mod))
	case Array:
		if t.IsVector() {
			return parseVector(s, t)
		}
		return parseArray(s, t.ElemType(), cfg)
	case Record:
		return Null, errRecordInput()
	}
	return Null, pgerr.New(pgerr.FeatureNotSupported, "type %s is not supported", t)
}

// errSyntax is the input functions' common error.
func errSyntax(t Type, s string) error {
	return pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type %s: %s", typeName(t), quoteValue(s))
}

// typeName is the type name as input-function errors print it: format_type
// without the modifier.
func typeName(t Type) string {
	switch t.Family {
	case Array:
		return typeName(t.ElemType()) + "[]"
	case Time:
		return "time"
	case Timestamp:
		return "timestamp"
	}
	return t.Family.String()
}

// quoteValue quotes s as PostgreSQL's error messages do: in double quotes,
// without escaping.
func quoteValue(s string) string { return `"` + s + `"` }

// checkUTF8 rejects text PostgreSQL could not store: invalid UTF-8 and
// NUL bytes.
func checkUTF8(s string) error {
	for i := 0; i < len(s); {
		c := s[i]
		if c != 0 && c < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if c == 0 || r == utf8.RuneError && n <= 1 {
			return pgerr.New(pgerr.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": 0x%02x", c)
		}
		i += n
	}
	return nil
}

// isSpace is PostgreSQL's isspace in the C locale.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func trimSpace(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r < 0x80 && isSpace(byte(r)) })
}
