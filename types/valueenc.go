package types

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerr"
)

// The value encoding stores rows in Pebble and in operator state. Unlike
// the key encoding it does not preserve order; it is compact and exact:
// decoding gives back a Datum identical to the one encoded (numeric scale,
// char padding, json text, -0 and NaN payloads, the interval's fields, the
// array's element type). Both forms of a numeric write the same bytes,
// which decode to the inline form whenever it can hold the value.
//
// A value is a tag byte (the family; 0 for NULL) followed by a payload:
//
//	Bool                     1 byte
//	Int*, Oid, Date, Time,
//	Timestamp(TZ)            zig-zag varint
//	Float4                   4 bytes IEEE, little-endian
//	Float8                   8 bytes IEEE, little-endian
//	Numeric                  form byte; finite: zig-zag exponent, then the
//	                         coefficient as a uvarint or, when it does not fit
//	                         64 bits, a length-prefixed big-endian magnitude
//	strings, bytea, json(b)  uvarint length, bytes
//	UUID                     16 bytes
//	Interval                 zig-zag micros, days, months
//	Record                   uvarint descriptor id + 1 (0: none), uvarint
//	                         count, fields
//	Array                    element family (with valArrayDims set for a
//	                         multidimensional array, then the number of
//	                         dimensions and a uvarint length each),
//	                         zig-zag element mod, uvarint count, elements
//
// A row is a uvarint column count followed by its values.

// Numeric form bytes.
const (
	valNumPos     byte = 0
	valNumNeg     byte = 1
	valNumBigPos  byte = 2
	valNumBigNeg  byte = 3
	valNumNaN     byte = 4
	valNumPosInf  byte = 5
	valNumNegInf  byte = 6
	maxValueDepth      = 1000
	// valArrayDims marks the element family byte of a multidimensional
	// array, whose dimensions follow.
	valArrayDims byte = 0x80
)

// AppendValue appends the exact encoding of d to dst.
func AppendValue(dst []byte, d Datum) []byte {
	if d.kind >= numFamilies {
		return append(dst, byte(Unknown))
	}
	dst = append(dst, byte(d.kind))
	switch d.kind {
	case Bool:
		return append(dst, byte(d.i))
	case Int2, Int4, Int8, Oid, Date, Time, Timestamp, TimestampTZ:
		return binary.AppendVarint(dst, d.i)
	case Float4:
		return binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(d.Float())))
	case Float8:
		return binary.LittleEndian.AppendUint64(dst, uint64(d.i))
	case Numeric:
		if d.p == nil {
			return appendCoefValue(dst, d.i, d.e)
		}
		return appendNumericValue(dst, d.dec())
	case Text, Varchar, Char, Name, Bytea, JSON, JSONB, QChar, Void:
		dst = binary.AppendUvarint(dst, uint64(len(d.str())))
		return append(dst, d.str()...)
	case UUID:
		return append(dst, d.str()...)
	case Interval:
		v := d.Interval()
		dst = binary.AppendVarint(dst, v.Micros)
		dst = binary.AppendVarint(dst, int64(v.Days))
		return binary.AppendVarint(dst, int64(v.Months))
	case Array:
		a := d.arr()
		if a.Dims == nil {
			dst = append(dst, byte(a.Elem.Family))
		} else {
			dst = append(dst, byte(a.Elem.Family)|valArrayDims, byte(len(a.Dims)))
			for _, n := range a.Dims {
				dst = binary.AppendUvarint(dst, uint64(n))
			}
		}
		dst = binary.AppendVarint(dst, int64(d.arr().Elem.Mod))
		dst = binary.AppendUvarint(dst, uint64(len(d.arr().Elems)))
		for i := range d.arr().Elems {
			dst = AppendValue(dst, d.arr().Elems[i])
		}
	case Record:
		return appendRecordValue(dst, d.rec())
	}
	return dst
}

func appendNumericValue(dst []byte, d *apd.Decimal) []byte {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return append(dst, valNumNaN)
	case apd.Infinite:
		if d.Negative {
			return append(dst, valNumNegInf)
		}
		return append(dst, valNumPosInf)
	}
	neg := byte(0)
	if d.Negative {
		neg = 1
	}
	if d.Coeff.IsUint64() {
		dst = append(dst, valNumPos+neg)
		dst = binary.AppendVarint(dst, int64(d.Exponent))
		return binary.AppendUvarint(dst, d.Coeff.Uint64())
	}
	dst = append(dst, valNumBigPos+neg)
	dst = binary.AppendVarint(dst, int64(d.Exponent))
	mag := d.Coeff.Bytes()
	dst = binary.AppendUvarint(dst, uint64(len(mag)))
	return append(dst, mag...)
}

// appendCoefValue is appendNumericValue for an inline numeric, writing
// the same bytes for the same value.
func appendCoefValue(dst []byte, coef int64, exponent int32) []byte {
	dst = append(dst, valNumPos+boolByte(coef < 0))
	dst = binary.AppendVarint(dst, int64(exponent))
	return binary.AppendUvarint(dst, coefMagnitude(coef))
}

