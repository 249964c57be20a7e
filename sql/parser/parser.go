package parser

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/streamdb/streamdb/pgerr"
)

// maxIdentLen is PostgreSQL's NAMEDATALEN-1: longer identifiers are
// truncated.
const maxIdentLen = 63

// lookahead is the number of tokens the parser may peek at, a power of
// two; the longest need is a three-word option name and one more word.
const lookahead = 8

// parser is a recursive-descent parser over a lazily lexed token stream.
// The lookahead is a small ring so that deciding whether a statement is ours
// lexes only its first few tokens and allocates nothing.
type parser struct {
	src    string
	lex    lexer
	ring   [lookahead]token
	head   int // index in ring of the next token
	n      int // tokens buffered
	lexErr *pgerr.Error
	// prevEnd is the end of the last consumed token, the end of a Raw span.
	prevEnd int
}

// peekAt returns the token i positions ahead without consuming it. After a
// lexer error every further token is tokError.
func (p *parser) peekAt(i int) token {
	if i < p.n {
		return p.ring[(p.head+i)&(lookahead-1)]
	}
	return p.fill(i)
}

// fill lexes tokens into the ring until it holds i+1 of them.
func (p *parser) fill(i int) token {
	for p.n <= i {
		var t token
		if last := p.ring[(p.head+p.n-1)&(lookahead-1)]; p.n > 0 && (last.kind == tokEOF || last.kind == tokError) {
			t = last
		} else {
			var err *pgerr.Error
			start := p.lex.pos
			t, err = p.lex.next()
			if err != nil {
				p.lexErr = err
				t = token{kind: tokError, start: start, end: start}
			}
		}
		p.ring[(p.head+p.n)&(lookahead-1)] = t
		p.n++
	}
	return p.ring[(p.head+i)&(lookahead-1)]
}

func (p *parser) peek() token { return p.peekAt(0) }

// next consumes and returns the next token. The end of input and a lexer
// error are never consumed.
func (p *parser) next() token {
	t := p.peek()
	if t.kind == tokEOF || t.kind == tokError {
		return t
	}
	p.head = (p.head + 1) & (lookahead - 1)
	p.n--
	p.prevEnd = t.end
	return t
}

