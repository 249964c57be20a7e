package parser

import (
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/pgerr"
)

// Subscribe is
//
//	SUBSCRIBE [TO] name | (query)
//	[ENVELOPE UPSERT (KEY (col, …)) | ENVELOPE DEBEZIUM (KEY (col, …))]
//	[WITH (SNAPSHOT [=] bool, PROGRESS [=] bool)]
//	[AS OF [AT LEAST] n] [UP TO n]
//
// with the clauses after the relation in any order, each at most once.
// Exactly one of Relation and Query is set; Query is the text between the
// parentheses, for pg_query.
type Subscribe struct {
	Relation    Name
	Query       *Raw
	Envelope    *SubscribeEnvelope
	Snapshot    *BoolLit
	Progress    *BoolLit
	AsOf        *IntLit
	AsOfAtLeast bool
	UpTo        *IntLit
}

// SubscribeEnvelope is ENVELOPE UPSERT or ENVELOPE DEBEZIUM with the key
// columns that identify a row across updates.
type SubscribeEnvelope struct {
	Kind EnvelopeKind
	Pos  Pos
	Key  []Ident
}

func (*Subscribe) statement() {}

func (s *Subscribe) String() string {
	var b strings.Builder
	b.WriteString("SUBSCRIBE ")
	if s.Query != nil {
		b.WriteByte('(')
		b.WriteString(s.Query.Text)
		b.WriteByte(')')
	} else {
		b.WriteString(s.Relation.String())
	}
	if s.Envelope != nil {
		b.WriteString(" ENVELOPE ")
		b.WriteString(s.Envelope.Kind.String())
		b.WriteString(" (KEY (")
		b.WriteString(joinIdents(s.Envelope.Key))
		b.WriteString("))")
	}
	var l optionList
	if s.Snapshot != nil {
		l.add("SNAPSHOT", s.Snapshot.String())
	}
	if s.Progress != nil {
		l.add("PROGRESS", s.Progress.String())
	}
	if len(l) > 0 {
		b.WriteString(" WITH ")
		b.WriteString(l.String())
	}
	if s.AsOf != nil {
		b.WriteString(" AS OF ")
		if s.AsOfAtLeast {
			b.WriteString("AT LEAST ")
		}
		b.WriteString(s.AsOf.String())
	}
	if s.UpTo != nil {
		b.WriteString(" UP TO ")
		b.WriteString(s.UpTo.String())
	}
	return b.String()
}

var subscribeOptions = optionNames{{"snapshot"}, {"progress"}}

func (p *parser) subscribe() (*Subscribe, error) {
	if _, err := p.expectKw("subscribe"); err != nil {
		return nil, err
	}
	p.acceptKw("to")
	s := &Subscribe{}
	var err error
	if p.acceptOp("(") {
		q, err := p.rawUntilClose()
		if err != nil {
			return nil, err
		}
		s.Query = &q
	} else if s.Relation, err = p.name(); err != nil {
		return nil, err
	}
	var with bool
	for {
		t := p.peek()
		switch {
		case p.isKw(t, "envelope") && s.Envelope == nil:
			p.next()
			s.Envelope, err = p.subscribeEnvelope()
		case p.isKw(t, "with") && !with:
			p.next()
			with = true
			names := subscribeOptions
			err = p.options(names, func(i int, at Pos) error {
				b, err := p.optBool(names, i, at)
				if err != nil {
					return err
				}
				if i == 0 {
					s.Snapshot = &b
				} else {
					s.Progress = &b
				}
				return nil
			})
		case p.isKw(t, "as") && p.kwAt(1, "of") && s.AsOf == nil:
			p.next()
			p.next()
			if p.kwAt(0, "at") && p.kwAt(1, "least") {
				p.next()
				p.next()
				s.AsOfAtLeast = true
			}
			s.AsOf, err = ptr(p.intLit())
		case p.isKw(t, "up") && p.kwAt(1, "to") && s.UpTo == nil:
			p.next()
			p.next()
			s.UpTo, err = ptr(p.intLit())
		default:
			return s, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func (p *parser) subscribeEnvelope() (*SubscribeEnvelope, error) {
	e, err := p.envelope(false)
	if err != nil {
		return nil, err
	}
	env := &SubscribeEnvelope{Kind: e.Kind, Pos: e.Pos}
	if _, err := p.expectOp("("); err != nil {
		return nil, err
	}
	if _, err := p.expectKw("key"); err != nil {
		return nil, err
	}
	if env.Key, err = p.identList(); err != nil {
		return nil, err
	}
	if _, err := p.expectOp(")"); err != nil {
		return nil, err
	}
	return env, nil
}

// CopyFormat is the output format of COPY (SUBSCRIBE …) TO STDOUT.
type CopyFormat uint8

// The COPY formats; CopyDefault is no FORMAT option, which means text.
const (
	CopyDefault CopyFormat = iota
	CopyText
	CopyCSV
	CopyBinary
)

var copyFormatWords = [...]string{CopyText: "text", CopyCSV: "csv", CopyBinary: "binary"}

func (f CopyFormat) String() string {
	if int(f) < len(copyFormatWords) {
		return copyFormatWords[f]
	}
	return "CopyFormat(" + strconv.Itoa(int(f)) + ")"
}

// CopySubscribe is COPY (SUBSCRIBE …) TO STDOUT [WITH] [(FORMAT text | csv
// | binary)], which streams the subscription's rows in COPY format.
type CopySubscribe struct {
	Subscribe *Subscribe
	Format    CopyFormat
	FormatPos Pos
}

func (*CopySubscribe) statement() {}

func (s *CopySubscribe) String() string {
	out := "COPY (" + s.Subscribe.String() + ") TO STDOUT"
	if s.Format != CopyDefault {
		out += " WITH (FORMAT " + s.Format.String() + ")"
	}
	return out
}

var copyOptions = optionNames{{"format"}}

func (p *parser) copySubscribe() (Statement, error) {
	if _, err := p.expectKw("copy"); err != nil {
		return nil, err
	}
	if _, err := p.expectOp("("); err != nil {
		return nil, err
	}
	sub, err := p.subscribe()
	if err != nil {
		return nil, err
	}
	if _, err := p.expectOp(")"); err != nil {
		return nil, err
	}
	if err := p.expectKws("to", "stdout"); err != nil {
		return nil, err
	}
	s := &CopySubscribe{Subscribe: sub}
	with := p.acceptKw("with")
	if !p.isOp(p.peek(), "(") {
		if with {
			return nil, p.unexpected(p.peek())
		}
		return s, nil
	}
	names := copyOptions
	err = p.options(names, func(i int, at Pos) error {
		t := p.peek()
		if t.kind != tokIdent && t.kind != tokString && t.kind != tokQIdent {
			return p.valueError(t, names, i, "a format name")
		}
		v := t.val
		if t.kind == tokIdent {
			v = foldIdent(p.src[t.start:t.end])
		}
		for k, w := range copyFormatWords {
			if w != "" && v == w {
				s.Format, s.FormatPos = CopyFormat(k), Pos(t.start)
			}
		}
		if s.Format == CopyDefault {
			return errorAt(p.src, t.start, pgerr.InvalidParameterValue, "COPY format \"%s\" not recognized", v)
		}
		p.next()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}
