package parser

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
		return nil, true, err
	}
	return stmt, true, nil
}

// stmtKind is the statement the leading keywords announce.
type stmtKind uint8

const (
	notOurs stmtKind = iota
	stmtCreateSource
	stmtCreateSink
	stmtCreateConnection
	stmtCreateSecret
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
		if p.kwAt(1, "source") {
			return stmtAlterSource
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
