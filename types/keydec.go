package types

import (
	"encoding/binary"
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerr"
)

// maxKeyDepth bounds the nesting of arrays and jsonb documents a key may
// hold, so corrupt input cannot exhaust the stack.
const maxKeyDepth = 1000

func errCorruptKey(what string) error {
	return pgerr.New(pgerr.DataCorrupted, "invalid key encoding: %s", what)
}

// keyReader reads a key through an XOR mask: 0xff for descending keys,
// whose bytes are inverted, 0 otherwise.
type keyReader struct {
	b    []byte
	pos  int
	mask byte
}

func (r *keyReader) byte() (byte, error) {
	if r.pos >= len(r.b) {
		return 0, errCorruptKey("truncated")
	}
	c := r.b[r.pos] ^ r.mask
	r.pos++
	return c, nil
}

// fixed returns the next n bytes unmasked into buf.
func (r *keyReader) fixed(buf []byte) error {
	if len(r.b)-r.pos < len(buf) {
		return errCorruptKey("truncated")
	}
	for i := range buf {
		buf[i] = r.b[r.pos+i] ^ r.mask
	}
	r.pos += len(buf)
	return nil
}

func (r *keyReader) uint64() (uint64, error) {
	var b [8]byte
	err := r.fixed(b[:])
	return binary.BigEndian.Uint64(b[:]), err
}

func (r *keyReader) uint32() (uint32, error) {
	var b [4]byte
	err := r.fixed(b[:])
	return binary.BigEndian.Uint32(b[:]), err
}

func (r *keyReader) varint() (int64, error) {
	p, err := r.byte()
	if err != nil {
		return 0, err
	}
	var v int64
	n := int(p) - 0x80
	if p < 0x80 {
		v = -1
		n = 0x7f - int(p)
	}
	if n > 8 {
		return 0, errCorruptKey("varint length")
	}
	for i := 0; i < n; i++ {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v = v<<8 | int64(c)
	}
	return v, nil
}

// string reads an escaped, terminated string.
func (r *keyReader) string() (string, error) {
	var out []byte
	for {
		c, err := r.byte()
		if err != nil {
			return "", err
		}
		if c != 0 {
			out = append(out, c)
			continue
		}
		e, err := r.byte()
		if err != nil {
			return "", err
		}
		switch e {
		case 1:
			return string(out), nil
		case 0xff:
			out = append(out, 0)
		default:
			return "", errCorruptKey("string escape")
		}
	}
}

// DecodeKey decodes one value written by AppendKey with the same desc and
// returns it with the rest of src. The value is Compare-equal to the one
// encoded but may differ in display detail (see AppendKey).
func DecodeKey(src []byte, desc bool) (Datum, []byte, error) {
	r := keyReader{b: src}
	if desc {
		r.mask = 0xff
	}
	d, err := r.datum(0)
	if err != nil {
		return Null, src, err
	}
	return d, src[r.pos:], nil
}

