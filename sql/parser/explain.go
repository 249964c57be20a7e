package parser

import (
	"strconv"
	"strings"
)

// ExplainStage is the plan an EXPLAIN shows.
type ExplainStage uint8

// The stages. ExplainDefault is EXPLAIN PLAN without a stage, for the
// caller to choose.
const (
	ExplainDefault ExplainStage = iota
	ExplainRaw
	ExplainDecorrelated
	ExplainOptimized
	ExplainPhysical
	ExplainDataflow
)

var explainStageWords = [...]string{ExplainRaw: "raw", ExplainDecorrelated: "decorrelated",
	ExplainOptimized: "optimized", ExplainPhysical: "physical", ExplainDataflow: "dataflow"}

func (s ExplainStage) String() string {
	if s == ExplainDefault {
		return "PLAN"
	}
	if int(s) < len(explainStageWords) {
		w := strings.ToUpper(explainStageWords[s])
		if s != ExplainDataflow {
			w += " PLAN"
		}
		return w
	}
	return "ExplainStage(" + strconv.Itoa(int(s)) + ")"
}

// Explain is
//
//	EXPLAIN [RAW | DECORRELATED | OPTIMIZED | PHYSICAL] PLAN
//	    [WITH (option, …)] [AS TEXT]
//	    FOR query | MATERIALIZED VIEW name | VIEW name | INDEX name
//	EXPLAIN DATAFLOW [WITH (option, …)] [AS TEXT] FOR …
//
// Either Query (the rest of the statement, for pg_query) or Object with
// ObjectKind is set. Text is the only output format, so AS TEXT is
// accepted and not kept. Plain EXPLAIN and EXPLAIN (options) are
// PostgreSQL's, parsed by pg_query.
type Explain struct {
	Stage      ExplainStage
	Options    []ExplainOption
	Query      *Raw
	ObjectKind ObjectKind
	Object     Name
}

// ExplainOption is a flag in EXPLAIN's WITH list, such as "arity" or "join
// implementations" (the words in lower case, separated by single spaces),
// with an optional Boolean value.
type ExplainOption struct {
	Name  string
	Pos   Pos
	Value *BoolLit
}

func (*Explain) statement() {}

func (s *Explain) String() string {
	var b strings.Builder
	b.WriteString("EXPLAIN ")
	b.WriteString(s.Stage.String())
	if len(s.Options) > 0 {
		b.WriteString(" WITH (")
		for i, o := range s.Options {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(o.Name)
			if o.Value != nil {
				b.WriteString(" = ")
				b.WriteString(o.Value.String())
			}
		}
		b.WriteByte(')')
	}
	b.WriteString(" FOR ")
	if s.Query != nil {
		b.WriteString(s.Query.Text)
	} else {
		b.WriteString(s.ObjectKind.String())
		b.WriteByte(' ')
		b.WriteString(s.Object.String())
	}
	return b.String()
}

// explainStageAt reports whether the words after EXPLAIN make the
// statement ours: a stage followed by PLAN, PLAN, or DATAFLOW.
func (p *parser) explainStageAt(i int) bool {
	if p.kwAt(i, "plan") || p.kwAt(i, "dataflow") {
		return true
	}
	for _, w := range explainStageWords {
		if w != "" && p.kwAt(i, w) {
			return true
		}
	}
	return false
}

func (p *parser) explain() (Statement, error) {
	if _, err := p.expectKw("explain"); err != nil {
		return nil, err
	}
	s := &Explain{}
	if p.acceptKw("dataflow") {
		s.Stage = ExplainDataflow
	} else {
		for k, w := range explainStageWords {
			if w != "" && ExplainStage(k) != ExplainDataflow && p.acceptKw(w) {
				s.Stage = ExplainStage(k)
				break
			}
		}
		if _, err := p.expectKw("plan"); err != nil {
			return nil, err
		}
	}
	var err error
	if p.acceptKw("with") {
		if s.Options, err = p.explainOptions(); err != nil {
			return nil, err
		}
	}
	if p.kwAt(0, "as") {
		p.next()
		if !p.acceptKw("text") {
			return nil, p.unsupported([][]string{{"json"}, {"dot"}}, "EXPLAIN AS %s is not supported")
		}
	}
	if _, err = p.expectKw("for"); err != nil {
		return nil, err
	}
	switch {
	case p.kwAt(0, "materialized") && p.kwAt(1, "view"):
		p.next()
		p.next()
		s.ObjectKind = ObjectMaterializedView
	case p.acceptKw("view"):
		s.ObjectKind = ObjectView
	case p.acceptKw("index"):
		s.ObjectKind = ObjectIndex
	default:
		q, err := p.rawToEnd()
		if err != nil {
			return nil, err
		}
		s.Query = &q
		return s, nil
	}
	if s.Object, err = p.name(); err != nil {
		return nil, err
	}
	return s, nil
}

// explainOptions reads "(words [= bool], …)".
func (p *parser) explainOptions() ([]ExplainOption, error) {
	if _, err := p.expectOp("("); err != nil {
		return nil, err
	}
	var out []ExplainOption
	for {
		first := p.peek()
		var words []string
		for t := p.peek(); t.kind == tokIdent; t = p.peek() {
			words = append(words, foldIdent(p.src[t.start:t.end]))
			p.next()
		}
		if words == nil {
			return nil, p.unexpected(first)
		}
		o := ExplainOption{Name: strings.Join(words, " "), Pos: Pos(first.start)}
		if p.acceptOp("=") {
			v, err := p.boolLit()
			if err != nil {
				return nil, err
			}
			o.Value = &v
		}
		out = append(out, o)
		if p.acceptOp(")") {
			return out, nil
		}
		if _, err := p.expectOp(","); err != nil {
			return nil, err
		}
	}
}
