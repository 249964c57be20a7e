package parser

import "strings"

// Grant is GRANT or REVOKE of privileges on the objects PostgreSQL's
// grammar lacks, connections and secrets:
//
//	GRANT { privilege [, …] | ALL [PRIVILEGES] } ON { CONNECTION | SECRET } name [, …]
//	    TO grantee [, …] [WITH GRANT OPTION]
//	REVOKE [GRANT OPTION FOR] { privilege [, …] | ALL [PRIVILEGES] } ON { CONNECTION | SECRET } name [, …]
//	    FROM grantee [, …] [CASCADE | RESTRICT]
//
// Privileges holds the privileges as written, nil for ALL. GRANT and
// REVOKE on tables, sequences, schemas and the database are PostgreSQL's,
// parsed by pg_query.
type Grant struct {
	Revoke bool
	// GrantOption is WITH GRANT OPTION of a GRANT, GRANT OPTION FOR of a
	// REVOKE.
	GrantOption bool
	Privileges  []Ident
	Kind        ObjectKind
	Objects     []Name
	Grantees    []Grantee
	Behavior    DropBehavior
}

// Grantee is a role a privilege is granted to, or PUBLIC.
type Grantee struct {
	Public bool
	Role   Ident
}

func (g Grantee) String() string {
	if g.Public {
		return "PUBLIC"
	}
	return g.Role.String()
}

func (*Grant) statement() {}

func (s *Grant) String() string {
	var b strings.Builder
	if s.Revoke {
		b.WriteString("REVOKE ")
		writeIf(&b, s.GrantOption, "GRANT OPTION FOR")
	} else {
		b.WriteString("GRANT ")
	}
	if s.Privileges == nil {
		b.WriteString("ALL")
	}
	for i, p := range s.Privileges {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strings.ToUpper(p.Value))
	}
	b.WriteString(" ON ")
	b.WriteString(s.Kind.String())
	b.WriteByte(' ')
	for i, n := range s.Objects {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n.String())
	}
	if s.Revoke {
		b.WriteString(" FROM ")
	} else {
		b.WriteString(" TO ")
	}
	for i, g := range s.Grantees {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(g.String())
	}
	if !s.Revoke && s.GrantOption {
		b.WriteString(" WITH GRANT OPTION")
	}
	if s.Behavior != DropDefault {
		b.WriteByte(' ')
		b.WriteString(s.Behavior.String())
	}
	return b.String()
}

// grantKinds maps the words after ON that make a GRANT or REVOKE ours.
var grantKinds = map[string]ObjectKind{"connection": ObjectConnection, "secret": ObjectSecret}

// isOurGrant reports whether a statement starting with GRANT or REVOKE
// grants on a connection or secret: the first ON is followed by one of
// grantKinds. It lexes with a lexer of its own, since the privilege list
// may be longer than the lookahead.
func isOurGrant(sql string) bool {
	lx := lexer{src: sql}
	for n := 0; n < 64; n++ {
		t, err := lx.next()
		if err != nil || t.kind == tokEOF {
			return false
		}
		if t.kind != tokIdent || !strings.EqualFold(sql[t.start:t.end], "on") {
			continue
		}
		t, err = lx.next()
		if err != nil || t.kind != tokIdent {
			return false
		}
		_, ok := grantKinds[foldIdent(sql[t.start:t.end])]
		return ok
	}
	return false
}

func (p *parser) grant() (Statement, error) {
	s := &Grant{}
	if p.acceptKw("revoke") {
		s.Revoke = true
		if p.kwAt(0, "grant") && p.kwAt(1, "option") {
			if err := p.expectKws("grant", "option", "for"); err != nil {
				return nil, err
			}
			s.GrantOption = true
		}
	} else if _, err := p.expectKw("grant"); err != nil {
		return nil, err
	}
	if p.acceptKw("all") {
		p.acceptKw("privileges")
	} else {
		for {
			t := p.peek()
			if t.kind != tokIdent || p.isKw(t, "on") {
				return nil, p.unexpected(t)
			}
			p.next()
			s.Privileges = append(s.Privileges, Ident{Value: foldIdent(p.src[t.start:t.end]), Pos: Pos(t.start)})
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if _, err := p.expectKw("on"); err != nil {
		return nil, err
	}
	t := p.next()
	s.Kind = grantKinds[foldIdent(p.src[t.start:t.end])]
	var err error
	if s.Objects, err = p.names(); err != nil {
		return nil, err
	}
	if s.Revoke {
		_, err = p.expectKw("from")
	} else {
		_, err = p.expectKw("to")
	}
	if err != nil {
		return nil, err
	}
	for {
		var g Grantee
		if p.acceptKw("public") {
			g.Public = true
		} else if g.Role, err = p.ident(); err != nil {
			return nil, err
		}
		s.Grantees = append(s.Grantees, g)
		if !p.acceptOp(",") {
			break
		}
	}
	switch {
	case !s.Revoke && p.kwAt(0, "with"):
		if err := p.expectKws("with", "grant", "option"); err != nil {
			return nil, err
		}
		s.GrantOption = true
	case s.Revoke && p.acceptKw("cascade"):
		s.Behavior = DropCascade
	case s.Revoke && p.acceptKw("restrict"):
		s.Behavior = DropRestrict
	}
	return s, nil
}
