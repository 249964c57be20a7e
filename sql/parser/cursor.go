package parser

import (
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/pgerr"
)

// DeclareSubscribe is
//
//	DECLARE name [NO SCROLL] CURSOR [WITHOUT HOLD] FOR SUBSCRIBE …
//
// a cursor over a subscription, read with FETCH (Materialize's way for
// drivers to consume one). A DECLARE of any other query is PostgreSQL's.
type DeclareSubscribe struct {
	Name      Ident
	Subscribe *Subscribe
}

func (*DeclareSubscribe) statement() {}

func (s *DeclareSubscribe) String() string {
	return "DECLARE " + s.Name.String() + " CURSOR FOR " + s.Subscribe.String()
}

// Fetch is
//
//	FETCH [FORWARD] [count | ALL | NEXT] [FROM | IN] cursor WITH (TIMEOUT [=] 'interval')
//
// a FETCH with options, which PostgreSQL's grammar lacks: from a
// subscription's cursor it returns the rows that arrive within the
// timeout. Count is -1 for ALL. A FETCH without WITH is PostgreSQL's.
type Fetch struct {
	Count   int64
	Cursor  Ident
	Timeout *StringLit
}

func (*Fetch) statement() {}

func (s *Fetch) String() string {
	var b strings.Builder
	b.WriteString("FETCH ")
	if s.Count < 0 {
		b.WriteString("ALL")
	} else {
		b.WriteString(strconv.FormatInt(s.Count, 10))
	}
	b.WriteByte(' ')
	b.WriteString(s.Cursor.String())
	if s.Timeout != nil {
		var l optionList
		l.add("TIMEOUT", s.Timeout.String())
		b.WriteString(" WITH ")
		b.WriteString(l.String())
	}
	return b.String()
}

// declaresSubscribe reports whether a DECLARE's leading words reach FOR
// SUBSCRIBE within the parser's lookahead.
func (p *parser) declaresSubscribe() bool {
	for i := 2; i+1 < lookahead; i++ {
		if p.kwAt(i, "for") {
			return p.kwAt(i+1, "subscribe")
		}
		if t := p.peekAt(i); t.kind == tokEOF || t.kind == tokError {
			return false
		}
	}
	return false
}

// fetchHasOptions reports whether a FETCH has a WITH clause within the
// parser's lookahead.
func (p *parser) fetchHasOptions() bool {
	for i := 1; i < lookahead; i++ {
		if p.kwAt(i, "with") {
			return true
		}
		if t := p.peekAt(i); t.kind == tokEOF || t.kind == tokError {
			return false
		}
	}
	return false
}

func (p *parser) declareSubscribe() (Statement, error) {
	if _, err := p.expectKw("declare"); err != nil {
		return nil, err
	}
	s := &DeclareSubscribe{}
	var err error
	if s.Name, err = p.ident(); err != nil {
		return nil, err
	}
	if p.acceptKw("no") {
		if _, err := p.expectKw("scroll"); err != nil {
			return nil, err
		}
	}
	if _, err := p.expectKw("cursor"); err != nil {
		return nil, err
	}
	switch {
	case p.kwAt(0, "without") && p.kwAt(1, "hold"):
		p.next()
		p.next()
	case p.kwAt(0, "with") && p.kwAt(1, "hold"):
		return nil, errorAt(p.src, p.peek().start, pgerr.FeatureNotSupported, "DECLARE CURSOR WITH HOLD is not supported for SUBSCRIBE")
	}
	if _, err := p.expectKw("for"); err != nil {
		return nil, err
	}
	if s.Subscribe, err = p.subscribe(); err != nil {
		return nil, err
	}
	return s, nil
}

var fetchOptions = optionNames{{"timeout"}}

func (p *parser) fetch() (Statement, error) {
	if _, err := p.expectKw("fetch"); err != nil {
		return nil, err
	}
	s := &Fetch{Count: 1}
	p.acceptKw("forward")
	switch t := p.peek(); {
	case p.isKw(t, "all"):
		p.next()
		s.Count = -1
	case p.isKw(t, "next"):
		p.next()
	case t.kind == tokInt:
		n, err := p.intLit()
		if err != nil {
			return nil, err
		}
		s.Count = n.Value
	}
	if !p.acceptKw("from") {
		p.acceptKw("in")
	}
	var err error
	if s.Cursor, err = p.ident(); err != nil {
		return nil, err
	}
	if _, err := p.expectKw("with"); err != nil {
		return nil, err
	}
	names := fetchOptions
	err = p.options(names, func(i int, at Pos) error {
		v, err := p.optString(names, i)
		s.Timeout = &v
		return err
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}
