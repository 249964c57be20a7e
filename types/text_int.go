package types

import (
	"math"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/pgerr"
)

func appendInt(dst []byte, v int64) []byte { return strconv.AppendInt(dst, v, 10) }

// parseBool accepts what PostgreSQL's parse_bool does: surrounding
// whitespace, any case, and unique prefixes of true/false/yes/no, on/off
// (at least two letters), 1 and 0.
func parseBool(s string) (Datum, error) {
	v := strings.ToLower(trimSpace(s))
	if v != "" {
		switch {
		case strings.HasPrefix("true", v), strings.HasPrefix("yes", v), v == "1", len(v) >= 2 && strings.HasPrefix("on", v):
			return DTrue, nil
		case strings.HasPrefix("false", v), strings.HasPrefix("no", v), v == "0", len(v) >= 2 && strings.HasPrefix("off", v):
			return DFalse, nil
		}
	}
	return Null, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type boolean: %s", quoteValue(s))
}

// IntRange returns the bounds of an integer family.
func IntRange(f Family) (lo, hi int64) {
	switch f {
	case Int2:
		return math.MinInt16, math.MaxInt16
	case Int4:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// scanInt parses PostgreSQL's integer syntax: optional surrounding
// whitespace, an optional sign, decimal digits. ok is false when there
// are no digits; overflow is true when the digits do not fit in 64 bits;
// trailing reports non-space characters after the digits. As in
// pg_strtoint, range is judged before trailing garbage.
func scanInt(s string) (v int64, ok, overflow, trailing bool) {
	t := strings.TrimLeftFunc(s, func(r rune) bool { return r < 0x80 && isSpace(byte(r)) })
	neg := false
	if t != "" && (t[0] == '-' || t[0] == '+') {
		neg = t[0] == '-'
		t = t[1:]
	}
	var u uint64
	i := 0
	for ; i < len(t) && isDigit(t[i]); i++ {
		if u > (math.MaxUint64-9)/10 {
			overflow = true
		}
		u = u*10 + uint64(t[i]-'0')
	}
	if i == 0 {
		return 0, false, false, true
	}
	trailing = trimSpace(t[i:]) != ""
	switch {
	case overflow:
		return 0, true, true, trailing
	case neg && u <= 1<<63:
		return int64(-u), true, false, trailing
	case !neg && u <= math.MaxInt64:
		return int64(u), true, false, trailing
	}
	return 0, true, true, trailing
}

func parseInt(s string, f Family) (Datum, error) {
	v, ok, overflow, trailing := scanInt(s)
	if !ok {
		return Null, errSyntax(Type{Family: f}, s)
	}
	lo, hi := IntRange(f)
	if overflow || v < lo || v > hi {
		return Null, pgerr.New(pgerr.NumericValueOutOfRange, "value %s is out of range for type %s", quoteValue(s), f)
	}
	if trailing {
		return Null, errSyntax(Type{Family: f}, s)
	}
	return NewInt(f, v), nil
}

// parseOid accepts unsigned 32-bit values and, as oidin does, negative
// values down to -2^31, which wrap around.
func parseOid(s string) (Datum, error) {
	v, ok, overflow, trailing := scanInt(s)
	if !ok || trailing {
		return Null, errSyntax(TypeOid, s)
	}
	if overflow || v < math.MinInt32 || v > math.MaxUint32 {
		return Null, pgerr.New(pgerr.NumericValueOutOfRange, "value %s is out of range for type oid", quoteValue(s))
	}
	return NewOid(uint32(v)), nil
}
