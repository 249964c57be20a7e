package kafka

import (
	"bytes"
	"encoding/base64"
	"math"
	"strconv"

	"github.com/streamdb/streamdb/types"
)

// appendJSON appends the JSON encoding of d (see doc.go's table) to dst.
// Every value encodes losslessly: numbers keep all their digits, other
// values their PostgreSQL text where JSON has no type for them.
func appendJSON(dst []byte, d types.Datum) []byte {
	switch d.Kind() {
	case types.Unknown:
		return append(dst, "null"...)
	case types.Bool:
		if d.Bool() {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case types.Int2, types.Int4, types.Int8, types.Oid:
		return strconv.AppendInt(dst, d.Int(), 10)
	case types.Float4, types.Float8:
		if f := d.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return appendQuotedText(dst, d)
		}
		return types.AppendText(dst, d, types.Type{Family: d.Kind(), Mod: -1}, nil)
	case types.Numeric:
		start := len(dst)
		dst = types.AppendText(dst, d, types.TypeNumeric, nil)
		if c := dst[start]; c == 'N' || c == 'I' || c == '-' && dst[start+1] == 'I' {
			return quoteTail(dst, start)
		}
		return dst
	case types.Text, types.Varchar, types.Char, types.Name:
		return types.AppendJSONString(dst, d.Str())
	case types.Bytea:
		dst = append(dst, '"')
		dst = base64.StdEncoding.AppendEncode(dst, []byte(d.Str()))
		return append(dst, '"')
	case types.JSON, types.JSONB:
		return append(dst, d.Str()...)
	case types.Timestamp, types.TimestampTZ:
		return appendISOTimestamp(dst, d)
	case types.Array:
		a := d.Array()
		dst = append(dst, '[')
		for i, e := range a.Elems {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSON(dst, e)
		}
		return append(dst, ']')
	}
	// UUID, Date, Time, Interval: their text, which needs no escaping.
	return appendQuotedText(dst, d)
}

// appendQuotedText appends d's text output as a JSON string; only for
// values whose text has no character JSON escapes.
func appendQuotedText(dst []byte, d types.Datum) []byte {
	dst = append(dst, '"')
	dst = types.AppendText(dst, d, types.Type{Family: d.Kind(), Mod: -1}, nil)
	return append(dst, '"')
}

// quoteTail turns dst[start:] into a JSON string.
func quoteTail(dst []byte, start int) []byte {
	dst = append(dst, 0, '"')
	copy(dst[start+1:], dst[start:len(dst)-2])
	dst[start] = '"'
	return dst
}

// appendISOTimestamp appends a timestamp as PostgreSQL's to_json does:
// ISO 8601 with a T between date and time, and, for timestamptz, the
// offset (always UTC here) as +00:00. Infinities stay "infinity" and
// "-infinity", and years before 1 AD keep PostgreSQL's " BC" suffix.
func appendISOTimestamp(dst []byte, d types.Datum) []byte {
	dst = append(dst, '"')
	start := len(dst)
	// A timestamptz in UTC prints as the timestamp of the same payload
	// with +00 appended; printing it as that timestamp skips the time
	// zone lookup, which was most of the cost.
	dst = types.AppendText(dst, d.WithKind(types.Timestamp), types.TypeTimestamp, nil)
	sp := bytes.IndexByte(dst[start:], ' ')
	if sp < 0 { // infinity
		return append(dst, '"')
	}
	dst[start+sp] = 'T'
	if d.Kind() == types.TimestampTZ {
		const utc = "+00:00"
		end := len(dst)
		if bytes.HasSuffix(dst[start:], []byte(" BC")) {
			end -= len(" BC")
		}
		dst = append(dst, utc...)
		copy(dst[end+len(utc):], dst[end:len(dst)-len(utc)])
		copy(dst[end:], utc)
	}
	return append(dst, '"')
}
