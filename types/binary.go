package types

import (
	"encoding/binary"
	"math"

	"github.com/streamdb/streamdb/pgerr"
)

// AppendBinary appends d in PostgreSQL's binary send format for type t,
// as used by the wire protocol's binary result columns and COPY BINARY:
// big-endian integers and IEEE floats, numeric as base-10000 digits,
// dates as days and timestamps as microseconds since 2000-01-01, jsonb
// with a version byte, arrays with their header. NULL appends nothing.
func AppendBinary(dst []byte, d Datum, t Type) []byte {
	switch d.kind {
	case Bool:
		return append(dst, byte(d.i))
	case Int2:
		return binary.BigEndian.AppendUint16(dst, uint16(d.i))
	case Int4, Oid:
		return binary.BigEndian.AppendUint32(dst, uint32(d.i))
	case Int8, Time:
		return binary.BigEndian.AppendUint64(dst, uint64(d.i))
	case Float4:
		return binary.BigEndian.AppendUint32(dst, math.Float32bits(float32(d.Float())))
	case Float8:
		return binary.BigEndian.AppendUint64(dst, uint64(d.i))
	case Numeric:
		if d.p == nil {
			return appendCoefBinary(dst, d.i, d.e)
		}
		return appendNumericBinary(dst, d.dec())
	case Text, Varchar, Char, Name, Bytea, JSON, UUID, QChar:
		return append(dst, d.str()...)
	case Void:
		return dst
	case JSONB:
		return append(append(dst, 1), d.str()...)
	case Date:
		v := int32(math.MaxInt32)
		switch {
		case d.i == NegInf:
			v = math.MinInt32
		case d.i != PosInf:
			v = int32(d.i - pgEpochDays)
		}
		return binary.BigEndian.AppendUint32(dst, uint32(v))
	case Timestamp, TimestampTZ:
		v := d.i
		if v != PosInf && v != NegInf {
			v -= pgEpochOffset
		}
		return binary.BigEndian.AppendUint64(dst, uint64(v))
	case Interval:
		iv := d.Interval()
		dst = binary.BigEndian.AppendUint64(dst, uint64(iv.Micros))
		dst = binary.BigEndian.AppendUint32(dst, uint32(iv.Days))
		return binary.BigEndian.AppendUint32(dst, uint32(iv.Months))
	case Array:
		return appendArrayBinary(dst, d.arr())
	case Record:
		return appendRecordBinary(dst, d.rec())
	}
	return dst
}

func appendArrayBinary(dst []byte, a *ArrayValue) []byte {
	hasNull := uint32(0)
	for _, e := range a.Elems {
		if e.IsNull() {
			hasNull = 1
		}
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(a.NDims()))
	dst = binary.BigEndian.AppendUint32(dst, hasNull)
	dst = binary.BigEndian.AppendUint32(dst, a.Elem.OID())
	for _, n := range a.Lengths() {
		dst = binary.BigEndian.AppendUint32(dst, uint32(n))
		dst = binary.BigEndian.AppendUint32(dst, 1)
	}
	for _, e := range a.Elems {
		if e.IsNull() {
			dst = binary.BigEndian.AppendUint32(dst, math.MaxUint32)
			continue
		}
		at := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		dst = AppendBinary(dst, e, a.Elem)
		binary.BigEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	}
	return dst
}

func errBinary(format string, args ...any) error {
	return pgerr.New(pgerr.InvalidBinaryRepresentation, format, args...)
}

// errBinaryLength is the error for a value of the wrong size.
func errBinaryLength() error { return errBinary("incorrect binary data format") }

// ParseBinary decodes a value in PostgreSQL's binary receive format for
// type t, applying t's modifier as the receive functions do. Malformed
// input is a 22P03 error.
func ParseBinary(b []byte, t Type) (Datum, error) {
	d, err := parseBinaryValue(b, t)
	if err != nil {
		return Null, err
	}
	if t.Mod >= 0 {
		return applyInputTypmod(d, t)
	}
	return d, nil
}

func fixed(b []byte, n int) error {
	if len(b) != n {
		return errBinaryLength()
	}
	return nil
}

