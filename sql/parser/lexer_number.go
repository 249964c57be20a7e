package parser

import "github.com/streamdb/streamdb/pgerr"

// scanNumber scans a numeric literal starting at a digit or at a '.'
// followed by a digit, with PostgreSQL 17's rules: decimal digits may be
// separated by single underscores, integers may be written 0x…, 0o… or 0b…,
// "1..2" is 1 followed by "..", and a number running into identifier
// characters is trailing junk rather than two tokens. Junk is found as flex
// finds it, by longest match against {decinteger}{identifier} and its
// numeric and real variants, where the digits may stop early: "00e9$" is
// the integer 00 followed by the identifier e9$, longer than the real
// 00e9, and "1_2$$" is 1 followed by _2$$, so both are junk.
func (l *lexer) scanNumber(start int) (token, *pgerr.Error) {
	src := l.src
	if src[start] == '0' {
		if base := byteAt(src, start+1) | 0x20; base == 'x' || base == 'o' || base == 'b' {
			return l.scanPrefixedInt(start, base)
		}
	}
	kind := tokInt
	// junk is the end of the longest junk match: an identifier may start
	// after the integer part, the fraction or the exponent, or at the
	// first underscore inside one of them.
	junk := 0
	part := func(from, to int) {
		for i := from; i <= to; i++ {
			if i < len(src) && isIdentStart(src[i]) {
				junk = max(junk, identEnd(src, i))
				return
			}
		}
	}
	end := start
	if isDigit(src[end]) {
		end = decimalEnd(src, end)
		part(start, end)
	}
	if byteAt(src, end) == '.' && byteAt(src, end+1) != '.' {
		kind = tokNumber
		end++
		from := end
		if isDigit(byteAt(src, end)) {
			end = decimalEnd(src, end)
		}
		part(from, end)
	}
	if byteAt(src, end)|0x20 == 'e' {
		e := end + 1
		sign := byteAt(src, e) == '+' || byteAt(src, e) == '-'
		if sign {
			e++
		}
		switch {
		case isDigit(byteAt(src, e)):
			kind = tokNumber
			end = decimalEnd(src, e)
			part(e, end)
		case sign:
			// realfail: longer than any junk match, which cannot
			// include the sign.
			if !l.raw {
				return token{}, nearError(src, start, "trailing junk after numeric literal", src[start:e])
			}
			l.pos = e
			return token{kind: tokNumber, start: start, end: e, val: src[start:e]}, nil
		}
	}
	if junk > end {
		if !l.raw {
			return token{}, nearError(src, start, "trailing junk after numeric literal", src[start:junk])
		}
		end = junk
	}
	l.pos = end
	return token{kind: kind, start: start, end: end, val: src[start:end]}, nil
}

// scanPrefixedInt scans 0x…, 0o… or 0b… (base is the lower-case letter).
func (l *lexer) scanPrefixedInt(start int, base byte) (token, *pgerr.Error) {
	src := l.src
	ok := func(c byte) bool {
		switch base {
		case 'x':
			return isHex(c)
		case 'o':
			return c >= '0' && c <= '7'
		}
		return c == '0' || c == '1'
	}
	end := start + 2
	digits := false
	for end < len(src) {
		if ok(src[end]) {
			end++
			digits = true
		} else if src[end] == '_' && end+1 < len(src) && ok(src[end+1]) {
			end += 2
			digits = true
		} else {
			break
		}
	}
	if !digits {
		// scan.l's hexfail/octfail/binfail: "0x" or "0x_", unless the
		// identifier characters after the 0 make a longer junk match.
		fail := start + 2
		if byteAt(src, fail) == '_' {
			fail++
		}
		junk := identEnd(src, start+1)
		if l.raw {
			l.pos = junk
			return token{kind: tokInt, start: start, end: junk, val: src[start:junk]}, nil
		}
		if junk > fail {
			return token{}, nearError(src, start, "trailing junk after numeric literal", src[start:junk])
		}
		what := map[byte]string{'x': "hexadecimal", 'o': "octal", 'b': "binary"}[base]
		return token{}, nearError(src, start, "invalid "+what+" integer", src[start:fail])
	}
	// integer_junk: "0" followed by an identifier longer than the digits.
	if junk := identEnd(src, start+1); junk > end {
		if !l.raw {
			return token{}, nearError(src, start, "trailing junk after numeric literal", src[start:junk])
		}
		end = junk
	}
	l.pos = end
	return token{kind: tokInt, start: start, end: end, val: src[start:end]}, nil
}

// decimalEnd returns the end of the digits at i, with single underscores
// allowed between digits.
func decimalEnd(src string, i int) int {
	for i < len(src) {
		if isDigit(src[i]) {
			i++
		} else if src[i] == '_' && isDigit(byteAt(src, i+1)) {
			i += 2
		} else {
			break
		}
	}
	return i
}
