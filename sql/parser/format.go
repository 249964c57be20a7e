package parser

import (
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/pgerr"
)

// FormatKind is how Kafka record keys and values are encoded.
type FormatKind uint8

// The formats.
const (
	FormatJSON FormatKind = iota + 1
	FormatText
	FormatBytes
	FormatCSV
)

var formatWords = [...]string{FormatJSON: "JSON", FormatText: "TEXT", FormatBytes: "BYTES", FormatCSV: "CSV"}

func (k FormatKind) String() string {
	if int(k) < len(formatWords) && k > 0 {
		return formatWords[k]
	}
	return "FormatKind(" + strconv.Itoa(int(k)) + ")"
}

// Format is a FORMAT clause: JSON, TEXT, BYTES, or CSV WITH n COLUMNS
// [DELIMITED BY 'c'] or CSV WITH HEADER (a, b, …) [DELIMITED BY 'c']. For
// CSV exactly one of CSVColumns and CSVHeader is set. Pos is where the
// format's name is.
type Format struct {
	Kind         FormatKind
	Pos          Pos
	CSVColumns   *IntLit
	CSVHeader    []Ident
	CSVDelimiter *StringLit
}

func (f *Format) String() string {
	if f.Kind != FormatCSV {
		return f.Kind.String()
	}
	var b strings.Builder
	b.WriteString("CSV WITH ")
	if f.CSVColumns != nil {
		b.WriteString(strconv.FormatInt(f.CSVColumns.Value, 10))
		b.WriteString(" COLUMNS")
	} else {
		b.WriteString("HEADER (")
		b.WriteString(joinIdents(f.CSVHeader))
		b.WriteByte(')')
	}
	if f.CSVDelimiter != nil {
		b.WriteString(" DELIMITED BY ")
		b.WriteString(f.CSVDelimiter.String())
	}
	return b.String()
}

// unsupportedFormats are Materialize formats streamdb lacks.
var unsupportedFormats = [][]string{{"avro"}, {"protobuf"}, {"regex"}}

// format reads a format after the FORMAT keyword. Sinks cannot write CSV.
func (p *parser) format(sink bool) (*Format, error) {
	t := p.peek()
	f := &Format{Pos: Pos(t.start)}
	switch {
	case p.isKw(t, "json"):
		f.Kind = FormatJSON
	case p.isKw(t, "text"):
		f.Kind = FormatText
	case p.isKw(t, "bytes"):
		f.Kind = FormatBytes
	case p.isKw(t, "csv") && sink:
		return nil, errorAt(p.src, t.start, pgerr.FeatureNotSupported, "FORMAT CSV is not supported for sinks")
	case p.isKw(t, "csv"):
		p.next()
		return p.csvFormat(f)
	default:
		return nil, p.unsupported(unsupportedFormats, "FORMAT %s is not supported")
	}
	p.next()
	return f, nil
}

func (p *parser) csvFormat(f *Format) (*Format, error) {
	f.Kind = FormatCSV
	if _, err := p.expectKw("with"); err != nil {
		return nil, err
	}
	var err error
	if p.acceptKw("header") {
		if f.CSVHeader, err = p.identList(); err != nil {
			return nil, err
		}
	} else {
		t := p.peek()
		if t.kind != tokInt {
			return nil, p.unexpected(t)
		}
		n, err := p.intLit()
		if err != nil {
			return nil, err
		}
		f.CSVColumns = &n
		if _, err := p.expectKw("columns"); err != nil {
			return nil, err
		}
	}
	if p.kwAt(0, "delimited") {
		p.next()
		if _, err := p.expectKw("by"); err != nil {
			return nil, err
		}
		d, err := p.stringLit()
		if err != nil {
			return nil, err
		}
		f.CSVDelimiter = &d
	}
	return f, nil
}

// formats reads [FORMAT f | KEY FORMAT f VALUE FORMAT f]: format is the
// value format (and the key's, unless key is set), key the key format.
func (p *parser) formats(sink bool) (format, key *Format, err error) {
	switch {
	case p.acceptKw("format"):
		format, err = p.format(sink)
	case p.kwAt(0, "key") && p.kwAt(1, "format"):
		p.next()
		p.next()
		if key, err = p.format(sink); err != nil {
			return nil, nil, err
		}
		if err = p.expectKws("value", "format"); err != nil {
			return nil, nil, err
		}
		format, err = p.format(sink)
	}
	if err != nil {
		return nil, nil, err
	}
	return format, key, nil
}

// writeFormats prints what formats read.
func writeFormats(b *strings.Builder, format, key *Format) {
	switch {
	case key != nil:
		b.WriteString(" KEY FORMAT ")
		b.WriteString(key.String())
		b.WriteString(" VALUE FORMAT ")
		b.WriteString(format.String())
	case format != nil:
		b.WriteString(" FORMAT ")
		b.WriteString(format.String())
	}
}

// EnvelopeKind is how records become changes.
type EnvelopeKind uint8

// The envelopes.
const (
	EnvelopeNone EnvelopeKind = iota + 1
	EnvelopeUpsert
	EnvelopeDebezium
)

func (k EnvelopeKind) String() string {
	switch k {
	case EnvelopeNone:
		return "NONE"
	case EnvelopeUpsert:
		return "UPSERT"
	case EnvelopeDebezium:
		return "DEBEZIUM"
	}
	return "EnvelopeKind(" + strconv.Itoa(int(k)) + ")"
}

// Envelope is an ENVELOPE clause; Pos is where the envelope's name is.
type Envelope struct {
	Kind EnvelopeKind
	Pos  Pos
}

// envelope reads the envelope name after ENVELOPE; none allows NONE.
func (p *parser) envelope(none bool) (Envelope, error) {
	t := p.peek()
	e := Envelope{Pos: Pos(t.start)}
	switch {
	case none && p.isKw(t, "none"):
		e.Kind = EnvelopeNone
	case p.isKw(t, "upsert"):
		e.Kind = EnvelopeUpsert
	case p.isKw(t, "debezium"):
		e.Kind = EnvelopeDebezium
	default:
		return Envelope{}, p.unsupported([][]string{{"materialize"}}, "ENVELOPE %s is not supported")
	}
	p.next()
	return e, nil
}