func parseBinaryValue(b []byte, t Type) (Datum, error) {
	switch t.Family {
	case Bool:
		if err := fixed(b, 1); err != nil {
			return Null, err
		}
		return NewBool(b[0] != 0), nil
	case Int2:
		if err := fixed(b, 2); err != nil {
			return Null, err
		}
		return NewInt2(int16(binary.BigEndian.Uint16(b))), nil
	case Int4:
		if err := fixed(b, 4); err != nil {
			return Null, err
		}
		return NewInt4(int32(binary.BigEndian.Uint32(b))), nil
	case Oid, RegClass, RegType, RegProc, RegNamespace:
		if err := fixed(b, 4); err != nil {
			return Null, err
		}
		return NewOid(binary.BigEndian.Uint32(b)), nil
	case Int8:
		if err := fixed(b, 8); err != nil {
			return Null, err
		}
		return NewInt8(int64(binary.BigEndian.Uint64(b))), nil
	case Float4:
		if err := fixed(b, 4); err != nil {
			return Null, err
		}
		return NewFloat4(math.Float32frombits(binary.BigEndian.Uint32(b))), nil
	case Float8:
		if err := fixed(b, 8); err != nil {
			return Null, err
		}
		return NewFloat8(math.Float64frombits(binary.BigEndian.Uint64(b))), nil
	case Numeric:
		return parseNumericBinary(b)
	case Text, Varchar, Char, Name, Unknown:
		s := string(b)
		if err := checkUTF8(s); err != nil {
			return Null, err
		}
		f := t.Family
		if f == Unknown {
			f = Text
		}
		if f == Name {
			s = truncateName(s)
		}
		return NewString(f, s), nil
	case Bytea:
		return NewBytea(b), nil
	case QChar:
		return NewString(QChar, string(b[:min(len(b), 1)])), nil
	case Void:
		return NewString(Void, ""), nil
	case UUID:
		if err := fixed(b, 16); err != nil {
			return Null, err
		}
		return NewString(UUID, string(b)), nil
	case JSON:
		if err := ValidateJSON(string(b)); err != nil {
			return Null, err
		}
		return NewString(JSON, string(b)), nil
	case JSONB:
		if len(b) == 0 || b[0] != 1 {
			v := 0
			if len(b) > 0 {
				v = int(b[0])
			}
			return Null, errBinary("unsupported jsonb version number %d", v)
		}
		c, err := CanonicalJSONB(string(b[1:]))
		if err != nil {
			return Null, err
		}
		return NewString(JSONB, c), nil
	case Date:
		if err := fixed(b, 4); err != nil {
			return Null, err
		}
		v := int64(int32(binary.BigEndian.Uint32(b)))
		switch v {
		case math.MaxInt32:
			return NewDate(PosInf), nil
		case math.MinInt32:
			return NewDate(NegInf), nil
		}
		jd := v + postgresEpochJDate
		if jd < 0 || jd >= endDateJulian {
			return Null, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range")
		}
		return NewDate(v + pgEpochDays), nil
	case Time:
		if err := fixed(b, 8); err != nil {
			return Null, err
		}
		v := int64(binary.BigEndian.Uint64(b))
		if v < 0 || v > usecsPerDay {
			return Null, pgerr.New(pgerr.DatetimeFieldOverflow, "time out of range")
		}
		return NewTime(v), nil
	case Timestamp, TimestampTZ:
		if err := fixed(b, 8); err != nil {
			return Null, err
		}
		v := int64(binary.BigEndian.Uint64(b))
		if v == math.MaxInt64 || v == math.MinInt64 {
			return Datum{head: head{kind: t.Family}, i: v}, nil
		}
		if v < minTimestamp-pgEpochOffset || v >= math.MaxInt64-pgEpochOffset {
			return Null, pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")
		}
		return Datum{head: head{kind: t.Family}, i: v + pgEpochOffset}, nil
	case Interval:
		if err := fixed(b, 16); err != nil {
			return Null, err
		}
		return NewInterval(IntervalValue{
			Micros: int64(binary.BigEndian.Uint64(b)),
			Days:   int32(binary.BigEndian.Uint32(b[8:])),
			Months: int32(binary.BigEndian.Uint32(b[12:])),
		}), nil
	case Array:
		return parseArrayBinary(b, t.ElemType())
	case Record:
		return Null, errRecordInput()
	}
	return Null, pgerr.New(pgerr.FeatureNotSupported, "binary format for type %s is not supported", t)
}

func parseArrayBinary(b []byte, elem Type) (Datum, error) {
	if len(b) < 12 {
		return Null, errBinary("insufficient data left in message")
	}
	ndim := int32(binary.BigEndian.Uint32(b))
	flags := binary.BigEndian.Uint32(b[4:])
	oid := binary.BigEndian.Uint32(b[8:])
	b = b[12:]
	switch {
	case ndim < 0 || ndim > MaxArrayDims:
		return Null, errBinary("invalid number of dimensions: %d", ndim)
	case flags > 1:
		return Null, errBinary("invalid array flags")
	case oid != elem.OID():
		return Null, errBinary("binary data has array element type %d instead of expected %d", oid, elem.OID())
	}
	a := &ArrayValue{Elem: elem}
	if ndim == 0 {
		if len(b) != 0 {
			return Null, errBinaryLength()
		}
		return NewArray(a), nil
	}
	if len(b) < 8*int(ndim) {
		return Null, errBinary("insufficient data left in message")
	}
	dims := make([]int32, ndim)
	n := int64(1)
	for i := range dims {
		dims[i] = int32(binary.BigEndian.Uint32(b))
		lb := int32(binary.BigEndian.Uint32(b[4:]))
		b = b[8:]
		if dims[i] < 0 {
			return Null, errBinary("insufficient data left in message")
		}
		if lb != 1 {
			return Null, ErrArrayBounds()
		}
		if n *= int64(dims[i]); n > int64(len(b)/4) {
			return Null, errBinary("insufficient data left in message")
		}
	}
	if n == 0 {
		if len(b) != 0 {
			return Null, errBinaryLength()
		}
		return NewArray(a), nil
	}
	if ndim > 1 {
		a.Dims = dims
	}
	a.Elems = make([]Datum, 0, n)
	for i := int64(0); i < n; i++ {
		if len(b) < 4 {
			return Null, errBinary("insufficient data left in message")
		}
		l := int32(binary.BigEndian.Uint32(b))
		b = b[4:]
		if l == -1 {
			a.Elems = append(a.Elems, Null)
			continue
		}
		if l < 0 || int(l) > len(b) {
			return Null, errBinary("insufficient data left in message")
		}
		e, err := ParseBinary(b[:l], elem)
		if err != nil {
			return Null, err
		}
		a.Elems = append(a.Elems, e)
		b = b[l:]
	}
	if len(b) != 0 {
		return Null, errBinaryLength()
	}
	return NewArray(a), nil
}
