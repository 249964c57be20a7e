package parser

import (
	"strings"

	"github.com/streamdb/streamdb/pgerr"
)

// Parse parses one statement. ok is false when the text is not a
// streamdb-specific statement, and the caller then hands it to pg_query;
// that decision is made from the leading keywords alone, so it is cheap
// and allocation-free for ordinary SQL. When ok is true and err is not nil,
// the statement is ours but malformed: err is a *pgerr.Error, almost always
// 42601 (syntax_error) with PostgreSQL's wording — `syntax error at or near
// "X"`, `syntax error at end of input` — and a 1-based character Position
// relative to sql. Materialize features streamdb recognises but lacks are
// 0A000; bad string escapes fail with the codes PostgreSQL's scanner uses
// (22025, 22021), and an unknown COPY format with 22023, as in PostgreSQL.
//
// The text may end with semicolons; anything else after the statement is an
// error. To run several statements, Split the query string first.
func Parse(sql string) (stmt Statement, ok bool, err error) {
	p := parser{src: sql, lex: lexer{src: sql}}
	kind := p.route()
	switch kind {
	case notOurs:
		return nil, false, nil
	case stmtCreateSource:
		stmt, err = p.createSource()
	case stmtCreateSink:
		stmt, err = p.createSink()
	case stmtCreateConnection:
		stmt, err = p.createConnection()
	case stmtCreateSecret:
		stmt, err = p.createSecret()
	case stmtAlterSecret:
		stmt, err = p.alterSecret()
	case stmtAlterOwner:
		stmt, err = p.alterObject()
	case stmtGrant:
		stmt, err = p.grant()
	case stmtCreateDefaultIndex:
		stmt, err = p.createDefaultIndex()
	case stmtAlterSource:
		stmt, err = p.alterSource()
	case stmtDrop:
		stmt, err = p.drop()
	case stmtSubscribe:
		stmt, err = p.subscribe()
	case stmtCopySubscribe:
		stmt, err = p.copySubscribe()
	case stmtDeclareSubscribe:
		stmt, err = p.declareSubscribe()
	case stmtFetch:
		stmt, err = p.fetch()
	case stmtShow:
		stmt, err = p.show()
	case stmtExplain:
		stmt, err = p.explain()
	}
	if err == nil {
		err = p.end()
	}
	if err != nil {
		if kind == stmtCreateSecret || kind == stmtAlterSecret {
			err = withoutText(err)
		}
		return nil, true, err
	}
	return stmt, true, nil
}

// withoutText strips from an error of a statement that carries a
// secret's value the text it quotes ("at or near …", which may be the
// value or part of it): the error, which reaches the client and maybe a
// log, keeps its code and position only.
func withoutText(err error) error {
	e := pgerr.As(err)
	if e == nil {
		return err
	}
	c := *e
	if i := strings.Index(c.Message, " at or near "); i >= 0 {
		c.Message = c.Message[:i]
	}
	c.Detail = ""
	return &c
}

// stmtKind is the statement the leading keywords announce.
type stmtKind uint8

const (
	notOurs stmtKind = iota
	stmtCreateSource
	stmtCreateSink
	stmtCreateConnection
	stmtCreateSecret
	stmtAlterSecret
	stmtAlterOwner
	stmtGrant
	stmtCreateDefaultIndex
	stmtAlterSource
	stmtDrop
	stmtSubscribe
	stmtCopySubscribe
	stmtDeclareSubscribe
	stmtFetch
	stmtShow
	stmtExplain
)

// route returns the statement the leading keywords announce, or notOurs.
// It only peeks.
func (p *parser) route() stmtKind {
	switch {
	case p.kwAt(0, "create"):
		switch {
		case p.kwAt(1, "source"):
			return stmtCreateSource
		case p.kwAt(1, "sink"):
			return stmtCreateSink
		case p.kwAt(1, "connection"):
			return stmtCreateConnection
		case p.kwAt(1, "secret"):
			return stmtCreateSecret
		case p.kwAt(1, "default") && p.kwAt(2, "index"):
			return stmtCreateDefaultIndex
		}
	case p.kwAt(0, "alter"):
		switch {
		case p.kwAt(1, "secret"):
			return stmtAlterSecret
		case p.kwAt(1, "source"):
			return stmtAlterSource
		}
		for kw := range ownerKinds {
			if p.kwAt(1, kw) {
				return stmtAlterOwner
			}
		}
	case p.kwAt(0, "grant") || p.kwAt(0, "revoke"):
		if isOurGrant(p.src) {
			return stmtGrant
		}
	case p.kwAt(0, "drop"):
		for kw := range dropKinds {
			if p.kwAt(1, kw) {
				return stmtDrop
			}
		}
	case p.kwAt(0, "subscribe"):
		return stmtSubscribe
	case p.kwAt(0, "declare"):
		if p.declaresSubscribe() {
			return stmtDeclareSubscribe
		}
	case p.kwAt(0, "fetch"):
		if p.fetchHasOptions() {
			return stmtFetch
		}
	case p.kwAt(0, "copy"):
		if p.isOp(p.peekAt(1), "(") && p.kwAt(2, "subscribe") {
			return stmtCopySubscribe
		}
	case p.kwAt(0, "show"):
		if k, _ := p.showKindAt(1); k != 0 || p.kwAt(1, "create") {
			return stmtShow
		}
	case p.kwAt(0, "explain"):
		if p.explainStageAt(1) {
			return stmtExplain
		}
	}
	return notOurs
}
