package parser

import (
	"unicode/utf8"

	"github.com/streamdb/streamdb/pgerr"
)

// lexer scans SQL text with PostgreSQL's lexical rules (scan.l of
// PostgreSQL 17, whose grammar pg_query embeds): whitespace and nested
// comments, unquoted identifiers, "quoted" identifiers, '…' strings with
// doubled quotes and newline-separated continuations, E'…' backslash escapes,
// $tag$…$tag$ dollar quoting, B'…'/X'…' bit strings, numbers with
// underscores and 0x/0o/0b prefixes, $n parameters and operators. Errors are
// PostgreSQL's, word for word, positioned where its scanner positions them.
//
// In raw mode the lexer only finds token boundaries, which is all Split
// needs: string values are not decoded and checks that cannot move a
// boundary (escape validity, trailing junk after numbers, empty quoted
// identifiers) are skipped.
type lexer struct {
	src string
	pos int
	raw bool
}

// next returns the next token, or tokEOF at the end of the text. After an
// error, pos is where the construct that failed begins.
func (l *lexer) next() (token, *pgerr.Error) {
	if err := l.skipSpace(); err != nil {
		return token{}, err
	}
	src, start := l.src, l.pos
	if start >= len(src) {
		return token{kind: tokEOF, start: start, end: start}, nil
	}
	c := src[start]
	switch {
	case c == '\'':
		return l.scanString(start, start, false)
	case c == '"':
		return l.scanQuotedIdent(start, start, tokQIdent)
	case c == '$':
		return l.scanDollar(start)
	case isDigit(c) || c == '.' && isDigit(byteAt(src, start+1)):
		return l.scanNumber(start)
	case isIdentStart(c):
		return l.scanWord(start)
	case isOpChar(c) || isSelf(c):
		t := l.scanOp(start)
		if t.end-t.start > maxIdentLen && !l.raw {
			return token{}, nearError(src, start, "operator too long", t.val)
		}
		return t, nil
	}
	// Anything else is a token of one character, as in PostgreSQL's {other}
	// rule; the grammar rejects it.
	_, size := utf8.DecodeRuneInString(src[start:])
	l.pos = start + size
	return token{kind: tokOp, start: start, end: l.pos, val: src[start:l.pos]}, nil
}

// skipSpace moves past whitespace, -- comments and nested /* comments */.
func (l *lexer) skipSpace() *pgerr.Error {
	src := l.src
	for l.pos < len(src) {
		c := src[l.pos]
		switch {
		case isSpace(c):
			l.pos++
		case c == '-' && byteAt(src, l.pos+1) == '-':
			for l.pos < len(src) && !isNewline(src[l.pos]) {
				l.pos++
			}
		case c == '/' && byteAt(src, l.pos+1) == '*':
			start, depth := l.pos, 0
			for {
				if l.pos >= len(src) {
					l.pos = start
					return nearError(src, start, "unterminated /* comment", src[start:])
				}
				if src[l.pos] == '/' && byteAt(src, l.pos+1) == '*' {
					depth++
					l.pos += 2
				} else if src[l.pos] == '*' && byteAt(src, l.pos+1) == '/' {
					depth--
					l.pos += 2
					if depth == 0 {
						break
					}
				} else {
					l.pos++
				}
			}
		default:
			return nil
		}
	}
	return nil
}

// scanWord scans an unquoted identifier, or a string whose prefix (E, B, X,
// N, U&) looks like the start of one.
func (l *lexer) scanWord(start int) (token, *pgerr.Error) {
	src := l.src
	next := byteAt(src, start+1)
	switch src[start] | 0x20 {
	case 'e':
		if next == '\'' {
			return l.scanString(start, start+1, true)
		}
	case 'b', 'x':
		if next == '\'' {
			return l.scanBitString(start)
		}
	case 'u':
		if next == '&' {
			switch byteAt(src, start+2) {
			case '\'':
				t, err := l.scanString(start, start+2, false)
				t.kind = tokUString
				return t, err
			case '"':
				return l.scanQuotedIdent(start, start+2, tokUIdent)
			}
		}
	}
	end := identEnd(src, start)
	l.pos = end
	return token{kind: tokIdent, start: start, end: end}, nil
}

// identEnd returns the end of the identifier characters starting at i.
func identEnd(src string, i int) int {
	for i < len(src) && isIdentCont(src[i]) {
		i++
	}
	return i
}

