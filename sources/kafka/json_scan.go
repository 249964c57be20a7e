package kafka

import (
	"unicode/utf16"
	"unicode/utf8"
)

// The fast JSON paths below never report errors of their own: whenever the
// input leaves the common ground they handle (escapes in object keys,
// exponents, negative zero, invalid syntax, extreme nesting) they answer
// "not ok" and the caller reruns the record through types' parser,
// which is PostgreSQL's grammar with its exact messages. So the fast paths
// only need to be right on what they accept, and FuzzJSONFastPath checks
// exactly that against the slow path.

// maxFastDepth bounds the fast paths' recursion; deeper documents go to the
// slow path, which has PostgreSQL's own limit.
const maxFastDepth = 512

// maxFastNumber bounds the length of numbers copied verbatim; longer ones
// go to the slow path, which checks numeric's digit limits.
const maxFastNumber = 256

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// isJSONWordByte reports whether c continues a JSON token, as
// PostgreSQL's lexer groups them: "truex" and "1x" are single bad tokens.
func isJSONWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
}

func skipJSONSpace(s string, i int) int {
	for i < len(s) && isJSONSpace(s[i]) {
		i++
	}
	return i
}

// scanString scans the string whose opening quote is at s[i]. It returns
// the index after the closing quote and whether the body has escapes.
func scanString(s string, i int) (end int, escaped, ok bool) {
	for i++; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return i + 1, escaped, true
		case c == '\\':
			escaped = true
			i++
		case c < 0x20:
			return 0, false, false
		}
	}
	return 0, false, false
}

// unescapeString decodes the body of a JSON string with escapes, s being
// the quoted text. \u0000, lone surrogates and bad escapes are not ok.
func unescapeString(dst []byte, s string) ([]byte, bool) {
	body := s[1 : len(s)-1]
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		if i >= len(body) {
			return dst, false
		}
		switch body[i] {
		case '"', '\\', '/':
			dst = append(dst, body[i])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := hex4(body, i+1)
			if !ok || r == 0 {
				return dst, false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				if r >= 0xdc00 || i+6 >= len(body) || body[i+1] != '\\' || body[i+2] != 'u' {
					return dst, false
				}
				lo, ok := hex4(body, i+3)
				if !ok || lo < 0xdc00 || lo > 0xdfff {
					return dst, false
				}
				r = utf16.DecodeRune(r, lo)
				i += 6
			}
			dst = utf8.AppendRune(dst, r)
		default:
			return dst, false
		}
	}
	return dst, true
}

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(v)
	}
	return r, true
}

// scanNumber scans the number at s[i]. canonical reports that numeric_in
// would print it unchanged: no exponent, not a negative zero, and short.
func scanNumber(s string, i int) (end int, canonical, ok bool) {
	start := i
	if s[i] == '-' {
		i++
	}
	digitsAt := i
	nonZero := false
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		nonZero = true
	default:
		return 0, false, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		fracAt := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			nonZero = nonZero || s[i] != '0'
			i++
		}
		if i == fracAt {
			return 0, false, false
		}
	}
	canonical = true
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		canonical = false
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		expAt := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == expAt {
			return 0, false, false
		}
	}
	if i < len(s) && isJSONWordByte(s[i]) {
		return 0, false, false
	}
	if s[start] == '-' && !nonZero || i-digitsAt > maxFastNumber {
		canonical = false
	}
	return i, canonical, true
}

// scanLiteral scans true, false or null at s[i].
func scanLiteral(s string, i int) (end int, ok bool) {
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(s)-i >= len(lit) && s[i:i+len(lit)] == lit {
			end = i + len(lit)
			return end, end == len(s) || !isJSONWordByte(s[end])
		}
	}
	return 0, false
}

// skipValue validates and skips the value at s[i] (no leading space).
func skipValue(s string, i, depth int) (int, bool) {
	if i >= len(s) || depth > maxFastDepth {
		return 0, false
	}
	switch c := s[i]; {
	case c == '"':
		end, _, ok := scanString(s, i)
		return end, ok
	case c == '-' || c >= '0' && c <= '9':
		end, _, ok := scanNumber(s, i)
		return end, ok
	case c == '{' || c == '[':
		closer := byte(']')
		if c == '{' {
			closer = '}'
		}
		i = skipJSONSpace(s, i+1)
		if i < len(s) && s[i] == closer {
			return i + 1, true
		}
		for {
			if c == '{' {
				if i >= len(s) || s[i] != '"' {
					return 0, false
				}
				end, _, ok := scanString(s, i)
				if !ok {
					return 0, false
				}
				i = skipJSONSpace(s, end)
				if i >= len(s) || s[i] != ':' {
					return 0, false
				}
				i = skipJSONSpace(s, i+1)
			}
			end, ok := skipValue(s, i, depth+1)
			if !ok {
				return 0, false
			}
			i = skipJSONSpace(s, end)
			if i >= len(s) {
				return 0, false
			}
			if s[i] == closer {
				return i + 1, true
			}
			if s[i] != ',' {
				return 0, false
			}
			i = skipJSONSpace(s, i+1)
		}
	default:
		return scanLiteral(s, i)
	}
}
