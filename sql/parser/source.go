package parser

import (
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/pgerr"
)

// CreateSource is CREATE SOURCE [IF NOT EXISTS] name [(columns)] FROM …,
// with exactly one of Kafka, LoadGenerator and Postgres set. Columns may
// only be declared for Kafka sources; the others take their columns from
// the generator or from the upstream tables.
type CreateSource struct {
	IfNotExists bool
	Name        Name
	Columns     []ColumnDef
	// Watermark is a WATERMARK FOR element of the column list.
	Watermark     *Watermark
	Kafka         *KafkaSource
	LoadGenerator *LoadGeneratorSource
	Postgres      *PostgresSource
}

// ColumnDef is a declared source column. The type is raw text
// ("numeric(10,2)", "timestamp with time zone") for the caller to resolve
// with PostgreSQL's type grammar.
type ColumnDef struct {
	Name    Ident
	Type    Raw
	NotNull bool
}

func (*CreateSource) statement() {}

// NotStored reports whether the source was declared WITH (STORED =
// false): its rows feed the views that read them and are not kept.
func (s *CreateSource) NotStored() bool {
	var stored *BoolLit
	switch {
	case s.Kafka != nil:
		stored = s.Kafka.Stored
	case s.LoadGenerator != nil:
		stored = s.LoadGenerator.Stored
	}
	return stored != nil && !stored.Value
}

func (s *CreateSource) String() string {
	var b strings.Builder
	b.WriteString("CREATE SOURCE ")
	writeIf(&b, s.IfNotExists, "IF NOT EXISTS")
	b.WriteString(s.Name.String())
	if len(s.Columns) > 0 {
		b.WriteString(" (")
		for i, c := range s.Columns {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(c.Name.String())
			b.WriteByte(' ')
			b.WriteString(c.Type.Text)
			if c.NotNull {
				b.WriteString(" NOT NULL")
			}
		}
		if s.Watermark != nil {
			b.WriteString(", ")
			b.WriteString(s.Watermark.String())
		}
		b.WriteByte(')')
	}
	b.WriteString(" FROM ")
	switch {
	case s.Kafka != nil:
		b.WriteString(s.Kafka.String())
	case s.LoadGenerator != nil:
		b.WriteString(s.LoadGenerator.String())
	case s.Postgres != nil:
		b.WriteString(s.Postgres.String())
	}
	return b.String()
}

// unsupportedSources are Materialize source types streamdb lacks.
var unsupportedSources = [][]string{{"mysql"}, {"sql", "server"}, {"webhook"}}

func (p *parser) createSource() (Statement, error) {
	if err := p.expectKws("create", "source"); err != nil {
		return nil, err
	}
	s := &CreateSource{}
	var err error
	if s.IfNotExists, err = p.ifNotExists(); err != nil {
		return nil, err
	}
	if s.Name, err = p.name(); err != nil {
		return nil, err
	}
	colsAt := p.peek().start
	if p.isOp(p.peek(), "(") {
		if s.Columns, s.Watermark, err = p.columnDefs(); err != nil {
			return nil, err
		}
	}
	if err = p.refuseInCluster(); err != nil {
		return nil, err
	}
	if _, err = p.expectKw("from"); err != nil {
		return nil, err
	}
	switch {
	case p.acceptKw("kafka"):
		s.Kafka, err = p.kafkaSource()
	case p.kwAt(0, "load") && p.kwAt(1, "generator"):
		p.next()
		p.next()
		s.LoadGenerator, err = p.loadGeneratorSource()
	case p.acceptKw("postgres"):
		s.Postgres, err = p.postgresSource()
	default:
		err = p.unsupported(unsupportedSources, "%s sources are not supported")
	}
	if err != nil {
		return nil, err
	}
	if s.Columns != nil && s.Kafka == nil {
		return nil, errorAt(p.src, colsAt, pgerr.FeatureNotSupported,
			"column definitions are only supported for Kafka sources")
	}
	return s, nil
}

