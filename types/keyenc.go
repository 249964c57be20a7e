package types

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// The key encoding turns Datums into byte strings whose bytewise order is
// Compare's order, so that arrangements and Pebble can sort and seek rows
// without decoding them. Every value starts with a tag byte naming its family
// (keyTagBase+family, or keyNull), which makes the encoding self-describing:
// DecodeKey needs no Type.
//
// Guarantees, for two values of the same family:
//
//	bytes.Compare(AppendKey(nil, a, false), AppendKey(nil, b, false)) == Compare(a, b)
//
// NULL sorts after every value ascending (PostgreSQL's NULLS LAST default)
// and first when descending. Values that Compare equal encode to the same
// bytes, so the key identifies a value only up to Compare's equality and
// loses display detail that Compare ignores:
//
//   - numeric: the scale (1.0 and 1.00 both decode as 1);
//   - float: the sign of zero and the NaN payload;
//   - char(n): trailing blanks (decoded without them);
//   - interval: the month/day/microsecond split (decoded as whole months
//     of 30 days, days below 30 and microseconds below a day);
//   - jsonb: number scale, as for numeric;
//   - arrays: the element type modifier (decoded as -1).
//
// Use the value encoding (AppendValue) where values must round-trip exactly.
//
// Each value is self-delimiting (fixed width, or terminated with escaping),
// so a row's key is the concatenation of its columns' keys and still orders
// column by column. A descending value is the ascending one with every byte
// inverted.
const (
	keyTagBase byte = 0x10
	keyNull    byte = 0xff
)

// Numeric subclasses, in order.
const (
	keyNumNegInf byte = 1 + iota
	keyNumNeg
	keyNumZero
	keyNumPos
	keyNumPosInf
	keyNumNaN
)

// AppendKey appends the order-preserving encoding of d to dst; desc inverts
// the order.
func AppendKey(dst []byte, d Datum, desc bool) []byte {
	start := len(dst)
	dst = appendKeyAsc(dst, d)
	if desc {
		invert(dst[start:])
	}
	return dst
}

// AppendKeyRow appends the ascending key encoding of every column of row.
func AppendKeyRow(dst []byte, row Row) []byte {
	for i := range row {
		dst = appendKeyAsc(dst, row[i])
	}
	return dst
}

func invert(b []byte) {
	for i := range b {
		b[i] = ^b[i]
	}
}

func appendKeyAsc(dst []byte, d Datum) []byte {
	if d.kind == Unknown || d.kind >= numFamilies {
		return append(dst, keyNull)
	}
	dst = append(dst, keyTagBase+byte(d.kind))
	switch d.kind {
	case Bool:
		return append(dst, byte(d.i))
	case Int2:
		return binary.BigEndian.AppendUint16(dst, uint16(d.i)^1<<15)
	case Int4:
		return binary.BigEndian.AppendUint32(dst, uint32(d.i)^1<<31)
	case Oid:
		return binary.BigEndian.AppendUint32(dst, uint32(d.i))
	case Int8, Date, Time, Timestamp, TimestampTZ:
		return binary.BigEndian.AppendUint64(dst, uint64(d.i)^1<<63)
	case Float4:
		return binary.BigEndian.AppendUint32(dst, float32Key(float32(d.Float())))
	case Float8:
		return binary.BigEndian.AppendUint64(dst, float64Key(d.Float()))
	case Numeric:
		if d.p == nil {
			return appendCoefKey(dst, d.i, d.e)
		}
		return appendNumericKey(dst, d.dec())
	case Char:
		return appendStringKey(dst, strings.TrimRight(d.str(), " "))
	case Text, Varchar, Name, Bytea, JSON, QChar, Void:
		return appendStringKey(dst, d.str())
	case UUID:
		return append(dst, d.str()...)
	case Interval:
		days, micros := IntervalSpan(d.Interval())
		dst = binary.BigEndian.AppendUint64(dst, uint64(days)^1<<63)
		return binary.BigEndian.AppendUint64(dst, uint64(micros))
	case JSONB:
		v, err := ParseJSON(d.str())
		if err != nil {
			// Not canonical jsonb (a bug elsewhere); keep the key total.
			v = JSONValue{Kind: JSONString, Str: d.str()}
		}
		return appendJSONBKey(dst, v)
	case Array:
		return appendArrayKey(dst, d.arr())
	case Record:
		return appendRecordKey(dst, d.rec())
	}
	return dst
}

// float64Key maps a float to an unsigned integer with the same order:
// -0 becomes +0 and every NaN the one NaN, above +Inf.
func float64Key(f float64) uint64 {
	switch {
	case math.IsNaN(f):
		return math.MaxUint64
	case f == 0:
		f = 0
	}
	u := math.Float64bits(f)
	if u&(1<<63) != 0 {
		return ^u
	}
	return u | 1<<63
}

func float32Key(f float32) uint32 {
	switch {
	case f != f:
		return math.MaxUint32
	case f == 0:
		f = 0
	}
	u := math.Float32bits(f)
	if u&(1<<31) != 0 {
		return ^u
	}
	return u | 1<<31
}

// appendStringKey escapes 0x00 as 0x00 0xff and terminates with 0x00 0x01,
// so that a prefix sorts first and the value ends unambiguously.
func appendStringKey(dst []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, 0)
		if i < 0 {
			break
		}
		dst = append(dst, s[:i]...)
		dst = append(dst, 0, 0xff)
		s = s[i+1:]
	}
	dst = append(dst, s...)
	return append(dst, 0, 1)
}

