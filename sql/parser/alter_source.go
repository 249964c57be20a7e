package parser

import (
	"strings"
)

// AlterSource changes the tables a PostgreSQL source replicates:
//
//	ALTER SOURCE [IF EXISTS] name ADD SUBSOURCE t [AS name] [, …]
//	    [WITH (TEXT COLUMNS (c, …))]
//	ALTER SOURCE [IF EXISTS] name DROP SUBSOURCE [IF EXISTS] name [, …]
//	    [CASCADE | RESTRICT]
//
//	ALTER SOURCE [IF EXISTS] name RESET
//
// Exactly one of Add, Drop and Reset is set. TEXT COLUMNS names columns
// of the added tables (table.column) to replicate as text. RESET makes
// the source forget its positions and start over on its upstream as it
// is now, keeping the rows it ingested (after a Kafka topic was deleted
// and created again, or its broker lost records).
type AlterSource struct {
	IfExists    bool
	Name        Name
	Add         []TableRef
	TextColumns []Name
	Drop        []Name
	// DropIfExists is DROP SUBSOURCE IF EXISTS.
	DropIfExists bool
	Behavior     DropBehavior
	Reset        bool
}

func (*AlterSource) statement() {}

func (s *AlterSource) String() string {
	var b strings.Builder
	b.WriteString("ALTER SOURCE ")
	writeIf(&b, s.IfExists, "IF EXISTS")
	b.WriteString(s.Name.String())
	if s.Reset {
		b.WriteString(" RESET")
		return b.String()
	}
	if s.Add != nil {
		b.WriteString(" ADD SUBSOURCE ")
		for i, r := range s.Add {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(r.Name.String())
			if r.Alias != nil {
				b.WriteString(" AS ")
				b.WriteString(r.Alias.String())
			}
		}
		if s.TextColumns != nil {
			parts := make([]string, len(s.TextColumns))
			for i, c := range s.TextColumns {
				parts[i] = c.String()
			}
			var l optionList
			l.add("TEXT COLUMNS", "("+strings.Join(parts, ", ")+")")
			b.WriteString(" WITH ")
			b.WriteString(l.String())
		}
		return b.String()
	}
	b.WriteString(" DROP SUBSOURCE ")
	writeIf(&b, s.DropIfExists, "IF EXISTS")
	for i, n := range s.Drop {
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

// unsupportedAlterSource are Materialize's other ALTER SOURCE actions.
var unsupportedAlterSource = [][]string{{"rename"}, {"set"}, {"owner"}, {"refresh"}}

var alterSourceOptions = optionNames{{"text", "columns"}}

func (p *parser) alterSource() (Statement, error) {
	if err := p.expectKws("alter", "source"); err != nil {
		return nil, err
	}
	s := &AlterSource{IfExists: p.ifExists()}
	var err error
	if s.Name, err = p.name(); err != nil {
		return nil, err
	}
	switch {
	case p.acceptKw("reset"):
		s.Reset = true
	case p.isOwnerChange(0):
		return p.ownerOf(ObjectSource, s.IfExists, s.Name)
	case p.kwAt(0, "add") && p.kwAt(1, "subsource"):
		p.next()
		p.next()
		if s.Add, err = p.subsourceRefs(); err != nil {
			return nil, err
		}
		if p.acceptKw("with") {
			names := alterSourceOptions
			err = p.options(names, func(i int, at Pos) error {
				var err error
				s.TextColumns, err = p.optNameList(names, i, 4)
				return err
			})
		}
	case p.kwAt(0, "drop") && p.kwAt(1, "subsource"):
		p.next()
		p.next()
		s.DropIfExists = p.ifExists()
		if s.Drop, err = p.names(); err != nil {
			return nil, err
		}
		switch {
		case p.acceptKw("cascade"):
			s.Behavior = DropCascade
		case p.acceptKw("restrict"):
			s.Behavior = DropRestrict
		}
	default:
		err = p.unsupported(unsupportedAlterSource, "ALTER SOURCE … %s is not supported")
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// subsourceRefs reads "t [AS name] [, …]" without parentheses.
func (p *parser) subsourceRefs() ([]TableRef, error) {
	var out []TableRef
	for {
		var r TableRef
		var err error
		if r.Name, err = p.name(); err != nil {
			return nil, err
		}
		if p.acceptKw("as") {
			if r.Alias, err = p.name(); err != nil {
				return nil, err
			}
		}
		out = append(out, r)
		if !p.acceptOp(",") {
			return out, nil
		}
	}
}
