package parser

import (
	"strings"

	"github.com/streamdb/streamdb/pgerr"
)

// PostgresSource is the FROM POSTGRES part of CREATE SOURCE:
//
//	POSTGRES CONNECTION conn (PUBLICATION 'p' [, SLOT 'name']
//	    [, TEXT COLUMNS (t.c, …)])
//	FOR ALL TABLES | FOR TABLES (schema.t [AS alias], …) | FOR SCHEMAS (s, …)
//
// TEXT COLUMNS names upstream columns (table.column, optionally qualified
// by schema and database) to ingest as text, for types streamdb cannot
// decode.
type PostgresSource struct {
	Connection  Name
	Publication StringLit
	Slot        *StringLit
	TextColumns []Name
	Tables      TableSelection
}

func (s *PostgresSource) String() string {
	var b strings.Builder
	b.WriteString("POSTGRES CONNECTION ")
	b.WriteString(s.Connection.String())
	var l optionList
	l.add("PUBLICATION", s.Publication.String())
	l.addString("SLOT", s.Slot)
	if s.TextColumns != nil {
		parts := make([]string, len(s.TextColumns))
		for i, c := range s.TextColumns {
			parts[i] = c.String()
		}
		l.add("TEXT COLUMNS", "("+strings.Join(parts, ", ")+")")
	}
	b.WriteByte(' ')
	b.WriteString(l.String())
	b.WriteByte(' ')
	b.WriteString(s.Tables.String())
	return b.String()
}

var postgresSourceOptions = optionNames{{"publication"}, {"slot"}, {"text", "columns"}}

func (p *parser) postgresSource() (*PostgresSource, error) {
	if _, err := p.expectKw("connection"); err != nil {
		return nil, err
	}
	s := &PostgresSource{}
	var err error
	if s.Connection, err = p.name(); err != nil {
		return nil, err
	}
	open := p.peek().start
	names := postgresSourceOptions
	hasPublication := false
	err = p.options(names, func(i int, at Pos) error {
		var err error
		switch i {
		case 0:
			s.Publication, err = p.optString(names, i)
			hasPublication = true
		case 1:
			s.Slot, err = ptr(p.optString(names, i))
		case 2:
			s.TextColumns, err = p.optNameList(names, i, 4)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !hasPublication {
		return nil, errorAt(p.src, open, pgerr.SyntaxError, "PUBLICATION option is required")
	}
	tables, err := p.tableSelection(true)
	if err != nil {
		return nil, err
	}
	s.Tables = *tables
	return s, nil
}
