package parser

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/streamdb/streamdb/pgerr"
)

// scanString scans a quoted string whose opening quote is at q (start is
// where the token begins, before any E, N or U& prefix). With esc, backslash
// escapes are decoded as in E'…'. A closing quote followed by whitespace that
// contains a newline and another quote continues the string, as the SQL
// standard requires.
func (l *lexer) scanString(start, q int, esc bool) (token, *pgerr.Error) {
	src := l.src
	var buf []byte
	decoded, highBit := false, false
	seg := q + 1
	for i := q + 1; ; {
		if i >= len(src) {
			return token{}, nearError(src, start, "unterminated quoted string", src[start:])
		}
		switch c := src[i]; {
		case c == '\'' && byteAt(src, i+1) == '\'':
			if !l.raw {
				buf = append(buf, src[seg:i+1]...)
				decoded = true
			}
			i += 2
			seg = i
		case c == '\'':
			if next := quoteContinue(src, i+1); next >= 0 {
				if !l.raw {
					buf = append(buf, src[seg:i]...)
					decoded = true
				}
				i = next + 1
				seg = i
				continue
			}
			l.pos = i + 1
			t := token{kind: tokString, start: start, end: i + 1}
			if l.raw {
				return t, nil
			}
			if decoded {
				t.val = string(append(buf, src[seg:i]...))
			} else {
				t.val = src[seg:i]
			}
			if highBit {
				if err := checkUTF8(src, start, t.val); err != nil {
					return token{}, err
				}
			}
			return t, nil
		case c == '\\' && esc:
			if l.raw {
				i += 2
				seg = i
				continue
			}
			buf = append(buf, src[seg:i]...)
			decoded = true
			var err *pgerr.Error
			var hb bool
			buf, i, hb, err = l.escape(buf, i)
			if err != nil {
				return token{}, err
			}
			highBit = highBit || hb
			seg = i
		default:
			i++
		}
	}
}

// escape decodes the backslash escape at src[i] (scan.l's xeescape,
// xeoctesc, xehexesc and xeunicode rules), appends it to buf and returns the
// index after it. highBit reports a byte that makes the result need a UTF-8
// check: a zero or a byte above 0x7F given numerically.
func (l *lexer) escape(buf []byte, i int) (out []byte, next int, highBit bool, err *pgerr.Error) {
	src := l.src
	if i+1 >= len(src) {
		// The string is unterminated; let the caller report it.
		return buf, i + 1, false, nil
	}
	c := src[i+1]
	switch {
	case c >= '0' && c <= '7':
		v, j := 0, i+1
		for j < len(src) && j < i+4 && src[j] >= '0' && src[j] <= '7' {
			v = v*8 + int(src[j]-'0')
			j++
		}
		b := byte(v)
		return append(buf, b), j, b == 0 || b >= 0x80, nil
	case c == 'x' && isHex(byteAt(src, i+2)):
		v, j := 0, i+2
		for j < len(src) && j < i+4 && isHex(src[j]) {
			v = v*16 + hexVal(src[j])
			j++
		}
		b := byte(v)
		return append(buf, b), j, b == 0 || b >= 0x80, nil
	case c == 'u' || c == 'U':
		return l.unicodeEscape(buf, i)
	}
	switch c {
	case 'b':
		c = '\b'
	case 'f':
		c = '\f'
	case 'n':
		c = '\n'
	case 'r':
		c = '\r'
	case 't':
		c = '\t'
	case 'v':
		c = '\v'
	}
	return append(buf, c), i + 2, c >= 0x80, nil
}

// unicodeEscape decodes \uXXXX or \UXXXXXXXX at src[i], joining a UTF-16
// surrogate pair written as two escapes.
func (l *lexer) unicodeEscape(buf []byte, i int) ([]byte, int, bool, *pgerr.Error) {
	src := l.src
	r, next, ok := hexEscape(src, i)
	if !ok {
		return nil, 0, false, invalidUnicodeEscape(src, i)
	}
	switch {
	case r >= 0xD800 && r <= 0xDBFF:
		lo, after, ok := rune(0), next, false
		if byteAt(src, next) == '\\' {
			lo, after, ok = hexEscape(src, next)
			if !ok {
				if c := byteAt(src, next+1); c == 'u' || c == 'U' {
					return nil, 0, false, invalidUnicodeEscape(src, next)
				}
			}
		}
		if !ok || lo < 0xDC00 || lo > 0xDFFF {
			return nil, 0, false, surrogateError(src, next, after)
		}
		r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
		next = after
	case r >= 0xDC00 && r <= 0xDFFF:
		return nil, 0, false, nearError(src, i, "invalid Unicode surrogate pair", src[i:next])
	case r == 0 || r > utf8.MaxRune:
		return nil, 0, false, nearError(src, i, "invalid Unicode escape value", src[i:next])
	}
	return utf8.AppendRune(buf, r), next, false, nil
}

