package parser

import (
	"strings"

	"github.com/streamdb/streamdb/pgerr"
)

// streamdb's event-time clauses, which PostgreSQL's grammar lacks, on
// statements that are otherwise PostgreSQL's:
//
//	CREATE TABLE t (…, WATERMARK FOR ts AS ts - INTERVAL '5 seconds')
//	    [APPEND ONLY] [WITH (LATE DATA = 'drop' | 'dead-letter')]
//	CREATE MATERIALIZED VIEW v AS SELECT … EMIT ON WINDOW CLOSE
//
// (CREATE SOURCE takes the WATERMARK and LATE DATA clauses too, in its
// own grammar.) Such a statement is ours only when it has one of the
// clauses; the statement without them goes to pg_query.

// Watermark is WATERMARK FOR column AS expression.
type Watermark struct {
	Column Ident
	Expr   Raw
	Pos    Pos
}

func (w *Watermark) String() string {
	return "WATERMARK FOR " + w.Column.String() + " AS " + w.Expr.Text
}

// LateData returns the LATE DATA policy of an option value, 'drop' when
// it is absent.
func LateData(v *StringLit) string {
	if v == nil {
		return "drop"
	}
	return v.Value
}

// CreateTable is CREATE TABLE with a watermark, APPEND ONLY or a LATE
// DATA policy. Table is the statement without them, for pg_query: it
// ends with the column list.
type CreateTable struct {
	Table      Raw
	Watermark  *Watermark
	AppendOnly bool
	LateData   *StringLit
}

func (*CreateTable) statement() {}

// String prints the statement: Table with the clauses put back.
func (s *CreateTable) String() string {
	var b strings.Builder
	text := strings.TrimSpace(s.Table.Text)
	if s.Watermark != nil {
		// The column list is the end of Table.
		b.WriteString(strings.TrimSuffix(text, ")"))
		b.WriteString(", ")
		b.WriteString(s.Watermark.String())
		b.WriteByte(')')
	} else {
		b.WriteString(text)
	}
	if s.AppendOnly {
		b.WriteString(" APPEND ONLY")
	}
	if s.LateData != nil {
		var l optionList
		l.add("LATE DATA", s.LateData.String())
		b.WriteString(" WITH ")
		b.WriteString(l.String())
	}
	return b.String()
}

// CreateMaterializedView is CREATE MATERIALIZED VIEW … EMIT ON WINDOW
// CLOSE; View is the statement without the clause.
type CreateMaterializedView struct {
	View              Raw
	EmitOnWindowClose bool
}

func (*CreateMaterializedView) statement() {}

func (s *CreateMaterializedView) String() string {
	return strings.TrimSpace(s.View.Text) + " EMIT ON WINDOW CLOSE"
}

var lateDataOptions = optionNames{{"late", "data"}}

// lateDataOption reads the value of LATE DATA, checking it.
func (p *parser) lateDataOption(names optionNames, i int) (*StringLit, error) {
	v, err := p.optString(names, i)
	if err != nil {
		return nil, err
	}
	if v.Value != "drop" && v.Value != "dead-letter" {
		return nil, errorAt(p.src, int(v.Pos), pgerr.InvalidParameterValue, "invalid value for LATE DATA: %s", v).
			WithHint("LATE DATA is 'drop' (count late rows and drop them) or 'dead-letter' (route them to the errors relation).")
	}
	return &v, nil
}

// watermark reads WATERMARK FOR column AS expression, up to the "," or
// ")" that ends it.
func (p *parser) watermark() (*Watermark, error) {
	at := p.peek().start
	if err := p.expectKws("watermark", "for"); err != nil {
		return nil, err
	}
	w := &Watermark{Pos: Pos(at)}
	var err error
	if w.Column, err = p.ident(); err != nil {
		return nil, err
	}
	if _, err := p.expectKw("as"); err != nil {
		return nil, err
	}
	if w.Expr, err = p.rawUntil(); err != nil {
		return nil, err
	}
	return w, nil
}

