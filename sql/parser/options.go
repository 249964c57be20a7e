package parser

import (
	"strings"

	"github.com/streamdb/streamdb/pgerr"
)

// optionNames lists the options of one option list, each as its keywords in
// lower case ({"sasl", "mechanisms"}). Option lists are parsed by name and
// the value of each is parsed by a function that knows its type, so that an
// unknown or repeated option is reported by name with PostgreSQL's wording
// (`option "x" not recognized`, `conflicting or redundant options`), and a
// value of the wrong type names the option it belongs to.
type optionNames [][]string

// display returns option i as written in the documentation.
func (o optionNames) display(i int) string {
	return strings.ToUpper(strings.Join(o[i], " "))
}

// options parses "(name [=] value, …)" with at least one option. For each
// option, value is called with the option's index in names and the
// position of its name once the name and an optional "=" are consumed.
func (p *parser) options(names optionNames, value func(i int, at Pos) error) error {
	if _, err := p.expectOp("("); err != nil {
		return err
	}
	var seen uint64
	for {
		i, at, err := p.optionName(names)
		if err != nil {
			return err
		}
		if seen&(1<<i) != 0 {
			return errorAt(p.src, int(at), pgerr.SyntaxError, "conflicting or redundant options")
		}
		seen |= 1 << i
		p.acceptOp("=")
		if err := value(i, at); err != nil {
			return err
		}
		if p.acceptOp(")") {
			return nil
		}
		if _, err := p.expectOp(","); err != nil {
			return err
		}
	}
}

// optionName consumes the longest option name in names that the next words
// spell, and returns its index and position.
func (p *parser) optionName(names optionNames) (int, Pos, error) {
	first := p.peek()
	if first.kind != tokIdent {
		return 0, 0, p.unexpected(first)
	}
	best, bestLen, partial := -1, 0, 0
	for i, words := range names {
		m := 0
		for m < len(words) && p.kwAt(m, words[m]) {
			m++
		}
		if m == len(words) && m > bestLen {
			best, bestLen = i, m
		} else if m < len(words) && m > partial {
			partial = m
		}
	}
	if best >= 0 {
		for range bestLen {
			p.next()
		}
		return best, Pos(first.start), nil
	}
	// Name the unknown option by the words that matched some option's
	// beginning and the word that did not.
	words := make([]string, 0, partial+1)
	for i := 0; i <= partial; i++ {
		t := p.peekAt(i)
		if t.kind != tokIdent {
			break
		}
		words = append(words, foldIdent(p.src[t.start:t.end]))
	}
	known := make([]string, len(names))
	for i := range names {
		known[i] = names.display(i)
	}
	e := errorAt(p.src, first.start, pgerr.SyntaxError, "option \"%s\" not recognized", strings.Join(words, " "))
	e.Hint = "Valid options are " + strings.Join(known, ", ") + "."
	return 0, 0, e
}

// valueError reports a value of the wrong kind for an option: "what" is
// "a string value", "an integer value" and so on.
func (p *parser) valueError(t token, names optionNames, i int, what string) error {
	switch t.kind {
	case tokEOF, tokError, tokUString, tokUIdent:
		return p.unexpected(t)
	}
	return errorAt(p.src, t.start, pgerr.SyntaxError, "%s requires %s", names.display(i), what)
}

func (p *parser) optString(names optionNames, i int) (StringLit, error) {
	if t := p.peek(); t.kind != tokString {
		return StringLit{}, p.valueError(t, names, i, "a string value")
	}
	return p.stringLit()
}

func (p *parser) isNumberStart() (bool, bool) {
	t := p.peek()
	if p.isOp(t, "-") || p.isOp(t, "+") {
		t = p.peekAt(1)
	}
	return t.kind == tokInt, t.kind == tokNumber
}

