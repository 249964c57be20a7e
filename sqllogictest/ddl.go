package sqllogictest

import "strings"

// ddlOp is what a statement does to the set of named objects, as far as
// the runner cares: for cleanup after a file, and for incremental mode to
// know from when on a relation exists.
type ddlOp uint8

const (
	ddlNone ddlOp = iota
	ddlCreate
	ddlDrop
	ddlAlter
	ddlBegin // BEGIN or START TRANSACTION
	ddlEnd   // COMMIT, END, ROLLBACK, ABORT
)

// objectName is a possibly schema-qualified name, each part folded as
// PostgreSQL folds it: unquoted parts lower-cased, quoted parts kept.
type objectName []string

// key is the unqualified name, which is how relations are matched: the
// corpus never qualifies names, and a miss only costs incremental mode an
// early view creation.
func (n objectName) key() string { return n[len(n)-1] }

// sql quotes every part, so the name survives any case and keyword.
func (n objectName) sql() string {
	parts := make([]string, len(n))
	for i, p := range n {
		parts[i] = `"` + strings.ReplaceAll(p, `"`, `""`) + `"`
	}
	return strings.Join(parts, ".")
}

// ddl describes a statement found by sniffDDL.
type ddl struct {
	op ddlOp
	// kind is the object keyword as SQL spells it: TABLE, VIEW,
	// MATERIALIZED VIEW, SOURCE, SINK, CONNECTION, SEQUENCE, TYPE, SCHEMA.
	kind  string
	names []objectName
	// renamed is the new name of ALTER ... RENAME TO.
	renamed objectName
	// body is the offset of the query after AS in CREATE VIEW, CREATE
	// MATERIALIZED VIEW and CREATE TABLE AS, or -1.
	body int
}

// trackedKinds are the object keywords the runner creates, drops and
// cleans up; indexes go with their tables and the rest is left alone.
var trackedKinds = map[string]bool{
	"table": true, "view": true, "source": true, "sink": true,
	"connection": true, "sequence": true, "type": true, "schema": true,
}

// sniffDDL recognises the statements that create, drop, alter or rename a
// tracked object and those that begin or end a transaction block. It reads
// only the leading keywords and names, so it costs a few hundred
// nanoseconds even on long INSERTs.
func sniffDDL(sql string) ddl {
	s := &sniffer{l: newLexer(sql)}
	d := ddl{body: -1}
	switch s.word() {
	case "begin":
		d.op = ddlBegin
	case "start":
		if s.word() == "transaction" {
			d.op = ddlBegin
		}
	case "commit", "end", "abort":
		d.op = ddlEnd
	case "rollback":
		if w := s.word(); w != "to" && w != "prepared" {
			d.op = ddlEnd
		}
	case "create":
		s.create(&d)
	case "drop":
		if d.kind = s.kind(); d.kind != "" {
			d.op = ddlDrop
			s.ifExists("if", "exists")
			for {
				n := s.name()
				if n == nil {
					break
				}
				d.names = append(d.names, n)
				if !s.punct(",") {
					break
				}
			}
		}
	case "alter":
		if d.kind = s.kind(); d.kind != "" {
			d.op = ddlAlter
			s.ifExists("if", "exists")
			s.ifExists("only")
			if n := s.name(); n != nil {
				d.names = append(d.names, n)
			}
			d.renamed = s.renameTo()
		}
	}
	if (d.op == ddlCreate || d.op == ddlDrop || d.op == ddlAlter) && len(d.names) == 0 {
		return ddl{body: -1}
	}
	return d
}

// sniffer is a lexer with one token of look-ahead.
type sniffer struct {
	l      *lexer
	peeked *token
}

func (s *sniffer) peek() (token, bool) {
	if s.peeked == nil {
		t, ok := s.l.next()
		if !ok {
			return token{}, false
		}
		s.peeked = &t
	}
	return *s.peeked, true
}

func (s *sniffer) take() (token, bool) {
	t, ok := s.peek()
	s.peeked = nil
	return t, ok
}

// word returns the next token if it is a word, else "" (consuming it).
func (s *sniffer) word() string {
	t, ok := s.take()
	if !ok || t.kind != tkWord {
		return ""
	}
	return t.text
}

// ifExists consumes the given words if they come next, all of them.
func (s *sniffer) ifExists(words ...string) bool {
	if t, ok := s.peek(); ok && t.kind == tkWord && t.text == words[0] {
		for range words {
			s.take()
		}
		return true
	}
	return false
}

func (s *sniffer) punct(p string) bool {
	if t, ok := s.peek(); ok && t.kind == tkPunct && t.text == p {
		s.take()
		return true
	}
	return false
}

// kind reads an object keyword, "" when it is not a tracked one.
func (s *sniffer) kind() string {
	w := s.word()
	if w == "materialized" {
		if s.word() == "view" {
			return "MATERIALIZED VIEW"
		}
		return ""
	}
	if trackedKinds[w] {
		return strings.ToUpper(w)
	}
	return ""
}

// name reads a possibly qualified name.
func (s *sniffer) name() objectName {
	var n objectName
	for {
		t, ok := s.peek()
		if !ok || (t.kind != tkWord && t.kind != tkQuoted) {
			return n
		}
		s.take()
		n = append(n, t.text)
		if !s.punct(".") {
			return n
		}
	}
}

func (s *sniffer) create(d *ddl) {
	for {
		t, ok := s.peek()
		if !ok || t.kind != tkWord {
			return
		}
		switch t.text {
		case "or", "replace", "global", "local", "temp", "temporary", "unlogged", "recursive":
			s.take()
			continue
		}
		break
	}
	if d.kind = s.kind(); d.kind == "" {
		return
	}
	d.op = ddlCreate
	if s.ifExists("if", "not", "exists") && d.kind == "SCHEMA" {
		// A schema may exist before the file runs (public): the
		// file did not create it and must not drop it.
		return
	}
	if n := s.name(); n != nil {
		d.names = append(d.names, n)
	}
	if d.kind == "TABLE" || d.kind == "VIEW" || d.kind == "MATERIALIZED VIEW" {
		d.body = s.bodyAfterAs()
	}
}

// bodyAfterAs returns the offset just after the first top-level AS, -1
// when there is none.
func (s *sniffer) bodyAfterAs() int {
	for {
		t, ok := s.take()
		if !ok {
			return -1
		}
		if t.depth == 0 && t.kind == tkWord && t.text == "as" {
			return t.pos + len("as")
		}
	}
}

// renameTo finds RENAME TO name at the top level of an ALTER statement.
func (s *sniffer) renameTo() objectName {
	for {
		t, ok := s.take()
		if !ok {
			return nil
		}
		if t.kind == tkWord && t.text == "rename" {
			if n, ok := s.peek(); ok && n.kind == tkWord && n.text == "to" {
				s.take()
				return s.name()
			}
		}
	}
}
