package parser

// Splicing: streamdb stores some statements it rewrote (a view's explicit
// time zone and its settings, see package sql) by inserting text into the
// statement as written, rather than printing a parse tree back, which
// loses the user's spelling and, in pg_query's deparser, some
// parentheses. These helpers find where to insert, with the lexer's rules
// for strings, quoted names and comments.

// CloseParen returns the offset in sql of the ")" that closes the first
// "(" at or after off, -1 when there is none.
func CloseParen(sql string, off int) int {
	l := lexer{src: sql, pos: off, raw: true}
	depth := 0
	for {
		t, err := l.next()
		if err != nil || t.kind == tokEOF {
			return -1
		}
		if t.kind != tokOp {
			continue
		}
		switch t.val {
		case "(":
			depth++
		case ")":
			depth--
			if depth == 0 {
				return t.start
			}
		}
	}
}

// ViewOptions finds where the options of a CREATE [OR REPLACE]
// [MATERIALIZED] VIEW go: as, the offset of the AS that begins its query,
// and close, the offset of the ")" that ends its WITH list when it has
// one (-1 when it has none). ok is false when sql is not such a
// statement.
func ViewOptions(sql string) (as, close int, ok bool) {
	p := parser{src: sql, lex: lexer{src: sql, raw: true}}
	close = -1
	for !p.isKw(p.peek(), "view") {
		if t := p.peek(); t.kind == tokEOF || t.kind == tokError {
			return 0, 0, false
		}
		p.next()
	}
	p.next()
	depth := 0
	for {
		t := p.peek()
		switch {
		case t.kind == tokEOF || t.kind == tokError:
			return 0, 0, false
		case p.isOp(t, "("):
			depth++
		case p.isOp(t, ")"):
			depth--
			if depth == 0 && close == -2 {
				close = t.start
			}
		case depth == 0 && p.isKw(t, "with"):
			close = -2
		case depth == 0 && p.isKw(t, "as"):
			if close == -2 {
				return 0, 0, false
			}
			return t.start, close, true
		}
		p.next()
	}
}