func (p *parser) optInt(names optionNames, i int) (IntLit, error) {
	if isInt, _ := p.isNumberStart(); !isInt {
		return IntLit{}, p.valueError(p.peek(), names, i, "an integer value")
	}
	return p.intLit()
}

func (p *parser) optFloat(names optionNames, i int) (FloatLit, error) {
	if isInt, isNum := p.isNumberStart(); !isInt && !isNum {
		return FloatLit{}, p.valueError(p.peek(), names, i, "a numeric value")
	}
	return p.floatLit()
}

// optBool reads a Boolean value; an option followed directly by "," or ")"
// is TRUE, as in PostgreSQL's option lists.
func (p *parser) optBool(names optionNames, i int, at Pos) (BoolLit, error) {
	t := p.peek()
	if p.isOp(t, ",") || p.isOp(t, ")") {
		return BoolLit{Value: true, Pos: at}, nil
	}
	b, err := p.boolLit()
	if err != nil {
		return BoolLit{}, p.valueError(t, names, i, "a Boolean value")
	}
	return b, nil
}

// optSecret reads SECRET name.
func (p *parser) optSecret(names optionNames, i int) (Name, error) {
	if !p.kwAt(0, "secret") {
		return nil, p.valueError(p.peek(), names, i, "a secret (SECRET name)")
	}
	p.next()
	return p.name()
}

// optStringOrSecret reads 'text' or SECRET name.
func (p *parser) optStringOrSecret(names optionNames, i int) (StringOrSecret, error) {
	t := p.peek()
	if t.kind == tokString {
		s, err := p.stringLit()
		return StringOrSecret{Inline: &s}, err
	}
	if !p.isKw(t, "secret") {
		return StringOrSecret{}, p.valueError(t, names, i, "a string value or a secret (SECRET name)")
	}
	n, err := p.optSecret(names, i)
	return StringOrSecret{Secret: n}, err
}

// optStringList reads "('a', 'b', …)".
func (p *parser) optStringList(names optionNames, i int) ([]StringLit, error) {
	if t := p.peek(); !p.isOp(t, "(") {
		return nil, p.valueError(t, names, i, "a parenthesized list of strings")
	}
	p.next()
	var out []StringLit
	for {
		s, err := p.optString(names, i)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
		if p.acceptOp(")") {
			return out, nil
		}
		if _, err := p.expectOp(","); err != nil {
			return nil, err
		}
	}
}

// optIntList reads "(1, 2, …)".
func (p *parser) optIntList(names optionNames, i int) ([]IntLit, error) {
	if t := p.peek(); !p.isOp(t, "(") {
		return nil, p.valueError(t, names, i, "a parenthesized list of integers")
	}
	p.next()
	var out []IntLit
	for {
		n, err := p.optInt(names, i)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
		if p.acceptOp(")") {
			return out, nil
		}
		if _, err := p.expectOp(","); err != nil {
			return nil, err
		}
	}
}

// optNameList reads "(a.b, c.d, …)" with names of up to max parts.
func (p *parser) optNameList(names optionNames, i int, max int) ([]Name, error) {
	if t := p.peek(); !p.isOp(t, "(") {
		return nil, p.valueError(t, names, i, "a parenthesized list of names")
	}
	p.next()
	var out []Name
	for {
		n, err := p.dottedName(max)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
		if p.acceptOp(")") {
			return out, nil
		}
		if _, err := p.expectOp(","); err != nil {
			return nil, err
		}
	}
}

// optionList prints options as "(NAME = value, …)".
type optionList []string

func (l *optionList) add(name, value string) { *l = append(*l, name+" = "+value) }

// addString adds a string option when it is set.
func (l *optionList) addString(name string, v *StringLit) {
	if v != nil {
		l.add(name, v.String())
	}
}

// addInt adds an integer option when it is set.
func (l *optionList) addInt(name string, v *IntLit) {
	if v != nil {
		l.add(name, v.String())
	}
}

func (l optionList) String() string { return "(" + strings.Join(l, ", ") + ")" }
