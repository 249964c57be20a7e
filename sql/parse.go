package sql

import (
	"errors"
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"

	"github.com/streamdb/streamdb/sql/pgerr"
)

// rawStatement is one statement of a query string, parsed but not bound.
type rawStatement struct {
	node *pg_query.Node
	// text is this statement's SQL; query is the whole string it came
	// from, to which error positions are relative.
	text  string
	query string
}

// parseQuery splits and parses a query string with PostgreSQL's grammar.
func parseQuery(query string) ([]rawStatement, error) {
	tree, err := pg_query.Parse(query)
	if err != nil {
		return nil, syntaxError(query, err)
	}
	out := make([]rawStatement, 0, len(tree.Stmts))
	for _, rs := range tree.Stmts {
		start := int(rs.StmtLocation)
		end := len(query)
		if rs.StmtLen > 0 {
			end = start + int(rs.StmtLen)
		}
		if start < 0 || start > len(query) || end > len(query) || start > end {
			start, end = 0, len(query)
		}
		out = append(out, rawStatement{node: rs.Stmt, text: strings.TrimSpace(query[start:end]), query: query})
	}
	return out, nil
}

// syntaxError converts a parser error into 42601 with PostgreSQL's
// character position.
func syntaxError(query string, err error) error {
	var pe *parser.Error
	if !errors.As(err, &pe) {
		return pgerr.Wrap(err, pgerr.SyntaxError, "")
	}
	e := &pgerr.Error{Code: pgerr.SyntaxError, Message: pe.Message}
	if pe.Cursorpos > 0 {
		pos := pe.Cursorpos
		if pos-1 <= len(query) {
			pos = utf8.RuneCountInString(query[:pos-1]) + 1
		}
		e.Position = pos
	}
	return e
}