// appendKeyVarint appends an order-preserving variable-length signed
// integer: a length byte (0x80+n for n bytes of a non-negative value,
// 0x7f-n for a negative one) followed by the n low bytes, big-endian.
func appendKeyVarint(dst []byte, v int64) []byte {
	u := uint64(v)
	mag := u
	base := 0x80
	sign := 1
	if v < 0 {
		mag = ^u
		base = 0x7f
		sign = -1
	}
	n := 0
	for x := mag; x != 0; x >>= 8 {
		n++
	}
	dst = append(dst, byte(base+sign*n))
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(u>>(8*i)))
	}
	return dst
}

// appendNumericKey encodes a subclass byte and, for finite non-zero
// values, the decimal exponent and the significant digits two per byte,
// trailing zeros removed so that 1.0 and 1.00 agree. Negative magnitudes
// are inverted.
func appendNumericKey(dst []byte, d *apd.Decimal) []byte {
	switch {
	case d.Form == apd.NaN || d.Form == apd.NaNSignaling:
		return append(dst, keyNumNaN)
	case d.Form == apd.Infinite && d.Negative:
		return append(dst, keyNumNegInf)
	case d.Form == apd.Infinite:
		return append(dst, keyNumPosInf)
	case d.Coeff.Sign() == 0:
		return append(dst, keyNumZero)
	}
	var scratch [32]byte
	return appendFiniteKey(dst, d.Negative, d.Coeff.Append(scratch[:0], 10), d.Exponent)
}

// appendCoefKey is appendNumericKey for an inline numeric, writing the
// same bytes for the same value.
func appendCoefKey(dst []byte, coef int64, exponent int32) []byte {
	if coef == 0 {
		return append(dst, keyNumZero)
	}
	var scratch [20]byte
	return appendFiniteKey(dst, coef < 0, strconv.AppendUint(scratch[:0], coefMagnitude(coef), 10), exponent)
}

// appendFiniteKey encodes a non-zero numeric given as its sign and the
// decimal digits of its coefficient.
func appendFiniteKey(dst []byte, neg bool, digits []byte, exponent int32) []byte {
	if neg {
		dst = append(dst, keyNumNeg)
		start := len(dst)
		dst = appendDecimalMagnitude(dst, digits, exponent)
		invert(dst[start:])
		return dst
	}
	dst = append(dst, keyNumPos)
	return appendDecimalMagnitude(dst, digits, exponent)
}

// appendDecimalMagnitude writes the magnitude DIGITS × 10^exponent =
// 0.DIGITS × 10^E as E (varint) and DIGITS, trailing zeros removed, in
// pairs (each pair byte is 1 + 10*hi + lo), then a 0 terminator.
func appendDecimalMagnitude(dst []byte, digits []byte, exponent int32) []byte {
	exp := int64(exponent) + int64(len(digits))
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	dst = appendKeyVarint(dst, exp)
	for i := 0; i < len(digits); i += 2 {
		hi := digits[i] - '0'
		var lo byte
		if i+1 < len(digits) {
			lo = digits[i+1] - '0'
		}
		dst = append(dst, 1+10*hi+lo)
	}
	return append(dst, 0)
}

// appendJSONBKey encodes a top-level jsonb document so that byte order is
// CompareJSONValues' order: objects (class 2) after arrays and raw scalars
// (class 1); then the length; then, for arrays, a flag that puts a raw
// scalar before real one-element arrays.
func appendJSONBKey(dst []byte, v JSONValue) []byte {
	if v.Kind == JSONObject {
		dst = append(dst, 2)
		return appendJSONKeyBody(dst, v)
	}
	dst = append(dst, 1)
	if v.Kind != JSONArray {
		dst = appendKeyVarint(dst, 1)
		dst = append(dst, 0)
		return appendJSONKeyValue(dst, v)
	}
	dst = appendKeyVarint(dst, int64(len(v.Elems)))
	dst = append(dst, 1)
	for i := range v.Elems {
		dst = appendJSONKeyValue(dst, v.Elems[i])
	}
	return dst
}

// appendJSONKeyValue encodes a nested value: kind byte, then contents.
func appendJSONKeyValue(dst []byte, v JSONValue) []byte {
	dst = append(dst, 1+byte(v.Kind))
	return appendJSONKeyBody(dst, v)
}

func appendJSONKeyBody(dst []byte, v JSONValue) []byte {
	switch v.Kind {
	case JSONString:
		return appendStringKey(dst, v.Str)
	case JSONNumber:
		return appendNumericKey(dst, v.Num)
	case JSONBool:
		return append(dst, byte(boolInt(v.Bool)))
	case JSONArray:
		dst = appendKeyVarint(dst, int64(len(v.Elems)))
		for i := range v.Elems {
			dst = appendJSONKeyValue(dst, v.Elems[i])
		}
	case JSONObject:
		dst = appendKeyVarint(dst, int64(len(v.Pairs)))
		for i := range v.Pairs {
			dst = appendStringKey(dst, v.Pairs[i].Key)
			dst = appendJSONKeyValue(dst, v.Pairs[i].Value)
		}
	}
	return dst
}

// appendArrayKey writes the element family, then each element behind a 1
// byte, then a 0, so a shorter array that is a prefix of a longer one sorts
// first, as compareArrays requires; then the number of dimensions and
// their lengths, which order arrays of equal elements by shape as
// compareShape does. (Before multidimensional arrays the key ended at the
// 0: a table or upsert source keyed by an array column written by such a
// build must be reloaded.)
func appendArrayKey(dst []byte, a *ArrayValue) []byte {
	dst = append(dst, byte(a.Elem.Family))
	for i := range a.Elems {
		dst = append(dst, 1)
		dst = appendKeyAsc(dst, a.Elems[i])
	}
	dst = append(dst, 0, byte(a.NDims()))
	for _, n := range a.Lengths() {
		dst = binary.BigEndian.AppendUint32(dst, uint32(n))
	}
	return dst
}
