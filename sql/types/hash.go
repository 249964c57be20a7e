package types

import (
	"encoding/binary"
	"github.com/cockroachdb/apd/v3"
	"hash/maphash"
	"strings"
)

// Hash adds d to h so that values Equal under Compare hash alike: the
// integer families hash by value (Int4 1 and Int8 1 are equal), -0 and +0
// and all NaNs agree, numerics hash their value without scale (1.0 and
// 1.00), char ignores trailing blanks, intervals hash their span, jsonb
// its parsed value. NULL hashes as a value of its own, matching Equal's
// NULL = NULL for grouping.
//
// Hashing the Datum directly costs about the same as hashing its key
// encoding (see BenchmarkHash and BenchmarkHashViaKey) but needs no
// buffer and, unlike the key encoding, agrees with Equal across integer
// families, so callers should use Hash rather than hash AppendKey output.
func Hash(h *maphash.Hash, d Datum) {
	var buf [24]byte
	b := buf[:1]
	switch d.kind {
	case Unknown:
		b[0] = 0
	case Bool:
		b = append(buf[:0], byte(Bool), byte(d.i))
	case Int2, Int4, Int8:
		b[0] = byte(Int8)
		b = binary.LittleEndian.AppendUint64(b, uint64(d.i))
	case Oid, Date, Time, Timestamp, TimestampTZ:
		b[0] = byte(d.kind)
		b = binary.LittleEndian.AppendUint64(b, uint64(d.i))
	case Float4, Float8:
		b[0] = byte(d.kind)
		b = binary.LittleEndian.AppendUint64(b, float64Key(d.Float()))
	case Char:
		h.WriteString(strings.TrimRight(d.s, " "))
		b[0] = byte(Char)
	case Text, Varchar, Name, Bytea, JSON, UUID:
		h.WriteString(d.s)
		b[0] = byte(d.kind)
	case Interval:
		days, micros := IntervalSpan(d.Interval())
		b[0] = byte(Interval)
		b = binary.LittleEndian.AppendUint64(b, uint64(days))
		b = binary.LittleEndian.AppendUint64(b, uint64(micros))
	case Numeric:
		hashNumeric(h, d)
		return
	case JSONB:
		// The key encoding of jsonb is canonical (number scale removed).
		h.Write(appendKeyAsc(nil, d))
		return
	case Array:
		b = append(buf[:0], byte(Array), byte(d.arr.Elem.Family))
		h.Write(b)
		for _, e := range d.arr.Elems {
			Hash(h, e)
		}
		b = append(buf[:0], 0xff)
	}
	h.Write(b)
}

// hashNumeric hashes a numeric's value without its scale: the sign, the
// digits with trailing zeros removed and the decimal exponent of the
// first digit, as the key encoding orders them.
func hashNumeric(h *maphash.Hash, d Datum) {
	var buf [48]byte
	b := buf[:1]
	b[0] = byte(Numeric)
	dec := d.dec
	switch {
	case dec.Form != apd.Finite:
		b = append(b, byte(dec.Form), boolByte(dec.Negative && dec.Form == apd.Infinite))
	case dec.Coeff.Sign() == 0:
		b = append(b, 'z')
	default:
		b = append(b, boolByte(dec.Negative))
		start := len(b)
		b = dec.Coeff.Append(b, 10)
		exp := int64(dec.Exponent) + int64(len(b)-start)
		for len(b) > start+1 && b[len(b)-1] == '0' {
			b = b[:len(b)-1]
		}
		b = binary.LittleEndian.AppendUint64(b, uint64(exp))
	}
	h.Write(b)
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// HashRow adds every column of row to h.
func HashRow(h *maphash.Hash, row Row) {
	for i := range row {
		Hash(h, row[i])
	}
}
