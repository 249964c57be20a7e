package pgwire

// TEMPORARY until sql/types lands AppendText, ParseText, AppendBinary and
// ParseBinary: a minimal codec for the families the tests use. Replaced by
// direct calls to sql/types.

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/sql/pgerr"
	"github.com/streamdb/streamdb/sql/types"
)

func appendText(dst []byte, d types.Datum, t types.Type, cfg *types.TextConfig) []byte {
	switch d.Kind() {
	case types.Bool:
		if d.Bool() {
			return append(dst, 't')
		}
		return append(dst, 'f')
	case types.Int2, types.Int4, types.Int8, types.Oid:
		return strconv.AppendInt(dst, d.Int(), 10)
	case types.Float4:
		return strconv.AppendFloat(dst, d.Float(), 'g', -1, 32)
	case types.Float8:
		return strconv.AppendFloat(dst, d.Float(), 'g', -1, 64)
	case types.Numeric:
		return append(dst, d.Decimal().String()...)
	case types.Bytea:
		dst = append(dst, `\x`...)
		return hex.AppendEncode(dst, []byte(d.Str()))
	}
	return append(dst, d.Str()...)
}

func appendBinary(dst []byte, d types.Datum, t types.Type) []byte {
	switch t.Family {
	case types.Bool:
		if d.Bool() {
			return append(dst, 1)
		}
		return append(dst, 0)
	case types.Int2:
		return binary.BigEndian.AppendUint16(dst, uint16(d.Int()))
	case types.Int4, types.Oid:
		return binary.BigEndian.AppendUint32(dst, uint32(d.Int()))
	case types.Int8:
		return binary.BigEndian.AppendUint64(dst, uint64(d.Int()))
	case types.Float4:
		return binary.BigEndian.AppendUint32(dst, math.Float32bits(float32(d.Float())))
	case types.Float8:
		return binary.BigEndian.AppendUint64(dst, math.Float64bits(d.Float()))
	}
	return append(dst, d.Str()...)
}

func parseText(s string, t types.Type, cfg *types.TextConfig) (types.Datum, error) {
	switch t.Family {
	case types.Bool:
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "t", "true", "yes", "on", "1":
			return types.DTrue, nil
		case "f", "false", "no", "off", "0":
			return types.DFalse, nil
		}
		return types.Null, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type boolean: %q", s)
	case types.Int2, types.Int4, types.Int8, types.Oid:
		v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return types.Null, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type %s: \"%s\"", t, s)
		}
		return types.NewInt(t.Family, v), nil
	case types.Float8:
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return types.Null, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type double precision: \"%s\"", s)
		}
		return types.NewFloat8(v), nil
	}
	return types.NewString(t.Family, s), nil
}

func parseBinary(b []byte, t types.Type) (types.Datum, error) {
	bad := pgerr.New(pgerr.InvalidBinaryRepresentation, "incorrect binary data format")
	switch t.Family {
	case types.Bool:
		if len(b) != 1 {
			return types.Null, bad
		}
		return types.NewBool(b[0] != 0), nil
	case types.Int2:
		if len(b) != 2 {
			return types.Null, bad
		}
		return types.NewInt2(int16(binary.BigEndian.Uint16(b))), nil
	case types.Int4:
		if len(b) != 4 {
			return types.Null, bad
		}
		return types.NewInt4(int32(binary.BigEndian.Uint32(b))), nil
	case types.Int8:
		if len(b) != 8 {
			return types.Null, bad
		}
		return types.NewInt8(int64(binary.BigEndian.Uint64(b))), nil
	case types.Float8:
		if len(b) != 8 {
			return types.Null, bad
		}
		return types.NewFloat8(math.Float64frombits(binary.BigEndian.Uint64(b))), nil
	}
	return types.NewString(t.Family, string(b)), nil
}