func (r *keyReader) datum(depth int) (Datum, error) {
	tag, err := r.byte()
	if err != nil {
		return Null, err
	}
	if tag == keyNull {
		return Null, nil
	}
	if tag < keyTagBase || tag-keyTagBase >= byte(numFamilies) || tag == keyTagBase {
		return Null, errCorruptKey("tag")
	}
	f := Family(tag - keyTagBase)
	switch f {
	case Bool:
		b, err := r.byte()
		if err != nil || b > 1 {
			return Null, errCorruptKey("bool")
		}
		return NewBool(b == 1), nil
	case Int2:
		var b [2]byte
		err := r.fixed(b[:])
		return NewInt2(int16(binary.BigEndian.Uint16(b[:]) ^ 1<<15)), err
	case Int4:
		u, err := r.uint32()
		return NewInt4(int32(u ^ 1<<31)), err
	case Oid, RegClass, RegType, RegProc, RegNamespace:
		u, err := r.uint32()
		return NewOid(u), err
	case Int8, Date, Time, Timestamp, TimestampTZ:
		u, err := r.uint64()
		return Datum{head: head{kind: f}, i: int64(u ^ 1<<63)}, err
	case Float4:
		u, err := r.uint32()
		if u == math.MaxUint32 {
			return NewFloat4(float32(canonicalNaN)), err
		}
		if u&(1<<31) != 0 {
			u &^= 1 << 31
		} else {
			u = ^u
		}
		return NewFloat4(math.Float32frombits(u)), err
	case Float8:
		u, err := r.uint64()
		if u == math.MaxUint64 {
			return NewFloat8(canonicalNaN), err
		}
		if u&(1<<63) != 0 {
			u &^= 1 << 63
		} else {
			u = ^u
		}
		return NewFloat8(math.Float64frombits(u)), err
	case Numeric:
		d, err := r.numeric()
		return NewNumeric(d), err
	case Text, Varchar, Char, Name, Bytea, JSON:
		s, err := r.string()
		return NewString(f, s), err
	case UUID:
		var u [16]byte
		err := r.fixed(u[:])
		return NewUUID(u), err
	case Interval:
		days, err := r.uint64()
		if err != nil {
			return Null, err
		}
		micros, err := r.uint64()
		d := int64(days ^ 1<<63)
		return NewInterval(spanInterval(d, int64(micros))), err
	case JSONB:
		v, err := r.jsonbDoc(depth)
		if err != nil {
			return Null, err
		}
		return NewString(JSONB, FormatJSONB(v)), nil
	case Array:
		return r.array(depth)
	case Record:
		return r.record(depth)
	}
	return Null, errCorruptKey("tag")
}

func (r *keyReader) numeric() (*apd.Decimal, error) {
	c, err := r.byte()
	if err != nil {
		return nil, err
	}
	d := new(apd.Decimal)
	switch c {
	case keyNumNaN:
		d.Form = apd.NaN
	case keyNumNegInf:
		d.Form, d.Negative = apd.Infinite, true
	case keyNumPosInf:
		d.Form = apd.Infinite
	case keyNumZero:
	case keyNumPos, keyNumNeg:
		if c == keyNumNeg {
			r.mask = ^r.mask
		}
		err = r.magnitude(d)
		if c == keyNumNeg {
			r.mask = ^r.mask
			d.Negative = true
		}
	default:
		err = errCorruptKey("numeric class")
	}
	return d, err
}

func (r *keyReader) magnitude(d *apd.Decimal) error {
	exp, err := r.varint()
	if err != nil {
		return err
	}
	var digits []byte
	for {
		c, err := r.byte()
		if err != nil {
			return err
		}
		if c == 0 {
			break
		}
		if c > 100 {
			return errCorruptKey("numeric digits")
		}
		c--
		digits = append(digits, '0'+c/10, '0'+c%10)
	}
	if len(digits) == 0 || exp < math.MinInt32/2 || exp > math.MaxInt32/2 {
		return errCorruptKey("numeric digits")
	}
	e := exp - int64(len(digits))
	for len(digits) > 1 && digits[len(digits)-1] == '0' && e < 0 {
		digits = digits[:len(digits)-1]
		e++
	}
	if _, ok := d.Coeff.SetString(string(digits), 10); !ok {
		return errCorruptKey("numeric digits")
	}
	d.Exponent = int32(e)
	if err := normalizeNumeric(d); err != nil {
		return errCorruptKey("numeric range")
	}
	return nil
}

func (r *keyReader) array(depth int) (Datum, error) {
	if depth >= maxKeyDepth {
		return Null, errCorruptKey("nesting")
	}
	ef, err := r.byte()
	if err != nil {
		return Null, err
	}
	if Family(ef) >= numFamilies {
		return Null, errCorruptKey("array element type")
	}
	a := &ArrayValue{Elem: Type{Family: Family(ef), Mod: -1}}
	for {
		c, err := r.byte()
		if err != nil {
			return Null, err
		}
		if c == 0 {
			return r.arrayDims(a)
		}
		if c != 1 {
			return Null, errCorruptKey("array element marker")
		}
		e, err := r.datum(depth + 1)
		if err != nil {
			return Null, err
		}
		a.Elems = append(a.Elems, e)
	}
}