// hexEscape reads \uXXXX or \UXXXXXXXX at src[i].
func hexEscape(src string, i int) (r rune, next int, ok bool) {
	n := 4
	switch byteAt(src, i+1) {
	case 'u':
	case 'U':
		n = 8
	default:
		return 0, i, false
	}
	if i+2+n > len(src) {
		return 0, i, false
	}
	var v uint32
	for _, c := range []byte(src[i+2 : i+2+n]) {
		if !isHex(c) {
			return 0, i, false
		}
		v = v<<4 | uint32(hexVal(c))
	}
	if v > utf8.MaxRune {
		// Out of range; MaxRune+1 still reads as out of range.
		v = utf8.MaxRune + 1
	}
	return rune(v), i + 2 + n, true
}

// surrogateError reports a high surrogate not followed by a low one, near
// whatever follows it (the next escape if there is one).
func surrogateError(src string, at, escEnd int) *pgerr.Error {
	if at >= len(src) {
		return endError(src, "invalid Unicode surrogate pair")
	}
	end := escEnd
	if end <= at {
		_, size := utf8.DecodeRuneInString(src[at:])
		end = at + size
	}
	return nearError(src, at, "invalid Unicode surrogate pair", src[at:end])
}

func invalidUnicodeEscape(src string, i int) *pgerr.Error {
	e := errorAt(src, i, pgerr.InvalidEscapeSequence, "invalid Unicode escape")
	e.Hint = `Unicode escapes must be \uXXXX or \UXXXXXXXX.`
	return e
}

// checkUTF8 rejects what numeric escapes may produce and PostgreSQL refuses
// in a UTF8 database: invalid sequences and zero bytes.
func checkUTF8(src string, start int, s string) *pgerr.Error {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if s[i] != 0 && (r != utf8.RuneError || size > 1) {
			i += size
			continue
		}
		n := 1
		switch c := s[i]; {
		case c >= 0xC0 && c < 0xE0:
			n = 2
		case c >= 0xE0 && c < 0xF0:
			n = 3
		case c >= 0xF0 && c < 0xF8:
			n = 4
		}
		n = min(n, len(s)-i)
		hexes := make([]string, n)
		for k := range n {
			hexes[k] = fmt.Sprintf("0x%02x", s[i+k])
		}
		return errorAt(src, start, pgerr.CharacterNotInRepertoire,
			`invalid byte sequence for encoding "UTF8": %s`, strings.Join(hexes, " "))
	}
	return nil
}

// quoteContinue returns the index of the quote that continues a string
// literal whose closing quote ends just before i, or -1. The separator must
// be whitespace or -- comments containing at least one newline (scan.l's
// quotecontinue).
func quoteContinue(src string, i int) int {
	newline := false
	for i < len(src) {
		switch c := src[i]; {
		case isNewline(c):
			newline = true
			i++
		case isSpace(c):
			i++
		case c == '-' && byteAt(src, i+1) == '-':
			for i < len(src) && !isNewline(src[i]) {
				i++
			}
		case c == '\'' && newline:
			return i
		default:
			return -1
		}
	}
	return -1
}

// scanBitString scans B'…' or X'…'. The digits are not checked: no
// streamdb statement accepts a bit string, so the parser rejects the token.
func (l *lexer) scanBitString(start int) (token, *pgerr.Error) {
	src := l.src
	for i := start + 2; ; {
		if i >= len(src) {
			what := "unterminated bit string literal"
			if src[start]|0x20 == 'x' {
				what = "unterminated hexadecimal string literal"
			}
			return token{}, nearError(src, start, what, src[start:])
		}
		if src[i] != '\'' {
			i++
			continue
		}
		if next := quoteContinue(src, i+1); next >= 0 {
			i = next + 1
			continue
		}
		l.pos = i + 1
		return token{kind: tokBitString, start: start, end: i + 1}, nil
	}
}

func isHex(c byte) bool { return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f' }

func hexVal(c byte) int {
	if isDigit(c) {
		return int(c - '0')
	}
	return int(c|0x20-'a') + 10
}
