package parser

import "strings"

// DropBehavior is what a DROP does about dependent objects.
type DropBehavior uint8

// The drop behaviours; DropDefault is neither CASCADE nor RESTRICT written,
// which means RESTRICT.
const (
	DropDefault DropBehavior = iota
	DropCascade
	DropRestrict
)

func (b DropBehavior) String() string {
	switch b {
	case DropCascade:
		return "CASCADE"
	case DropRestrict:
		return "RESTRICT"
	}
	return ""
}

// Drop is DROP SOURCE|SINK|CONNECTION|SECRET [IF EXISTS] name [, …]
// [CASCADE | RESTRICT]. Kind is one of ObjectSource, ObjectSink,
// ObjectConnection and ObjectSecret; dropping the other kinds is standard
// SQL, parsed by pg_query.
type Drop struct {
	Kind     ObjectKind
	IfExists bool
	Names    []Name
	Behavior DropBehavior
}

func (*Drop) statement() {}

func (s *Drop) String() string {
	var b strings.Builder
	b.WriteString("DROP ")
	b.WriteString(s.Kind.String())
	b.WriteByte(' ')
	writeIf(&b, s.IfExists, "IF EXISTS")
	for i, n := range s.Names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n.String())
	}
	if s.Behavior != DropDefault {
		b.WriteByte(' ')
		b.WriteString(s.Behavior.String())
	}
	return b.String()
}

// dropKinds maps the words after DROP that make the statement ours.
var dropKinds = map[string]ObjectKind{
	"source":     ObjectSource,
	"sink":       ObjectSink,
	"connection": ObjectConnection,
	"secret":     ObjectSecret,
}

func (p *parser) drop() (Statement, error) {
	if _, err := p.expectKw("drop"); err != nil {
		return nil, err
	}
	t := p.next()
	s := &Drop{Kind: dropKinds[foldIdent(p.src[t.start:t.end])]}
	s.IfExists = p.ifExists()
	var err error
	if s.Names, err = p.names(); err != nil {
		return nil, err
	}
	switch {
	case p.acceptKw("cascade"):
		s.Behavior = DropCascade
	case p.acceptKw("restrict"):
		s.Behavior = DropRestrict
	}
	return s, nil
}
