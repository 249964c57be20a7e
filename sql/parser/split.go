package parser

import "strings"

// Piece is one statement of a query string: its text from its first token
// to the end of its last (surrounding whitespace, comments and the
// terminating semicolon left out), and the byte offset of that text in the
// query string.
type Piece struct {
	Text   string
	Offset int
}

// Split splits a query string into statements at semicolons that are
// outside quotes, dollar quotes, comments and parentheses, so that a simple
// query can mix streamdb statements with pg_query's. Like psql, it also
// keeps the BEGIN … END body of CREATE [OR REPLACE] FUNCTION or PROCEDURE
// whole. Empty statements are dropped. A statement that cannot be lexed to
// its end (an unterminated quote or comment) runs to the end of the query,
// for its parser to report.
func Split(sql string) []Piece {
	l := lexer{src: sql, raw: true}
	var out []Piece
	start, end := -1, 0
	var s splitState
	for {
		t, err := l.next()
		if err != nil {
			if start < 0 {
				start = l.pos
			}
			return append(out, Piece{Text: sql[start:], Offset: start})
		}
		if t.kind == tokEOF || t.kind == tokOp && sql[t.start:t.end] == ";" && s.parens == 0 && s.begins == 0 {
			if start >= 0 {
				out = append(out, Piece{Text: sql[start:end], Offset: start})
			}
			if t.kind == tokEOF {
				return out
			}
			start, s = -1, splitState{}
			continue
		}
		if start < 0 {
			start = t.start
		}
		end = t.end
		s.token(t, sql[t.start:t.end])
	}
}

// splitState follows one statement's nesting: parentheses, and the
// BEGIN/CASE … END blocks of a function body, found with psql's heuristic
// (psqlscan.l): only in a statement whose first words are CREATE [OR
// REPLACE] FUNCTION|PROCEDURE, and only outside parentheses.
type splitState struct {
	parens, begins int
	words          int     // unquoted words seen
	initials       [4]byte // first letters of the first four words, when significant
}

func (s *splitState) token(t token, text string) {
	switch {
	case t.kind == tokOp && text == "(":
		s.parens++
	case t.kind == tokOp && text == ")":
		if s.parens > 0 {
			s.parens--
		}
	case t.kind == tokIdent:
		if s.words < len(s.initials) {
			for _, w := range [...]string{"create", "function", "procedure", "or", "replace"} {
				if strings.EqualFold(text, w) {
					s.initials[s.words] = w[0]
				}
			}
		}
		s.words++
		in := s.initials
		routine := in[0] == 'c' && (in[1] == 'f' || in[1] == 'p' ||
			in[1] == 'o' && in[2] == 'r' && (in[3] == 'f' || in[3] == 'p'))
		if !routine || s.parens != 0 {
			return
		}
		switch {
		case strings.EqualFold(text, "begin"):
			s.begins++
		case strings.EqualFold(text, "case"):
			if s.begins > 0 {
				s.begins++
			}
		case strings.EqualFold(text, "end"):
			if s.begins > 0 {
				s.begins--
			}
		}
	}
}
