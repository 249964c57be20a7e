package types

import (
	"cmp"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// JSONKind is the kind of a JSON value. The constants are declared in
// PostgreSQL's jbvType order (null < string < number < bool < array <
// object), which is the order jsonb's btree class uses between kinds.
type JSONKind uint8

// JSON value kinds.
const (
	JSONNull JSONKind = iota
	JSONString
	JSONNumber
	JSONBool
	JSONArray
	JSONObject
)

// JSONValue is a parsed JSON document, the form operators (->, #>, @>,
// jsonb_each ...) work on. Objects built by ParseJSON hold their pairs in
// jsonb order (keys sorted by length, then bytes; duplicates removed, the
// last one winning), so FormatJSONB of a parsed value is jsonb's canonical
// text. A JSONValue shares its strings and decimals with others and must be
// treated as immutable.
type JSONValue struct {
	Kind  JSONKind
	Str   string       // JSONString
	Num   *apd.Decimal // JSONNumber, normalised as numeric_in would (no positive exponent, no -0)
	Bool  bool         // JSONBool
	Elems []JSONValue  // JSONArray
	Pairs []JSONPair   // JSONObject, in jsonb key order
}

// JSONPair is one member of a JSON object.
type JSONPair struct {
	Key   string
	Value JSONValue
}

// Get returns the value of key in an object, using the jsonb key order for
// a binary search; ok is false when v is not an object or lacks the key.
func (v *JSONValue) Get(key string) (JSONValue, bool) {
	if v.Kind != JSONObject {
		return JSONValue{}, false
	}
	lo, hi := 0, len(v.Pairs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if compareJSONKeys(v.Pairs[m].Key, key) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(v.Pairs) && v.Pairs[lo].Key == key {
		return v.Pairs[lo].Value, true
	}
	return JSONValue{}, false
}

// compareJSONKeys is jsonb's storage order for object keys: shorter keys
// first, then bytewise.
func compareJSONKeys(a, b string) int {
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// CanonicalJSONB parses JSON text and returns jsonb's canonical text for it,
// the payload of a JSONB Datum.
func CanonicalJSONB(s string) (string, error) {
	v, err := parseJSON(s, true)
	if err != nil {
		return "", err
	}
	return string(AppendJSONB(nil, v)), nil
}

// FormatJSONB returns v as jsonb_out prints it: `{"a": 1, "b": [1, 2]}`.
func FormatJSONB(v JSONValue) string { return string(AppendJSONB(nil, v)) }

// AppendJSONB appends v's jsonb text to dst.
func AppendJSONB(dst []byte, v JSONValue) []byte {
	switch v.Kind {
	case JSONNull:
		return append(dst, "null"...)
	case JSONString:
		return AppendJSONString(dst, v.Str)
	case JSONNumber:
		return appendNumeric(dst, v.Num)
	case JSONBool:
		if v.Bool {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case JSONArray:
		dst = append(dst, '[')
		for i := range v.Elems {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendJSONB(dst, v.Elems[i])
		}
		return append(dst, ']')
	case JSONObject:
		dst = append(dst, '{')
		for i := range v.Pairs {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendJSONString(dst, v.Pairs[i].Key)
			dst = append(dst, ": "...)
			dst = AppendJSONB(dst, v.Pairs[i].Value)
		}
		return append(dst, '}')
	}
	return dst
}

// AppendJSONString appends s as a quoted JSON string, escaped as
// PostgreSQL's escape_json does (control characters as \u00xx, everything
// else including non-ASCII left as is).
func AppendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			if c < 0x20 {
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			} else {
				dst = append(dst, c)
			}
		}
	}
	return append(dst, '"')
}

// CompareJSONB orders two canonical jsonb texts as PostgreSQL's jsonb btree
// class does. Texts that do not parse compare bytewise, after every valid
// document.
func CompareJSONB(a, b string) int {
	if a == b {
		return 0
	}
	va, erra := ParseJSON(a)
	vb, errb := ParseJSON(b)
	switch {
	case erra != nil && errb != nil:
		return strings.Compare(a, b)
	case erra != nil:
		return 1
	case errb != nil:
		return -1
	}
	return CompareJSONValues(va, vb)
}

// CompareJSONValues orders two top-level jsonb documents as
// compareJsonbContainers does. Between kinds the order is null < string <
// number < bool < array < object; objects with more pairs sort after objects
// with fewer, arrays likewise by length; then members compare in storage
// order, keys bytewise (C collation). A top-level scalar is, as in
// PostgreSQL, a one-element "raw scalar" array: it sorts before every other
// one-element array, after the empty array and before longer arrays.
func CompareJSONValues(a, b JSONValue) int {
	ta, tb := topClass(a), topClass(b)
	if c := cmp.Compare(ta, tb); c != 0 {
		return c
	}
	if ta == 1 {
		return compareJSON(a, b)
	}
	na, nb := topLen(a), topLen(b)
	if c := cmp.Compare(na, nb); c != 0 {
		return c
	}
	sa, sb := a.Kind != JSONArray, b.Kind != JSONArray
	switch {
	case sa && sb:
		return compareJSON(a, b)
	case sa:
		return -1
	case sb:
		return 1
	}
	return compareJSON(a, b)
}

// topClass separates top-level objects (1) from arrays and raw scalars (0),
// which PostgreSQL compares as arrays.
func topClass(v JSONValue) int {
	if v.Kind == JSONObject {
		return 1
	}
	return 0
}

func topLen(v JSONValue) int {
	if v.Kind == JSONArray {
		return len(v.Elems)
	}
	return 1
}

// compareJSON orders nested values: kind first, then contents.
func compareJSON(a, b JSONValue) int {
	if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	switch a.Kind {
	case JSONString:
		return strings.Compare(a.Str, b.Str)
	case JSONNumber:
		return compareDecimal(a.Num, b.Num)
	case JSONBool:
		return cmp.Compare(boolInt(a.Bool), boolInt(b.Bool))
	case JSONArray:
		if c := cmp.Compare(len(a.Elems), len(b.Elems)); c != 0 {
			return c
		}
		for i := range a.Elems {
			if c := compareJSON(a.Elems[i], b.Elems[i]); c != 0 {
				return c
			}
		}
	case JSONObject:
		if c := cmp.Compare(len(a.Pairs), len(b.Pairs)); c != 0 {
			return c
		}
		for i := range a.Pairs {
			if c := strings.Compare(a.Pairs[i].Key, b.Pairs[i].Key); c != 0 {
				return c
			}
			if c := compareJSON(a.Pairs[i].Value, b.Pairs[i].Value); c != 0 {
				return c
			}
		}
	}
	return 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
