package types

import "github.com/streamdb/streamdb/pgerr"

// "char" is PostgreSQL's one-byte type: the code columns of the catalogs
// (pg_type.typtype, pg_class.relkind, pg_attribute.attalign…) have it,
// and clients such as asyncpg decode those columns by its OID (18). A
// value is a string of at most one byte; the zero byte is the empty
// string.

// appendQChar is charout: the byte itself, nothing for the zero byte,
// and a byte with the high bit set as \ooo (PostgreSQL 15).
func appendQChar(dst []byte, s string) []byte {
	if s == "" || s[0] == 0 {
		return dst
	}
	c := s[0]
	if c&0x80 != 0 {
		return append(dst, '\\', '0'+c>>6, '0'+c>>3&7, '0'+c&7)
	}
	return append(dst, c)
}

// parseQChar is charin: \ooo gives that byte, anything else its first
// byte (the empty string the zero byte).
func parseQChar(s string) Datum {
	isOctal := func(c byte) bool { return c >= '0' && c <= '7' }
	if len(s) == 4 && s[0] == '\\' && isOctal(s[1]) && isOctal(s[2]) && isOctal(s[3]) {
		c := (s[1]-'0')<<6 | (s[2]-'0')<<3 | (s[3] - '0')
		return NewString(QChar, string([]byte{c}))
	}
	if s == "" {
		return NewString(QChar, "")
	}
	return NewString(QChar, s[:1])
}

// castQChar converts between "char" and integer, as chartoi4 and
// i4tochar do: the byte is a signed value.
func castQChar(d Datum, to Family) (Datum, error) {
	if to == QChar {
		v := d.Int()
		if v < -128 || v > 127 {
			return Null, pgerr.New(pgerr.NumericValueOutOfRange, `"char" out of range`)
		}
		if v == 0 {
			return NewString(QChar, ""), nil
		}
		return NewString(QChar, string([]byte{byte(int8(v))})), nil
	}
	var v int64
	if s := d.str(); s != "" {
		v = int64(int8(s[0]))
	}
	return NewInt(to, v), nil
}