// AppendRow appends the exact encoding of row to dst.
func AppendRow(dst []byte, row Row) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(row)))
	for i := range row {
		dst = AppendValue(dst, row[i])
	}
	return dst
}

func errCorruptValue(what string) error {
	return pgerr.New(pgerr.DataCorrupted, "invalid value encoding: %s", what)
}

// valueReader decodes values. Strings are cut from one string copy of the
// input, made on first need, so a row costs at most one allocation for
// all of its text columns.
type valueReader struct {
	b   []byte
	s   string
	pos int
}

func (r *valueReader) uvarint() (uint64, error) {
	v, n := binary.Uvarint(r.b[r.pos:])
	if n <= 0 {
		return 0, errCorruptValue("varint")
	}
	r.pos += n
	return v, nil
}

func (r *valueReader) varint() (int64, error) {
	v, n := binary.Varint(r.b[r.pos:])
	if n <= 0 {
		return 0, errCorruptValue("varint")
	}
	r.pos += n
	return v, nil
}

func (r *valueReader) bytes(n uint64) ([]byte, error) {
	if n > uint64(len(r.b)-r.pos) {
		return nil, errCorruptValue("truncated")
	}
	b := r.b[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return b, nil
}

func (r *valueReader) str(n uint64) (string, error) {
	if n > uint64(len(r.b)-r.pos) {
		return "", errCorruptValue("truncated")
	}
	if r.s == "" {
		r.s = string(r.b)
	}
	s := r.s[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return s, nil
}

// DecodeValue decodes one value written by AppendValue and returns the
// rest of src.
func DecodeValue(src []byte) (Datum, []byte, error) {
	r := valueReader{b: src}
	d, err := r.datum(0)
	if err != nil {
		return Null, src, err
	}
	return d, src[r.pos:], nil
}

// DecodeRow decodes a row written by AppendRow, reusing dst's storage.
// The whole of src must be one row.
func DecodeRow(src []byte, dst Row) (Row, error) {
	return DecodeRowColumns(src, dst, nil)
}

// DecodeRowColumns is DecodeRow for the columns keep reports true for
// (all of them when keep is nil); the others are NULL. A query that
// reads two columns of a wide row pays neither for the other values nor,
// when no text column is kept, for the copy of the row's strings.
func DecodeRowColumns(src []byte, dst Row, keep func(col int) bool) (Row, error) {
	return decodeRow(valueReader{b: src}, dst, keep)
}

// DecodeRowShared is DecodeRow whose strings are cut from src itself,
// not from a copy of it: for a reader that keeps neither the row nor its
// values longer than src (a restore feeding a table's rows to operators
// that encode what they keep), decoding a row then allocates nothing.
func DecodeRowShared(src string, dst Row) (Row, error) {
	return decodeRow(valueReader{b: unsafe.Slice(unsafe.StringData(src), len(src)), s: src}, dst, nil)
}

func decodeRow(r valueReader, dst Row, keep func(col int) bool) (Row, error) {
	src := r.b
	n, err := r.uvarint()
	if err != nil {
		return dst[:0], err
	}
	if n > uint64(len(src)) {
		return dst[:0], errCorruptValue("column count")
	}
	if uint64(cap(dst)) < n {
		// One allocation of the right size, not a series of doublings.
		dst = make(Row, 0, n)
	}
	dst = dst[:0]
	for i := 0; i < int(n); i++ {
		if keep != nil && !keep(i) {
			if err := r.skip(); err != nil {
				return dst, err
			}
			dst = append(dst, Null)
			continue
		}
		d, err := r.datum(0)
		if err != nil {
			return dst, err
		}
		dst = append(dst, d)
	}
	if r.pos != len(src) {
		return dst, errCorruptValue("trailing bytes")
	}
	return dst, nil
}

// skip passes over one value: strings by their length, without the copy
// datum makes, anything else by decoding it.
func (r *valueReader) skip() error {
	if r.pos >= len(r.b) {
		return errCorruptValue("truncated")
	}
	var n uint64 = 16
	switch Family(r.b[r.pos]) {
	case Text, Varchar, Char, Name, Bytea, JSON, JSONB, QChar, Void:
		r.pos++
		var err error
		if n, err = r.uvarint(); err != nil {
			return err
		}
	case UUID:
		r.pos++
	default:
		_, err := r.datum(0)
		return err
	}
	_, err := r.bytes(n)
	return err
}

func (r *valueReader) datum(depth int) (Datum, error) {
	if r.pos >= len(r.b) {
		return Null, errCorruptValue("truncated")
	}
	f := Family(r.b[r.pos])
	r.pos++
	switch f {
	case Unknown:
		return Null, nil
	case Bool:
		b, err := r.bytes(1)
		if err != nil || b[0] > 1 {
			return Null, errCorruptValue("bool")
		}
		return NewBool(b[0] == 1), nil
	case Int2, Int4, Int8, Oid, Date, Time, Timestamp, TimestampTZ:
		v, err := r.varint()
		return Datum{head: head{kind: f}, i: v}, err
	case RegClass, RegType, RegProc, RegNamespace:
		v, err := r.varint()
		return NewOid(uint32(v)), err
	case Float4:
		b, err := r.bytes(4)
		if err != nil {
			return Null, err
		}
		return NewFloat4(math.Float32frombits(binary.LittleEndian.Uint32(b))), nil
	case Float8:
		b, err := r.bytes(8)
		if err != nil {
			return Null, err
		}
		return Datum{head: head{kind: Float8}, i: int64(binary.LittleEndian.Uint64(b))}, nil
	case Numeric:
		return r.numeric()
	case Text, Varchar, Char, Name, Bytea, JSON, JSONB, QChar, Void:
		n, err := r.uvarint()
		if err != nil {
			return Null, err
		}
		s, err := r.str(n)
		return NewString(f, s), err
	case UUID:
		s, err := r.str(16)
		return NewString(UUID, s), err
	case Interval:
		return r.interval()
	case Array:
		return r.array(depth)
	case Record:
		return r.record(depth)
	}
	return Null, errCorruptValue("tag")
}

// numeric decodes a numeric, inline when the value allows: decoding a
// typical numeric then allocates nothing.
func (r *valueReader) numeric() (Datum, error) {
	b, err := r.bytes(1)
	if err != nil {
		return Null, err
	}
	form := b[0]
	switch form {
	case valNumNaN:
		return NewNumeric(&apd.Decimal{Form: apd.NaN}), nil
	case valNumPosInf, valNumNegInf:
		return NewNumeric(&apd.Decimal{Form: apd.Infinite, Negative: form == valNumNegInf}), nil
	case valNumPos, valNumNeg, valNumBigPos, valNumBigNeg:
	default:
		return Null, errCorruptValue("numeric form")
	}
	exp, err := r.varint()
	if err != nil {
		return Null, err
	}
	if exp < math.MinInt32 || exp > math.MaxInt32 {
		return Null, errCorruptValue("numeric exponent")
	}
	neg := form == valNumNeg || form == valNumBigNeg
	if form <= valNumNeg {
		c, err := r.uvarint()
		if err != nil {
			return Null, err
		}
		if coef, ok := signedCoef(c, neg); ok {
			return NewNumericCoef(coef, int32(exp)), nil
		}
		d := &apd.Decimal{Exponent: int32(exp), Negative: neg}
		d.Coeff.SetUint64(c)
		return NewNumeric(d), nil
	}
	d := &apd.Decimal{Exponent: int32(exp), Negative: neg}
	n, err := r.uvarint()
	if err != nil {
		return Null, err
	}
	mag, err := r.bytes(n)
	if err != nil {
		return Null, err
	}
	d.Coeff.SetBytes(mag)
	return NewNumeric(d), nil
}

func (r *valueReader) interval() (Datum, error) {
	var v [3]int64
	for i := range v {
		var err error
		if v[i], err = r.varint(); err != nil {
			return Null, err
		}
	}
	if v[1] != int64(int32(v[1])) || v[2] != int64(int32(v[2])) {
		return Null, errCorruptValue("interval")
	}
	return NewInterval(IntervalValue{Micros: v[0], Days: int32(v[1]), Months: int32(v[2])}), nil
}

func (r *valueReader) array(depth int) (Datum, error) {
	if depth >= maxValueDepth {
		return Null, errCorruptValue("nesting")
	}
	b, err := r.bytes(1)
	if err != nil {
		return Null, err
	}
	fam := b[0] &^ valArrayDims
	if Family(fam) >= numFamilies {
		return Null, errCorruptValue("array element type")
	}
	var dims []int32
	if b[0]&valArrayDims != 0 {
		nd, err := r.bytes(1)
		if err != nil {
			return Null, err
		}
		if nd[0] < 2 || nd[0] > MaxArrayDims {
			return Null, errCorruptValue("array dimensions")
		}
		dims = make([]int32, nd[0])
		for i := range dims {
			n, err := r.uvarint()
			if err != nil {
				return Null, err
			}
			if n == 0 || n > maxArraySize {
				return Null, errCorruptValue("array dimensions")
			}
			dims[i] = int32(n)
		}
	}
	mod, err := r.varint()
	if err != nil {
		return Null, err
	}
	n, err := r.uvarint()
	if err != nil {
		return Null, err
	}
	if mod != int64(int32(mod)) || n > uint64(len(r.b)-r.pos) {
		return Null, errCorruptValue("array header")
	}
	a := &ArrayValue{Elem: Type{Family: Family(fam), Mod: int32(mod)}, Elems: make([]Datum, 0, n), Dims: dims}
	for i := uint64(0); i < n; i++ {
		e, err := r.datum(depth + 1)
		if err != nil {
			return Null, err
		}
		a.Elems = append(a.Elems, e)
	}
	if dims != nil {
		total := uint64(1)
		for _, d := range dims {
			total *= uint64(d)
		}
		if total != n {
			return Null, errCorruptValue("array dimensions")
		}
	}
	return NewArray(a), nil
}
