package sql

import (
	"errors"
	"strings"
	"unicode/utf8"
	"unsafe"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	pgparser "github.com/pganalyze/pg_query_go/v6/parser"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sql/parser"
)

// rawStatement is one statement of a query string, parsed but not bound:
// either a PostgreSQL statement (node) or a streamdb one (ours).
type rawStatement struct {
	node *pg_query.Node
	ours parser.Statement
	// text is this statement's SQL.
	text string
	// offset is the character offset of the text that positions in node
	// (and in errors about it) are relative to, within the query string
	// clients count positions in.
	offset int
}

// parseQuery splits and parses a query string. Statements PostgreSQL lacks
// go to streamdb's own parser; the rest to pg_query, in one call when the
// string holds nothing else.
func parseQuery(query string) ([]rawStatement, error) {
	pieces := parser.Split(query)
	if len(pieces) > lazyStatements {
		return splitLazily(query, pieces)
	}
	var out []rawStatement
	mixed := false
	parsed := make([]parser.Statement, len(pieces))
	for i, p := range pieces {
		stmt, ok, err := parser.Parse(p.Text)
		if err != nil {
			return nil, shiftPosition(err, charOffset(query, p.Offset))
		}
		if ok {
			parsed[i] = stmt
			mixed = true
		}
	}
	if !mixed {
		return parsePG(query, 0)
	}
	for i, p := range pieces {
		off := charOffset(query, p.Offset)
		if parsed[i] != nil {
			out = append(out, rawStatement{ours: parsed[i], text: p.Text, offset: off})
			continue
		}
		raws, err := parsePG(p.Text, off)
		if err != nil {
			return nil, err
		}
		out = append(out, raws...)
	}
	return out, nil
}

// parsePG parses with PostgreSQL's grammar. offset is the character
// position of text within the client's query string.
func parsePG(text string, offset int) ([]rawStatement, error) {
	if node, end, ok := parseInsertValues(text); ok {
		return []rawStatement{{node: node, text: strings.TrimSpace(text[:end]), offset: offset}}, nil
	}
	// Text that nests too deeply would take pg_query's C stack down
	// with the server.
	if err := parser.CheckLimits(text); err != nil {
		return nil, err
	}
	tree, err := pg_query.Parse(text)
	if err != nil {
		return nil, shiftPosition(syntaxError(err), offset)
	}
	out := make([]rawStatement, 0, len(tree.Stmts))
	for _, rs := range tree.Stmts {
		start := int(rs.StmtLocation)
		end := len(text)
		if rs.StmtLen > 0 {
			end = start + int(rs.StmtLen)
		}
		if start < 0 || start > len(text) || end > len(text) || start > end {
			start, end = 0, len(text)
		}
		out = append(out, rawStatement{node: rs.Stmt, text: strings.TrimSpace(text[start:end]), offset: offset})
	}
	return out, nil
}

// lazyStatements is the number of statements past which a query string is
// parsed a statement at a time: ten megabytes of "SELECT 1;" are a
// million parse trees, gigabytes when held at once (see splitLazily).
const lazyStatements = 64

// splitLazily splits a query string of many statements: streamdb's are
// parsed at once, PostgreSQL's are checked with its grammar a megabyte of
// them at a time, so that a syntax error anywhere still runs none of them
// while the parser's memory stays that of a megabyte, and kept as text:
// each is parsed when it runs (see rawStatement.parsed).
func splitLazily(query string, pieces []parser.Piece) ([]rawStatement, error) {
	out := make([]rawStatement, 0, len(pieces))
	// Statements come in order: their character offsets are counted on
	// from the last.
	at, chars := 0, 0
	charsAt := func(byteOff int) int {
		chars += utf8.RuneCountInString(query[at:byteOff])
		at = byteOff
		return chars
	}
	base := uintptr(unsafe.Pointer(unsafe.StringData(query)))
	first := -1 // the first piece of the batch being gathered
	check := func(end int) error {
		if first < 0 {
			return nil
		}
		start := pieces[first].Offset
		first = -1
		text := query[start:end]
		if err := parser.CheckLimits(text); err != nil {
			return err
		}
		texts, err := pg_query.SplitWithParser(text, false)
		if err != nil {
			return shiftPosition(syntaxError(err), charOffset(query, start))
		}
		for _, t := range texts {
			// Each text is a slice of query; its place gives its offset.
			off := int(uintptr(unsafe.Pointer(unsafe.StringData(t))) - base)
			if off < at || off+len(t) > len(query) || query[off:off+len(t)] != t {
				return pgerr.New(pgerr.InternalError, "statement %d of the query string not found in it", len(out)+1)
			}
			out = append(out, rawStatement{text: t, offset: charsAt(off)})
		}
		return nil
	}
	for i, p := range pieces {
		stmt, ok, err := parser.Parse(p.Text)
		if err != nil {
			return nil, shiftPosition(err, charOffset(query, p.Offset))
		}
		if !ok {
			if first < 0 {
				first = i
			}
			if end := p.Offset + len(p.Text); end-pieces[first].Offset >= checkBytes {
				if err := check(end); err != nil {
					return nil, err
				}
			}
			continue
		}
		if err := check(p.Offset); err != nil {
			return nil, err
		}
		out = append(out, rawStatement{ours: stmt, text: p.Text, offset: charsAt(p.Offset)})
	}
	if err := check(len(query)); err != nil {
		return nil, err
	}
	return out, nil
}

// checkBytes is how much of a long query string splitLazily checks with
// PostgreSQL's grammar at once.
const checkBytes = 1 << 20

// parsed returns the statement parsed: a statement of a long query
// string is parsed only when it runs (see splitLazily).
func (r *rawStatement) parsed() (*rawStatement, error) {
	if r.node != nil || r.ours != nil {
		return r, nil
	}
	raws, err := parsePG(r.text, r.offset)
	if err != nil {
		return nil, err
	}
	if len(raws) != 1 {
		return nil, pgerr.New(pgerr.InternalError, "a statement of the query string parsed as %d", len(raws))
	}
	return &raws[0], nil
}

// charOffset converts a byte offset in s to a character count.
func charOffset(s string, byteOff int) int {
	if byteOff <= 0 {
		return 0
	}
	return utf8.RuneCountInString(s[:min(byteOff, len(s))])
}

// shiftPosition moves an error's statement position by off characters.
func shiftPosition(err error, off int) error {
	e := pgerr.As(err)
	if e == nil || e.Position == 0 || off == 0 {
		return err
	}
	c := *e
	c.Position += off
	return &c
}

// syntaxError converts a parser error into 42601. pg_query reports the
// position in characters already.
func syntaxError(err error) error {
	var pe *pgparser.Error
	if !errors.As(err, &pe) {
		return pgerr.Wrap(err, pgerr.SyntaxError, "")
	}
	return &pgerr.Error{Code: pgerr.SyntaxError, Message: pe.Message, Position: pe.Cursorpos}
}
