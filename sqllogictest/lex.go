package sqllogictest

import "strings"

// tokKind classifies the tokens of the small SQL lexer.
type tokKind uint8

const (
	tkWord   tokKind = iota // identifier or keyword, lower-cased
	tkQuoted                // "quoted identifier", unescaped, case kept
	tkString                // string literal of any quoting style
	tkNumber
	tkPunct // one character of anything else
)

// token is one lexical token: pos is its byte offset in the input and depth
// the number of parentheses open before it.
type token struct {
	kind  tokKind
	text  string
	pos   int
	depth int
}

// lexer splits SQL into tokens just well enough for the runner's needs:
// recognising DDL and transaction statements, splitting statements at
// top-level semicolons and finding a top-level ORDER BY. It knows
// PostgreSQL's quoting (identifiers, standard and E'...' strings, dollar
// quotes) and comments (-- and nested /* */), so keywords inside them are
// never mistaken for structure. It never fails: odd input just yields
// punctuation tokens.
type lexer struct {
	s     string
	i     int
	depth int // parentheses open after the tokens scanned so far
}

func newLexer(s string) *lexer { return &lexer{s: s} }

// next returns the next token, or false at the end of the input.
func (l *lexer) next() (token, bool) {
	depth := l.depth
	t, ok := l.scan()
	t.depth = depth
	return t, ok
}

func (l *lexer) scan() (token, bool) {
	l.skipSpaceAndComments()
	if l.i >= len(l.s) {
		return token{}, false
	}
	start := l.i
	c := l.s[l.i]
	switch {
	case c == '"':
		return token{kind: tkQuoted, text: l.quoted('"'), pos: start}, true
	case c == '\'':
		l.quoted('\'')
		return token{kind: tkString, pos: start}, true
	case (c == 'e' || c == 'E') && l.i+1 < len(l.s) && l.s[l.i+1] == '\'':
		l.i++
		l.escapedString()
		return token{kind: tkString, pos: start}, true
	case c == '$' && l.dollarQuote():
		return token{kind: tkString, pos: start}, true
	case isIdentStart(c):
		for l.i < len(l.s) && isIdentPart(l.s[l.i]) {
			l.i++
		}
		return token{kind: tkWord, text: strings.ToLower(l.s[start:l.i]), pos: start}, true
	case '0' <= c && c <= '9':
		for l.i < len(l.s) && (isIdentPart(l.s[l.i]) || l.s[l.i] == '.') {
			l.i++
		}
		return token{kind: tkNumber, text: l.s[start:l.i], pos: start}, true
	}
	l.i++
	switch c {
	case '(':
		l.depth++
	case ')':
		if l.depth > 0 {
			l.depth--
		}
	}
	return token{kind: tkPunct, text: l.s[start:l.i], pos: start}, true
}

func isIdentStart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentPart(c byte) bool {
	return isIdentStart(c) || '0' <= c && c <= '9' || c == '$'
}

func (l *lexer) skipSpaceAndComments() {
	for l.i < len(l.s) {
		c := l.s[l.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			l.i++
		case c == '-' && strings.HasPrefix(l.s[l.i:], "--"):
			if j := strings.IndexByte(l.s[l.i:], '\n'); j >= 0 {
				l.i += j + 1
			} else {
				l.i = len(l.s)
			}
		case c == '/' && strings.HasPrefix(l.s[l.i:], "/*"):
			l.i += 2
			for nest := 1; nest > 0 && l.i < len(l.s); {
				switch {
				case strings.HasPrefix(l.s[l.i:], "/*"):
					nest++
					l.i += 2
				case strings.HasPrefix(l.s[l.i:], "*/"):
					nest--
					l.i += 2
				default:
					l.i++
				}
			}
		default:
			return
		}
	}
}

// quoted consumes a token quoted with q, where a doubled q stands for one,
// and returns its unescaped content.
func (l *lexer) quoted(q byte) string {
	l.i++
	var sb strings.Builder
	for l.i < len(l.s) {
		c := l.s[l.i]
		l.i++
		if c != q {
			sb.WriteByte(c)
			continue
		}
		if l.i < len(l.s) && l.s[l.i] == q {
			sb.WriteByte(q)
			l.i++
			continue
		}
		break
	}
	return sb.String()
}

// escapedString consumes an E'...' string, where a backslash escapes the
// next character.
func (l *lexer) escapedString() {
	l.i++
	for l.i < len(l.s) {
		c := l.s[l.i]
		l.i++
		switch {
		case c == '\\':
			l.i++
		case c == '\'' && l.i < len(l.s) && l.s[l.i] == '\'':
			l.i++
		case c == '\'':
			return
		}
	}
}

// dollarQuote consumes a $tag$...$tag$ string if one starts here.
func (l *lexer) dollarQuote() bool {
	j := l.i + 1
	for j < len(l.s) && l.s[j] != '$' {
		if !isIdentPart(l.s[j]) || j == l.i+1 && '0' <= l.s[j] && l.s[j] <= '9' {
			return false
		}
		j++
	}
	if j >= len(l.s) {
		return false
	}
	tag := l.s[l.i : j+1]
	end := strings.Index(l.s[j+1:], tag)
	if end < 0 {
		l.i = len(l.s)
	} else {
		l.i = j + 1 + end + len(tag)
	}
	return true
}

// splitStatements splits SQL text at top-level semicolons, dropping empty
// statements.
func splitStatements(sql string) []string {
	var out []string
	l := newLexer(sql)
	start := 0
	for {
		t, ok := l.next()
		if !ok {
			break
		}
		if t.kind == tkPunct && t.text == ";" {
			if s := strings.TrimSpace(sql[start:t.pos]); s != "" {
				out = append(out, s)
			}
			start = t.pos + 1
		}
	}
	if s := strings.TrimSpace(sql[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// topLevelOrderBy returns the offset of the last ORDER BY outside
// parentheses, or -1.
func topLevelOrderBy(sql string) int {
	l := newLexer(sql)
	pos := -1
	var prev token
	for {
		t, ok := l.next()
		if !ok {
			return pos
		}
		if t.kind == tkWord && t.text == "by" && t.depth == 0 && prev.kind == tkWord && prev.text == "order" {
			pos = prev.pos
		}
		prev = t
	}
}
