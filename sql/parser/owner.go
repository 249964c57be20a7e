package parser

import "strings"

// AlterOwner is ALTER { SOURCE | CONNECTION | SECRET } [IF EXISTS]
// name OWNER TO role: the owner change of the objects PostgreSQL's
// grammar lacks (its own kinds' is ALTER TABLE … OWNER TO, parsed by
// pg_query). Owner is the role's name, or with Current the session's
// role (CURRENT_USER, CURRENT_ROLE or SESSION_USER).
type AlterOwner struct {
	Kind     ObjectKind
	IfExists bool
	Name     Name
	Owner    Ident
	Current  string
}

func (*AlterOwner) statement() {}

func (s *AlterOwner) String() string {
	var b strings.Builder
	b.WriteString("ALTER ")
	b.WriteString(s.Kind.String())
	b.WriteByte(' ')
	writeIf(&b, s.IfExists, "IF EXISTS")
	b.WriteString(s.Name.String())
	b.WriteString(" OWNER TO ")
	if s.Current != "" {
		b.WriteString(strings.ToUpper(s.Current))
	} else {
		b.WriteString(s.Owner.String())
	}
	return b.String()
}

// ownerKinds are the words after ALTER that make an owner change ours.
// (ALTER SOURCE and ALTER SECRET have other forms: their parsers
// hand the owner change to ownerOf.)
var ownerKinds = map[string]ObjectKind{"connection": ObjectConnection}

// isOwnerChange reports whether the tokens from i on are OWNER TO.
func (p *parser) isOwnerChange(i int) bool { return p.kwAt(i, "owner") && p.kwAt(i+1, "to") }

// alterObject parses ALTER CONNECTION, whose one form is the owner
// change.
func (p *parser) alterObject() (Statement, error) {
	if _, err := p.expectKw("alter"); err != nil {
		return nil, err
	}
	t := p.next()
	kind := ownerKinds[foldIdent(p.src[t.start:t.end])]
	ifExists := p.ifExists()
	name, err := p.name()
	if err != nil {
		return nil, err
	}
	return p.ownerOf(kind, ifExists, name)
}

// ownerOf parses OWNER TO role after the name of an object of kind.
func (p *parser) ownerOf(kind ObjectKind, ifExists bool, name Name) (Statement, error) {
	s := &AlterOwner{Kind: kind, IfExists: ifExists, Name: name}
	if err := p.expectKws("owner", "to"); err != nil {
		return nil, err
	}
	for _, kw := range []string{"current_user", "current_role", "session_user"} {
		if p.acceptKw(kw) {
			s.Current = kw
			return s, nil
		}
	}
	var err error
	if s.Owner, err = p.ident(); err != nil {
		return nil, err
	}
	return s, nil
}
