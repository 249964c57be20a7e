package parser

import "strings"

// CreateDefaultIndex is CREATE DEFAULT INDEX [IF NOT EXISTS] ON obj: an
// index on obj keyed by all its columns (or its known key), named by the
// system. CREATE INDEX with explicit columns is standard SQL, parsed by
// pg_query.
type CreateDefaultIndex struct {
	IfNotExists bool
	On          Name
}

func (*CreateDefaultIndex) statement() {}

func (s *CreateDefaultIndex) String() string {
	var b strings.Builder
	b.WriteString("CREATE DEFAULT INDEX ")
	writeIf(&b, s.IfNotExists, "IF NOT EXISTS")
	b.WriteString("ON ")
	b.WriteString(s.On.String())
	return b.String()
}

func (p *parser) createDefaultIndex() (Statement, error) {
	if err := p.expectKws("create", "default", "index"); err != nil {
		return nil, err
	}
	s := &CreateDefaultIndex{}
	var err error
	if s.IfNotExists, err = p.ifNotExists(); err != nil {
		return nil, err
	}
	if err = p.refuseInCluster(); err != nil {
		return nil, err
	}
	if _, err = p.expectKw("on"); err != nil {
		return nil, err
	}
	if s.On, err = p.name(); err != nil {
		return nil, err
	}
	return s, nil
}
