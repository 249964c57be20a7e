package types

import (
	"strconv"

	"github.com/streamdb/streamdb/pgerr"
)

const hexDigits = "0123456789abcdef"

// appendBytea prints bytea in the hex format (\x0102ff) or, with
// bytea_output = escape, in the escape format: printable ASCII as is,
// backslash doubled, everything else as \ooo octal.
func appendBytea(dst []byte, b string, escape bool) []byte {
	if !escape {
		dst = append(dst, '\\', 'x')
		for i := 0; i < len(b); i++ {
			dst = append(dst, hexDigits[b[i]>>4], hexDigits[b[i]&0xf])
		}
		return dst
	}
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '\\':
			dst = append(dst, '\\', '\\')
		case c < 0x20 || c > 0x7e:
			dst = append(dst, '\\', '0'+c>>6, '0'+c>>3&7, '0'+c&7)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// parseBytea reads bytea input: \x followed by hex digit pairs (spaces
// allowed between pairs), or the escape format where \\ is a backslash
// and \ooo an octal byte.
func parseBytea(s string) (Datum, error) {
	if len(s) >= 2 && s[0] == '\\' && s[1] == 'x' {
		out := make([]byte, 0, (len(s)-2)/2)
		for i := 2; i < len(s); {
			c := s[i]
			if isSpace(c) {
				i++
				continue
			}
			hi := hexVal(c)
			if hi < 0 {
				return Null, errHexDigit(s[i:])
			}
			if i+1 >= len(s) {
				return Null, pgerr.New(pgerr.InvalidParameterValue, "invalid hexadecimal data: odd number of digits")
			}
			lo := hexVal(s[i+1])
			if lo < 0 {
				return Null, errHexDigit(s[i+1:])
			}
			out = append(out, byte(hi<<4|lo))
			i += 2
		}
		return NewBytea(out), nil
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		switch {
		case i+1 < len(s) && s[i+1] == '\\':
			out = append(out, '\\')
			i++
		case i+3 < len(s) && isOctal(s[i+1]) && s[i+1] <= '3' && isOctal(s[i+2]) && isOctal(s[i+3]):
			v, _ := strconv.ParseUint(s[i+1:i+4], 8, 8)
			out = append(out, byte(v))
			i += 3
		default:
			return Null, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type bytea")
		}
	}
	return NewBytea(out), nil
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

func errHexDigit(rest string) error {
	n := 1
	for n < len(rest) && rest[n]&0xc0 == 0x80 {
		n++
	}
	return pgerr.New(pgerr.InvalidParameterValue, "invalid hexadecimal digit: %s", quoteValue(rest[:n]))
}
