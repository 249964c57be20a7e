package parser

// AlterSource is ALTER SOURCE name RESET: the source forgets its
// positions and starts over on its upstream as it is now, keeping the
// rows it ingested (after a Kafka topic was deleted and created again,
// or its broker lost records). Materialize's other ALTER SOURCE forms
// are refused with 0A000.
type AlterSource struct {
	Name  Name
	Reset bool
}

func (*AlterSource) statement() {}

func (s *AlterSource) String() string { return "ALTER SOURCE " + s.Name.String() + " RESET" }

// alterSourceForms are Materialize's ALTER SOURCE clauses streamdb
// recognises but does not implement.
var alterSourceForms = [][]string{{"rename"}, {"owner"}, {"set"}, {"add", "subsource"}, {"add", "table"}, {"drop", "subsource"}, {"refresh", "references"}}

func (p *parser) alterSource() (Statement, error) {
	if err := p.expectKws("alter", "source"); err != nil {
		return nil, err
	}
	name, err := p.name()
	if err != nil {
		return nil, err
	}
	if !p.acceptKw("reset") {
		return nil, p.unsupported(alterSourceForms, "ALTER SOURCE … %s is not supported")
	}
	return &AlterSource{Name: name, Reset: true}, nil
}