// scanQuotedIdent scans "…" (q is the opening quote); "" stands for ".
func (l *lexer) scanQuotedIdent(start, q int, kind tokenKind) (token, *pgerr.Error) {
	src := l.src
	var buf []byte
	seg := q + 1
	for i := q + 1; ; {
		if i >= len(src) {
			return token{}, nearError(src, start, "unterminated quoted identifier", src[start:])
		}
		if src[i] != '"' {
			i++
			continue
		}
		if byteAt(src, i+1) == '"' {
			if !l.raw {
				buf = append(buf, src[seg:i+1]...)
			}
			i += 2
			seg = i
			continue
		}
		l.pos = i + 1
		t := token{kind: kind, start: start, end: i + 1}
		if l.raw {
			return t, nil
		}
		if buf != nil {
			t.val = string(append(buf, src[seg:i]...))
		} else {
			t.val = src[seg:i]
		}
		if t.val == "" {
			return token{}, nearError(src, start, "zero-length delimited identifier", src[start:t.end])
		}
		return t, nil
	}
}

// scanDollar scans what starts with $: a parameter ($1), a dollar-quoted
// string ($$…$$, $tag$…$tag$), or a lone $.
func (l *lexer) scanDollar(start int) (token, *pgerr.Error) {
	src := l.src
	if isDigit(byteAt(src, start+1)) {
		end := start + 1
		for end < len(src) && isDigit(src[end]) {
			end++
		}
		l.pos = end
		return token{kind: tokParam, start: start, end: end, val: src[start:end]}, nil
	}
	i := start + 1
	if i < len(src) && isIdentStart(src[i]) {
		for i < len(src) && isIdentCont(src[i]) && src[i] != '$' {
			i++
		}
	}
	if byteAt(src, i) != '$' {
		// Not a delimiter: PostgreSQL returns the $ alone.
		l.pos = start + 1
		return token{kind: tokOp, start: start, end: start + 1, val: "$"}, nil
	}
	delim := src[start : i+1]
	body := i + 1
	n := indexFrom(src, body, delim)
	if n < 0 {
		return token{}, nearError(src, start, "unterminated dollar-quoted string", src[start:])
	}
	l.pos = n + len(delim)
	return token{kind: tokString, start: start, end: l.pos, val: src[body:n]}, nil
}

// scanOp scans an operator or a punctuation character. Like PostgreSQL, an
// operator stops before an embedded comment start and sheds trailing + and -
// unless it contains a character that only a user-defined operator uses, so
// that "a=-1" reads as a, =, -, 1.
func (l *lexer) scanOp(start int) token {
	src := l.src
	c := src[start]
	if !isOpChar(c) {
		end := start + 1
		switch n := byteAt(src, start+1); {
		case c == ':' && (n == ':' || n == '='), c == '.' && n == '.':
			end++
		}
		l.pos = end
		return token{kind: tokOp, start: start, end: end, val: src[start:end]}
	}
	end := start
	for end < len(src) && isOpChar(src[end]) {
		if end > start && (src[end-1] == '/' && src[end] == '*' || src[end-1] == '-' && src[end] == '-') {
			end--
			break
		}
		end++
	}
	if n := end - start; n > 1 && (src[end-1] == '+' || src[end-1] == '-') {
		special := false
		for i := start; i < end-1; i++ {
			switch src[i] {
			case '~', '!', '@', '#', '^', '&', '|', '`', '?', '%':
				special = true
			}
		}
		if !special {
			for end-start > 1 && (src[end-1] == '+' || src[end-1] == '-') {
				end--
			}
		}
	}
	l.pos = end
	return token{kind: tokOp, start: start, end: end, val: src[start:end]}
}

func indexFrom(s string, from int, sub string) int {
	for i := from; i+len(sub) <= len(s); i++ {
		if s[i] == sub[0] && s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func byteAt(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isNewline(c byte) bool { return c == '\n' || c == '\r' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentCont(c byte) bool { return isIdentStart(c) || isDigit(c) || c == '$' }

// isOpChar reports characters that may form multi-character operators.
func isOpChar(c byte) bool {
	switch c {
	case '~', '!', '@', '#', '^', '&', '|', '`', '?', '+', '-', '*', '/', '%', '<', '>', '=':
		return true
	}
	return false
}

// isSelf reports the punctuation characters that are tokens by themselves.
func isSelf(c byte) bool {
	switch c {
	case ',', '(', ')', '[', ']', '.', ';', ':':
		return true
	}
	return false
}
