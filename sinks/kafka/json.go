package kafka

import (
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
	dst = types.AppendText(dst, d, types.Type{Family: d.Kind(), Mod: -1}, nil)
	sp := -1
	for i := start; i < len(dst); i++ {
		if dst[i] == ' ' {
			sp = i
			break
		}
	}
	if sp < 0 { // infinity
		return append(dst, '"')
	}
	dst[sp] = 'T'
	if d.Kind() == types.TimestampTZ {
		// The offset starts at the first sign after the time; "+HH"
		// becomes "+HH:00".
		off := sp + 1
		for off < len(dst) && dst[off] != '+' && dst[off] != '-' {
			off++
		}
		end := off
		for end < len(dst) && dst[end] != ' ' {
			end++
		}
		if end-off == 3 {
			dst = append(dst, ":00"...)
			copy(dst[end+3:], dst[end:len(dst)-3])
			copy(dst[end:], ":00")
		}
	}
	return append(dst, '"')
}