// isKw reports whether t is the unquoted word kw (given in lower case).
func (p *parser) isKw(t token, kw string) bool {
	if t.kind != tokIdent || t.end-t.start != len(kw) {
		return false
	}
	for i := 0; i < len(kw); i++ {
		c := p.src[t.start+i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != kw[i] {
			return false
		}
	}
	return true
}

func (p *parser) kwAt(i int, kw string) bool { return p.isKw(p.peekAt(i), kw) }

// acceptKw consumes the next token if it is kw.
func (p *parser) acceptKw(kw string) bool {
	if p.isKw(p.peek(), kw) {
		p.next()
		return true
	}
	return false
}

// expectKw consumes kw or fails with a syntax error at the next token.
func (p *parser) expectKw(kw string) (Pos, error) {
	t := p.peek()
	if !p.isKw(t, kw) {
		return 0, p.unexpected(t)
	}
	p.next()
	return Pos(t.start), nil
}

// expectKws consumes a sequence of keywords.
func (p *parser) expectKws(kws ...string) error {
	for _, kw := range kws {
		if _, err := p.expectKw(kw); err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) isOp(t token, op string) bool {
	return t.kind == tokOp && p.src[t.start:t.end] == op
}

// acceptOp consumes the next token if it is the operator or punctuation op.
func (p *parser) acceptOp(op string) bool {
	if p.isOp(p.peek(), op) {
		p.next()
		return true
	}
	return false
}

// expectOp consumes op or fails with a syntax error at the next token.
func (p *parser) expectOp(op string) (Pos, error) {
	t := p.peek()
	if !p.isOp(t, op) {
		return 0, p.unexpected(t)
	}
	p.next()
	return Pos(t.start), nil
}

// unexpected returns the error for a token the grammar does not allow here.
func (p *parser) unexpected(t token) error {
	switch t.kind {
	case tokError:
		return p.lexErr
	case tokEOF:
		return endError(p.src, "syntax error")
	case tokUString, tokUIdent:
		return errorAt(p.src, t.start, pgerr.FeatureNotSupported,
			"Unicode escape literals (U&) are not supported in this statement")
	}
	return nearError(p.src, t.start, "syntax error", p.src[t.start:t.end])
}

// end accepts trailing semicolons and requires the end of input.
func (p *parser) end() error {
	for p.acceptOp(";") {
	}
	if t := p.peek(); t.kind != tokEOF {
		return p.unexpected(t)
	}
	return nil
}

// ident reads an identifier: an unquoted word that is not a reserved
// keyword, or a quoted identifier.
func (p *parser) ident() (Ident, error) {
	t := p.peek()
	switch t.kind {
	case tokIdent:
		v := foldIdent(p.src[t.start:t.end])
		if _, reserved := reservedKeywords[v]; reserved {
			return Ident{}, p.unexpected(t)
		}
		p.next()
		return Ident{Value: truncateIdent(v), Pos: Pos(t.start)}, nil
	case tokQIdent:
		p.next()
		return Ident{Value: truncateIdent(t.val), Pos: Pos(t.start)}, nil
	}
	return Ident{}, p.unexpected(t)
}

// foldIdent lower-cases ASCII letters as PostgreSQL does for unquoted
// identifiers in a UTF8 database; other bytes are kept.
func foldIdent(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// truncateIdent cuts s to 63 bytes at a character boundary.
func truncateIdent(s string) string {
	if len(s) <= maxIdentLen {
		return s
	}
	n := 0
	for n < len(s) {
		_, size := utf8.DecodeRuneInString(s[n:])
		if n+size > maxIdentLen {
			break
		}
		n += size
	}
	return s[:n]
}

// name reads an object name of at most three parts.
func (p *parser) name() (Name, error) { return p.dottedName(3) }

// dottedName reads ident(.ident)* with at most max parts.
func (p *parser) dottedName(max int) (Name, error) {
	id, err := p.ident()
	if err != nil {
		return nil, err
	}
	n := Name{id}
	for p.isOp(p.peek(), ".") {
		p.next()
		if id, err = p.ident(); err != nil {
			return nil, err
		}
		n = append(n, id)
	}
	if len(n) > max {
		return nil, errorAt(p.src, int(n[0].Pos), pgerr.SyntaxError,
			"improper qualified name (too many dotted names): %s", n)
	}
	return n, nil
}

// names reads a comma-separated list of names.
func (p *parser) names() ([]Name, error) {
	var out []Name
	for {
		n, err := p.name()
		if err != nil {
			return nil, err
		}
		out = append(out, n)
		if !p.acceptOp(",") {
			return out, nil
		}
	}
}

// identList reads "(a, b, …)" with at least one identifier.
func (p *parser) identList() ([]Ident, error) {
	if _, err := p.expectOp("("); err != nil {
		return nil, err
	}
	var out []Ident
	for {
		id, err := p.ident()
		if err != nil {
			return nil, err
		}
		out = append(out, id)
		if p.acceptOp(")") {
			return out, nil
		}
		if _, err := p.expectOp(","); err != nil {
			return nil, err
		}
	}
}

// ifNotExists consumes IF NOT EXISTS. IF followed by anything but NOT is
// left alone: it is a name.
func (p *parser) ifNotExists() (bool, error) {
	if !p.kwAt(0, "if") || !p.kwAt(1, "not") {
		return false, nil
	}
	return true, p.expectKws("if", "not", "exists")
}

// ifExists consumes IF EXISTS, leaving IF as a name when EXISTS does not
// follow.
func (p *parser) ifExists() bool {
	if p.kwAt(0, "if") && p.kwAt(1, "exists") {
		p.next()
		p.next()
		return true
	}
	return false
}

// stringLit reads a string constant.
func (p *parser) stringLit() (StringLit, error) {
	t := p.peek()
	if t.kind != tokString {
		return StringLit{}, p.unexpected(t)
	}
	p.next()
	return StringLit{Value: t.val, Pos: Pos(t.start)}, nil
}

// intLit reads an integer constant with an optional sign.
func (p *parser) intLit() (IntLit, error) {
	start, neg := p.sign()
	t := p.peek()
	if t.kind != tokInt {
		return IntLit{}, p.unexpected(t)
	}
	text := p.src[t.start:t.end]
	if neg {
		text = "-" + text
	}
	v, err := parseInt(text)
	if err != nil {
		return IntLit{}, errorAt(p.src, start, pgerr.SyntaxError,
			"value \"%s\" is out of range for type bigint", strings.ReplaceAll(text, "_", ""))
	}
	p.next()
	return IntLit{Value: v, Pos: Pos(start)}, nil
}

// floatLit reads a numeric constant (integer or not) with an optional sign.
func (p *parser) floatLit() (FloatLit, error) {
	start, neg := p.sign()
	t := p.peek()
	if t.kind != tokInt && t.kind != tokNumber {
		return FloatLit{}, p.unexpected(t)
	}
	text := p.src[t.start:t.end]
	var v float64
	var err error
	if prefixed(text) {
		var i int64
		i, err = parseInt(text)
		v = float64(i)
	} else {
		v, err = strconv.ParseFloat(strings.ReplaceAll(text, "_", ""), 64)
	}
	if err != nil {
		return FloatLit{}, errorAt(p.src, start, pgerr.SyntaxError,
			"value \"%s\" is out of range for type double precision", text)
	}
	p.next()
	if neg {
		v = -v
	}
	return FloatLit{Value: v, Pos: Pos(start)}, nil
}

// sign consumes a leading + or - and returns where the number starts.
func (p *parser) sign() (start int, neg bool) {
	t := p.peek()
	if (p.isOp(t, "-") || p.isOp(t, "+")) && (p.peekAt(1).kind == tokInt || p.peekAt(1).kind == tokNumber) {
		p.next()
		return t.start, p.src[t.start] == '-'
	}
	return p.peek().start, false
}

// parseInt converts an integer literal: decimal (leading zeros allowed) or
// 0x/0o/0b prefixed, with underscores between digits.
func parseInt(text string) (int64, error) {
	if prefixed(text) {
		return strconv.ParseInt(text, 0, 64)
	}
	return strconv.ParseInt(strings.ReplaceAll(text, "_", ""), 10, 64)
}

// prefixed reports an integer literal written 0x…, 0o… or 0b…, after an
// optional minus sign.
func prefixed(text string) bool {
	digits := strings.TrimPrefix(text, "-")
	return len(digits) > 1 && digits[0] == '0' && strings.ContainsAny(digits[1:2], "xXoObB")
}

// boolLit reads TRUE, FALSE, ON or OFF.
func (p *parser) boolLit() (BoolLit, error) {
	t := p.peek()
	for _, w := range [...]struct {
		kw string
		v  bool
	}{{"true", true}, {"false", false}, {"on", true}, {"off", false}} {
		if p.isKw(t, w.kw) {
			p.next()
			return BoolLit{Value: w.v, Pos: Pos(t.start)}, nil
		}
	}
	return BoolLit{}, p.unexpected(t)
}

// rawUntilClose reads the text up to the parenthesis that closes one just
// consumed, and consumes that parenthesis. The text must not be empty.
func (p *parser) rawUntilClose() (Raw, error) {
	first := p.peek()
	if p.isOp(first, ")") {
		return Raw{}, p.unexpected(first)
	}
	depth := 0
	for {
		t := p.peek()
		switch {
		case t.kind == tokEOF || t.kind == tokError:
			return Raw{}, p.unexpected(t)
		case p.isOp(t, "("):
			depth++
		case p.isOp(t, ")"):
			if depth == 0 {
				r := Raw{Text: p.src[first.start:p.prevEnd], Pos: Pos(first.start)}
				p.next()
				return r, nil
			}
			depth--
		}
		p.next()
	}
}

// rawToEnd reads the rest of the statement, up to a semicolon outside
// parentheses or the end of input. The text must not be empty.
func (p *parser) rawToEnd() (Raw, error) {
	first := p.peek()
	if first.kind == tokEOF || p.isOp(first, ";") {
		return Raw{}, p.unexpected(first)
	}
	depth := 0
	for {
		t := p.peek()
		switch {
		case t.kind == tokError:
			return Raw{}, p.lexErr
		case t.kind == tokEOF, depth == 0 && p.isOp(t, ";"):
			return Raw{Text: p.src[first.start:p.prevEnd], Pos: Pos(first.start)}, nil
		case p.isOp(t, "("):
			depth++
		case p.isOp(t, ")"):
			depth--
		}
		p.next()
	}
}

// refuseInCluster fails on Materialize's IN CLUSTER clause, which has no
// meaning in streamdb, where every dataflow runs in the one process.
func (p *parser) refuseInCluster() error {
	if !p.kwAt(0, "in") || !p.kwAt(1, "cluster") {
		return nil
	}
	e := errorAt(p.src, p.peek().start, pgerr.FeatureNotSupported, "IN CLUSTER is not supported")
	e.Hint = "streamdb runs every dataflow in one process; remove the clause."
	return e
}

// unsupported is the error for the next words when they are one of the
// Materialize features in known, which streamdb recognises but does not
// implement (0A000, with format given the feature's words in upper case);
// otherwise it is a plain syntax error.
func (p *parser) unsupported(known [][]string, format string) error {
	t := p.peek()
	for _, words := range known {
		m := 0
		for m < len(words) && p.kwAt(m, words[m]) {
			m++
		}
		if m == len(words) {
			return errorAt(p.src, t.start, pgerr.FeatureNotSupported, format,
				strings.ToUpper(strings.Join(words, " ")))
		}
	}
	return p.unexpected(t)
}