// arrayDims reads the dimensions that follow an array's elements.
func (r *keyReader) arrayDims(a *ArrayValue) (Datum, error) {
	n, err := r.byte()
	if err != nil {
		return Null, err
	}
	if n > MaxArrayDims || (n == 0) != (len(a.Elems) == 0) {
		return Null, errCorruptKey("array dimensions")
	}
	if n == 0 {
		return NewArray(a), nil
	}
	dims := make([]int32, n)
	var buf [4]byte
	total := int64(1)
	for i := range dims {
		if err := r.fixed(buf[:]); err != nil {
			return Null, err
		}
		dims[i] = int32(binary.BigEndian.Uint32(buf[:]))
		total *= int64(dims[i])
		if dims[i] <= 0 || total > int64(len(a.Elems)) {
			return Null, errCorruptKey("array dimensions")
		}
	}
	if total != int64(len(a.Elems)) {
		return Null, errCorruptKey("array dimensions")
	}
	if n > 1 {
		a.Dims = dims
	}
	return NewArray(a), nil
}

func (r *keyReader) jsonbDoc(depth int) (JSONValue, error) {
	class, err := r.byte()
	if err != nil {
		return JSONValue{}, err
	}
	switch class {
	case 2:
		return r.jsonBody(JSONObject, depth)
	case 1:
	default:
		return JSONValue{}, errCorruptKey("jsonb class")
	}
	n, err := r.varint()
	if err != nil {
		return JSONValue{}, err
	}
	flag, err := r.byte()
	if err != nil {
		return JSONValue{}, err
	}
	if flag == 0 {
		if n != 1 {
			return JSONValue{}, errCorruptKey("jsonb scalar")
		}
		v, err := r.jsonValue(depth)
		if err == nil && (v.Kind == JSONArray || v.Kind == JSONObject) {
			err = errCorruptKey("jsonb scalar")
		}
		return v, err
	}
	return r.jsonElems(n, depth)
}

func (r *keyReader) jsonValue(depth int) (JSONValue, error) {
	k, err := r.byte()
	if err != nil {
		return JSONValue{}, err
	}
	if k == 0 || k > 1+byte(JSONObject) {
		return JSONValue{}, errCorruptKey("jsonb kind")
	}
	return r.jsonBody(JSONKind(k-1), depth)
}

func (r *keyReader) jsonBody(kind JSONKind, depth int) (JSONValue, error) {
	if depth >= maxKeyDepth {
		return JSONValue{}, errCorruptKey("nesting")
	}
	v := JSONValue{Kind: kind}
	var err error
	switch kind {
	case JSONString:
		v.Str, err = r.string()
	case JSONNumber:
		v.Num, err = r.numeric()
	case JSONBool:
		var b byte
		b, err = r.byte()
		v.Bool = b == 1
		if err == nil && b > 1 {
			err = errCorruptKey("jsonb bool")
		}
	case JSONArray:
		var n int64
		if n, err = r.varint(); err == nil {
			return r.jsonElems(n, depth)
		}
	case JSONObject:
		var n int64
		if n, err = r.varint(); err != nil {
			return v, err
		}
		if n < 0 || n > int64(len(r.b)) {
			return v, errCorruptKey("jsonb length")
		}
		for i := int64(0); i < n; i++ {
			var p JSONPair
			if p.Key, err = r.string(); err != nil {
				return v, err
			}
			if p.Value, err = r.jsonValue(depth + 1); err != nil {
				return v, err
			}
			v.Pairs = append(v.Pairs, p)
		}
	}
	return v, err
}

func (r *keyReader) jsonElems(n int64, depth int) (JSONValue, error) {
	if n < 0 || n > int64(len(r.b)) {
		return JSONValue{}, errCorruptKey("jsonb length")
	}
	v := JSONValue{Kind: JSONArray, Elems: make([]JSONValue, 0, n)}
	for i := int64(0); i < n; i++ {
		e, err := r.jsonValue(depth + 1)
		if err != nil {
			return v, err
		}
		v.Elems = append(v.Elems, e)
	}
	return v, nil
}