// columnDefs reads "(name type [NOT NULL | NULL], …)", one element of
// which may be a WATERMARK FOR.
func (p *parser) columnDefs() ([]ColumnDef, *Watermark, error) {
	if _, err := p.expectOp("("); err != nil {
		return nil, nil, err
	}
	var cols []ColumnDef
	var wm *Watermark
	for {
		if p.kwAt(0, "watermark") && p.kwAt(1, "for") {
			if wm != nil {
				return nil, nil, errorAt(p.src, p.peek().start, pgerr.SyntaxError, "only one WATERMARK may be declared")
			}
			var err error
			if wm, err = p.watermark(); err != nil {
				return nil, nil, err
			}
		} else {
			var c ColumnDef
			var err error
			if c.Name, err = p.ident(); err != nil {
				return nil, nil, err
			}
			if c.Type, err = p.rawUntil("not", "null"); err != nil {
				return nil, nil, err
			}
			if p.acceptKw("not") {
				if _, err := p.expectKw("null"); err != nil {
					return nil, nil, err
				}
				c.NotNull = true
			} else {
				p.acceptKw("null")
			}
			cols = append(cols, c)
		}
		if p.acceptOp(")") {
			return cols, wm, nil
		}
		if _, err := p.expectOp(","); err != nil {
			return nil, nil, err
		}
	}
}

// rawUntil reads text as written, up to the "," or ")" that ends it
// outside parentheses or, there, one of the keywords stops; the text must
// not be empty.
func (p *parser) rawUntil(stops ...string) (Raw, error) {
	first := p.peek()
	depth := 0
	for {
		t := p.peek()
		switch {
		case t.kind == tokEOF || t.kind == tokError:
			return Raw{}, p.unexpected(t)
		case depth == 0 && (p.isOp(t, ",") || p.isOp(t, ")") || p.isAnyKw(t, stops)):
			if t.start == first.start {
				return Raw{}, p.unexpected(t)
			}
			return Raw{Text: p.src[first.start:p.prevEnd], Pos: Pos(first.start)}, nil
		case p.isOp(t, "("):
			depth++
		case p.isOp(t, ")"):
			depth--
		}
		p.next()
	}
}

// isAnyKw reports whether t is one of the keywords kws.
func (p *parser) isAnyKw(t token, kws []string) bool {
	for _, kw := range kws {
		if p.isKw(t, kw) {
			return true
		}
	}
	return false
}

// TableSelectionKind says which upstream tables a source ingests.
type TableSelectionKind uint8

// The table selections.
const (
	ForAllTables TableSelectionKind = iota + 1
	ForTables
	ForSchemas
)

func (k TableSelectionKind) String() string {
	switch k {
	case ForAllTables:
		return "ALL TABLES"
	case ForTables:
		return "TABLES"
	case ForSchemas:
		return "SCHEMAS"
	}
	return "TableSelectionKind(" + strconv.Itoa(int(k)) + ")"
}

// TableSelection is FOR ALL TABLES, FOR TABLES (t [AS alias], …) or FOR
// SCHEMAS (s, …); Pos is where FOR is.
type TableSelection struct {
	Kind    TableSelectionKind
	Pos     Pos
	Tables  []TableRef
	Schemas []Ident
}

// TableRef is an upstream table and the name of the subsource that
// receives it; Alias is nil when the table's own name is used.
type TableRef struct {
	Name  Name
	Alias Name
}

func (t *TableSelection) String() string {
	switch t.Kind {
	case ForAllTables:
		return "FOR ALL TABLES"
	case ForSchemas:
		return "FOR SCHEMAS (" + joinIdents(t.Schemas) + ")"
	}
	parts := make([]string, len(t.Tables))
	for i, r := range t.Tables {
		parts[i] = r.Name.String()
		if r.Alias != nil {
			parts[i] += " AS " + r.Alias.String()
		}
	}
	return "FOR TABLES (" + strings.Join(parts, ", ") + ")"
}

// tableSelection reads FOR ALL TABLES | FOR TABLES (…) and, with schemas,
// FOR SCHEMAS (…).
func (p *parser) tableSelection(schemas bool) (*TableSelection, error) {
	at, err := p.expectKw("for")
	if err != nil {
		return nil, err
	}
	t := &TableSelection{Pos: at}
	switch {
	case p.acceptKw("all"):
		t.Kind = ForAllTables
		_, err = p.expectKw("tables")
	case p.acceptKw("tables"):
		t.Kind = ForTables
		t.Tables, err = p.tableRefs()
	case schemas && p.acceptKw("schemas"):
		t.Kind = ForSchemas
		t.Schemas, err = p.identList()
	default:
		err = p.unexpected(p.peek())
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

func (p *parser) tableRefs() ([]TableRef, error) {
	if _, err := p.expectOp("("); err != nil {
		return nil, err
	}
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
		if p.acceptOp(")") {
			return out, nil
		}
		if _, err := p.expectOp(","); err != nil {
			return nil, err
		}
	}
}
