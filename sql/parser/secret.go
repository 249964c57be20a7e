package parser

import "strings"

// CreateSecret is CREATE SECRET [IF NOT EXISTS] name AS 'value'. Its String
// prints the value, so it must not be logged.
type CreateSecret struct {
	IfNotExists bool
	Name        Name
	Value       StringLit
}

func (*CreateSecret) statement() {}

func (s *CreateSecret) String() string {
	var b strings.Builder
	b.WriteString("CREATE SECRET ")
	writeIf(&b, s.IfNotExists, "IF NOT EXISTS")
	b.WriteString(s.Name.String())
	b.WriteString(" AS ")
	b.WriteString(s.Value.String())
	return b.String()
}

func (p *parser) createSecret() (Statement, error) {
	if err := p.expectKws("create", "secret"); err != nil {
		return nil, err
	}
	s := &CreateSecret{}
	var err error
	if s.IfNotExists, err = p.ifNotExists(); err != nil {
		return nil, err
	}
	if s.Name, err = p.name(); err != nil {
		return nil, err
	}
	if _, err = p.expectKw("as"); err != nil {
		return nil, err
	}
	if s.Value, err = p.stringLit(); err != nil {
		return nil, err
	}
	return s, nil
}

// AlterSecret is ALTER SECRET [IF EXISTS] name AS 'value'. Its String
// prints the value, so it must not be logged. ALTER SECRET … OWNER TO is
// an AlterOwner.
type AlterSecret struct {
	IfExists bool
	Name     Name
	Value    StringLit
}

func (*AlterSecret) statement() {}

func (s *AlterSecret) String() string {
	var b strings.Builder
	b.WriteString("ALTER SECRET ")
	writeIf(&b, s.IfExists, "IF EXISTS")
	b.WriteString(s.Name.String())
	b.WriteString(" AS ")
	b.WriteString(s.Value.String())
	return b.String()
}

func (p *parser) alterSecret() (Statement, error) {
	if err := p.expectKws("alter", "secret"); err != nil {
		return nil, err
	}
	ifExists := p.ifExists()
	name, err := p.name()
	if err != nil {
		return nil, err
	}
	if p.isOwnerChange(0) {
		return p.ownerOf(ObjectSecret, ifExists, name)
	}
	s := &AlterSecret{IfExists: ifExists, Name: name}
	if _, err = p.expectKw("as"); err != nil {
		return nil, err
	}
	if s.Value, err = p.stringLit(); err != nil {
		return nil, err
	}
	return s, nil
}
