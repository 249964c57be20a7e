package parser

import (
	"strconv"
	"strings"
)

// ShowKind is what a SHOW statement lists.
type ShowKind uint8

// The SHOW listings.
const (
	ShowSources ShowKind = iota + 1
	ShowSinks
	ShowConnections
	ShowSecrets
	ShowTables
	ShowViews
	ShowMaterializedViews
	ShowIndexes
	ShowColumns
	ShowObjects
)

var showWords = [...][]string{
	ShowSources: {"sources"}, ShowSinks: {"sinks"}, ShowConnections: {"connections"},
	ShowSecrets: {"secrets"}, ShowTables: {"tables"}, ShowViews: {"views"},
	ShowMaterializedViews: {"materialized", "views"}, ShowIndexes: {"indexes"},
	ShowColumns: {"columns"}, ShowObjects: {"objects"},
}

func (k ShowKind) String() string {
	if int(k) < len(showWords) && k > 0 {
		return strings.ToUpper(strings.Join(showWords[k], " "))
	}
	return "ShowKind(" + strconv.Itoa(int(k)) + ")"
}

// Show is
//
//	SHOW SOURCES | SINKS | CONNECTIONS | SECRETS | TABLES | VIEWS
//	    | MATERIALIZED VIEWS | OBJECTS [FROM schema]
//	SHOW INDEXES [ON obj | FROM obj]
//	SHOW COLUMNS FROM obj
//
// each optionally followed by LIKE 'pattern' or WHERE condition. The
// condition is raw SQL over the listing's columns. SHOW <setting> and SHOW
// ALL are standard SQL, parsed by pg_query.
type Show struct {
	Kind ShowKind
	// From is the schema of a listing, or the relation of SHOW COLUMNS.
	From Name
	// On is the relation of SHOW INDEXES ON (or FROM) obj.
	On    Name
	Like  *StringLit
	Where *Raw
}

func (*Show) statement() {}

func (s *Show) String() string {
	var b strings.Builder
	b.WriteString("SHOW ")
	b.WriteString(s.Kind.String())
	if s.From != nil {
		b.WriteString(" FROM ")
		b.WriteString(s.From.String())
	}
	if s.On != nil {
		b.WriteString(" ON ")
		b.WriteString(s.On.String())
	}
	if s.Like != nil {
		b.WriteString(" LIKE ")
		b.WriteString(s.Like.String())
	}
	if s.Where != nil {
		b.WriteString(" WHERE ")
		b.WriteString(s.Where.Text)
	}
	return b.String()
}

// ShowCreate is SHOW CREATE TABLE | VIEW | MATERIALIZED VIEW | SOURCE | SINK
// | INDEX | CONNECTION name.
type ShowCreate struct {
	Kind ObjectKind
	Name Name
}

func (*ShowCreate) statement() {}

func (s *ShowCreate) String() string {
	return "SHOW CREATE " + s.Kind.String() + " " + s.Name.String()
}

// showKindAt returns the listing the words at lookahead i name, and how
// many words that is, or 0.
func (p *parser) showKindAt(i int) (ShowKind, int) {
	for k, words := range showWords {
		m := 0
		for m < len(words) && p.kwAt(i+m, words[m]) {
			m++
		}
		if len(words) > 0 && m == len(words) {
			return ShowKind(k), m
		}
	}
	return 0, 0
}

// showCreateKinds are the object kinds SHOW CREATE accepts, longest first.
var showCreateKinds = []struct {
	words []string
	kind  ObjectKind
}{
	{[]string{"materialized", "view"}, ObjectMaterializedView},
	{[]string{"table"}, ObjectTable}, {[]string{"view"}, ObjectView},
	{[]string{"source"}, ObjectSource}, {[]string{"sink"}, ObjectSink},
	{[]string{"index"}, ObjectIndex}, {[]string{"connection"}, ObjectConnection},
}

func (p *parser) show() (Statement, error) {
	if _, err := p.expectKw("show"); err != nil {
		return nil, err
	}
	if p.acceptKw("create") {
		return p.showCreate()
	}
	kind, n := p.showKindAt(0)
	for range n {
		p.next()
	}
	s := &Show{Kind: kind}
	var err error
	switch kind {
	case ShowColumns:
		if _, err = p.expectKw("from"); err == nil {
			s.From, err = p.name()
		}
	case ShowIndexes:
		if p.acceptKw("on") || p.acceptKw("from") {
			s.On, err = p.name()
		}
	default:
		if p.acceptKw("from") {
			s.From, err = p.dottedName(2)
		}
	}
	if err != nil {
		return nil, err
	}
	switch {
	case p.acceptKw("like"):
		s.Like, err = ptr(p.stringLit())
	case p.acceptKw("where"):
		s.Where, err = ptr(p.rawToEnd())
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (p *parser) showCreate() (Statement, error) {
	for _, k := range showCreateKinds {
		m := 0
		for m < len(k.words) && p.kwAt(m, k.words[m]) {
			m++
		}
		if m < len(k.words) {
			continue
		}
		for range m {
			p.next()
		}
		n, err := p.name()
		if err != nil {
			return nil, err
		}
		return &ShowCreate{Kind: k.kind, Name: n}, nil
	}
	return nil, p.unexpected(p.peek())
}