// scanClauses looks through a CREATE TABLE or CREATE MATERIALIZED VIEW
// for the clauses that make it ours: a WATERMARK FOR element of the first
// parenthesized list, APPEND ONLY or WITH (LATE DATA …) after it, or a
// final EMIT ON WINDOW CLOSE. It lexes the whole statement, which only
// these statements pay for, keeping the last few tokens only: it
// allocates nothing.
func scanClauses(src string, view bool) bool {
	lex := lexer{src: src}
	p := parser{src: src}
	// last holds the latest tokens, last[0] the newest; semicolons
	// are skipped.
	var last [4]token
	n := 0
	word := func(i int, kw string) bool { return i < n && p.isKw(last[i], kw) }
	depth, lists := 0, 0
	for {
		t, err := lex.next()
		if err != nil || t.kind == tokEOF {
			break
		}
		if p.isOp(t, ";") {
			continue
		}
		copy(last[1:], last[:3])
		last[0] = t
		n = min(n+1, len(last))
		if view {
			continue
		}
		switch {
		case p.isOp(t, "("):
			depth++
		case p.isOp(t, ")"):
			depth--
			if depth == 0 {
				lists++
			}
		case depth == 1 && lists == 0 && word(0, "for") && word(1, "watermark") && n > 2 && (p.isOp(last[2], "(") || p.isOp(last[2], ",")):
			return true
		case depth == 0 && lists == 1 && word(0, "only") && word(1, "append"):
			return true
		case depth == 1 && lists == 1 && word(0, "data") && word(1, "late"):
			return true
		}
	}
	return view && word(3, "emit") && word(2, "on") && word(1, "window") && word(0, "close")
}

// createTable parses a CREATE TABLE that scanClauses found ours.
func (p *parser) createTable() (Statement, error) {
	start := p.peek().start
	s := &CreateTable{}
	// Everything up to the column list is PostgreSQL's.
	for !p.isOp(p.peek(), "(") {
		if t := p.peek(); t.kind == tokEOF || t.kind == tokError {
			return nil, p.unexpected(t)
		}
		p.next()
	}
	var b strings.Builder
	b.WriteString(p.src[start:p.peek().end])
	p.next()
	first := true
	for {
		if p.kwAt(0, "watermark") && p.kwAt(1, "for") {
			if s.Watermark != nil {
				return nil, errorAt(p.src, p.peek().start, pgerr.SyntaxError, "only one WATERMARK may be declared")
			}
			w, err := p.watermark()
			if err != nil {
				return nil, err
			}
			s.Watermark = w
		} else {
			elem, err := p.rawUntil()
			if err != nil {
				return nil, err
			}
			if !first {
				b.WriteString(", ")
			}
			b.WriteString(elem.Text)
			first = false
		}
		if p.acceptOp(")") {
			break
		}
		if _, err := p.expectOp(","); err != nil {
			return nil, err
		}
	}
	b.WriteByte(')')
	s.Table = Raw{Text: b.String(), Pos: Pos(start)}
	if p.kwAt(0, "append") {
		p.next()
		if _, err := p.expectKw("only"); err != nil {
			return nil, err
		}
		s.AppendOnly = true
	}
	if p.acceptKw("with") {
		names := lateDataOptions
		err := p.options(names, func(i int, at Pos) error {
			var err error
			s.LateData, err = p.lateDataOption(names, i)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

// createMaterializedView parses a CREATE MATERIALIZED VIEW … EMIT ON
// WINDOW CLOSE.
func (p *parser) createMaterializedView() (Statement, error) {
	start := p.peek().start
	for !(p.kwAt(0, "emit") && p.kwAt(1, "on") && p.kwAt(2, "window") && p.kwAt(3, "close")) {
		if t := p.peek(); t.kind == tokEOF || t.kind == tokError {
			return nil, p.unexpected(t)
		}
		p.next()
	}
	s := &CreateMaterializedView{View: Raw{Text: p.src[start:p.prevEnd], Pos: Pos(start)}, EmitOnWindowClose: true}
	return s, p.expectKws("emit", "on", "window", "close")
}
