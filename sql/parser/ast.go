package parser

import (
	"strconv"
	"strings"
)

// Statement is a parsed streamdb statement. String prints it back as
// normalised SQL (keywords in upper case, names quoted only where needed,
// options in a fixed order with "="), which Parse reads back as an equal
// statement; SHOW CREATE prints the same text.
type Statement interface {
	String() string
	statement()
}

// Ident is an identifier as PostgreSQL reads it: folded to lower case unless
// it was quoted, and truncated to 63 bytes.
type Ident struct {
	Value string
	Pos   Pos
}

func (id Ident) String() string { return QuoteIdent(id.Value) }

// Name is an object name, qualified or not (database.schema.object), with
// one Ident per part.
type Name []Ident

func (n Name) String() string {
	var b strings.Builder
	for i, id := range n {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(QuoteIdent(id.Value))
	}
	return b.String()
}

// Pos returns the position of the name's first part.
func (n Name) Pos() Pos {
	if len(n) == 0 {
		return 0
	}
	return n[0].Pos
}

// StringLit is a string constant after escape processing.
type StringLit struct {
	Value string
	Pos   Pos
}

func (s StringLit) String() string { return QuoteString(s.Value) }

// IntLit is an integer constant; a leading sign belongs to it and Pos is
// where the sign or the first digit is.
type IntLit struct {
	Value int64
	Pos   Pos
}

func (n IntLit) String() string { return strconv.FormatInt(n.Value, 10) }

// FloatLit is a numeric constant read as a float64.
type FloatLit struct {
	Value float64
	Pos   Pos
}

func (f FloatLit) String() string { return strconv.FormatFloat(f.Value, 'g', -1, 64) }

// BoolLit is a Boolean option value: TRUE, FALSE, ON, OFF, or TRUE implied
// by an option written without a value.
type BoolLit struct {
	Value bool
	Pos   Pos
}

func (b BoolLit) String() string {
	if b.Value {
		return "true"
	}
	return "false"
}

// Raw is SQL that this package does not parse — an embedded query, a
// column type, a WHERE condition — exactly as written, from its first token
// to the end of its last, for the caller to hand to pg_query.
type Raw struct {
	Text string
	Pos  Pos
}

// CharPosition maps a 1-based character position inside r.Text, such as
// the cursor position of a pg_query error, to the 1-based character
// position in text, the statement r was parsed from. Zero stays zero.
func (r Raw) CharPosition(text string, inRaw int) int {
	if inRaw <= 0 {
		return 0
	}
	return r.Pos.CharPosition(text) + inRaw - 1
}

// StringOrSecret is an option value written inline or as SECRET name.
// Exactly one of Inline and Secret is set.
type StringOrSecret struct {
	Inline *StringLit
	Secret Name
}

func (v StringOrSecret) String() string {
	if v.Inline != nil {
		return v.Inline.String()
	}
	return "SECRET " + v.Secret.String()
}

// ObjectKind names a kind of catalog object in DROP, SHOW CREATE and
// EXPLAIN.
type ObjectKind uint8

// The object kinds.
const (
	ObjectTable ObjectKind = iota + 1
	ObjectView
	ObjectMaterializedView
	ObjectSource
	ObjectSink
	ObjectIndex
	ObjectConnection
	ObjectSecret
)

// String returns the kind as SQL writes it ("MATERIALIZED VIEW").
func (k ObjectKind) String() string {
	switch k {
	case ObjectTable:
		return "TABLE"
	case ObjectView:
		return "VIEW"
	case ObjectMaterializedView:
		return "MATERIALIZED VIEW"
	case ObjectSource:
		return "SOURCE"
	case ObjectSink:
		return "SINK"
	case ObjectIndex:
		return "INDEX"
	case ObjectConnection:
		return "CONNECTION"
	case ObjectSecret:
		return "SECRET"
	}
	return "ObjectKind(" + strconv.Itoa(int(k)) + ")"
}

// QuoteIdent quotes an identifier when PostgreSQL's quote_ident would: when
// it is not made of lower-case ASCII letters, digits and underscores
// starting with a letter or underscore, or when it is a keyword that is not
// unreserved.
func QuoteIdent(s string) string {
	safe := s != "" && !isDigit(s[0])
	for i := 0; safe && i < len(s); i++ {
		c := s[i]
		safe = c >= 'a' && c <= 'z' || isDigit(c) || c == '_'
	}
	if safe {
		_, reserved := reservedKeywords[s]
		_, named := nameKeywords[s]
		safe = !reserved && !named
	}
	if safe {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// QuoteString returns s as a standard SQL string literal.
func QuoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// writeIf writes "IF NOT EXISTS " or "IF EXISTS " when set.
func writeIf(b *strings.Builder, set bool, clause string) {
	if set {
		b.WriteString(clause)
		b.WriteByte(' ')
	}
}

// joinIdents prints identifiers separated by ", ".
func joinIdents(ids []Ident) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = id.String()
	}
	return strings.Join(parts, ", ")
}
