package scalar

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// This file is a miniature SQL expression parser and binder for the golden
// tests: it reads the expressions PostgreSQL ran and builds Exprs through
// the package's resolution API the way the real binder does, so the golden
// cases test resolution as well as evaluation.

type token struct {
	kind byte // 'n' number, 's' string, 'i' identifier/keyword, 'o' operator/punct, 'e' end
	text string
}

func lex(src string) ([]token, error) {
	var out []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			j := i
			for j < len(src) && (src[j] >= '0' && src[j] <= '9' || src[j] == '.' ||
				(src[j] == 'e' || src[j] == 'E') && j+1 < len(src) && (src[j+1] >= '0' && src[j+1] <= '9' || src[j+1] == '-' || src[j+1] == '+') ||
				(src[j] == '-' || src[j] == '+') && (src[j-1] == 'e' || src[j-1] == 'E')) {
				j++
			}
			out = append(out, token{'n', src[i:j]})
			i = j
		case c == '\'' || (c == 'E' || c == 'e') && i+1 < len(src) && src[i+1] == '\'':
			escape := c != '\''
			if escape {
				i++
			}
			var b strings.Builder
			j := i + 1
			for {
				if j >= len(src) {
					return nil, fmt.Errorf("unterminated string")
				}
				if src[j] == '\'' {
					if j+1 < len(src) && src[j+1] == '\'' {
						b.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				if escape && src[j] == '\\' && j+1 < len(src) {
					j++
					switch src[j] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					default:
						b.WriteByte(src[j])
					}
					j++
					continue
				}
				b.WriteByte(src[j])
				j++
			}
			out = append(out, token{'s', b.String()})
			i = j + 1
		case c == '"':
			j := strings.IndexByte(src[i+1:], '"')
			out = append(out, token{'q', src[i+1 : i+1+j]})
			i += j + 2
		case unicode.IsLetter(rune(c)) || c == '_':
			j := i
			for j < len(src) && (unicode.IsLetter(rune(src[j])) || unicode.IsDigit(rune(src[j])) || src[j] == '_') {
				j++
			}
			out = append(out, token{'i', strings.ToLower(src[i:j])})
			i = j
		case c == ':' && i+1 < len(src) && src[i+1] == ':':
			out = append(out, token{'o', "::"})
			i += 2
		case strings.ContainsRune("(),[]", rune(c)):
			out = append(out, token{'o', string(c)})
			i++
		case c == '$':
			j := i + 1
			for j < len(src) && src[j] >= '0' && src[j] <= '9' {
				j++
			}
			out = append(out, token{'p', src[i+1 : j]})
			i = j
		default:
			j := i
			for j < len(src) && strings.ContainsRune("+-*/<>=~!@#%^&|`?", rune(src[j])) {
				j++
			}
			if j == i {
				return nil, fmt.Errorf("bad character %q", c)
			}
			op := src[i:j]
			// A trailing + or - is a separate prefix operator unless the
			// operator is only that, as in PostgreSQL's lexer.
			for len(op) > 1 && (op[len(op)-1] == '-' || op[len(op)-1] == '+') && !strings.ContainsAny(op[:len(op)-1], "~!@#%^&|`?") {
				op = op[:len(op)-1]
			}
			out = append(out, token{'o', op})
			i += len(op)
		}
	}
	return append(out, token{'e', ""}), nil
}

type parser struct {
	toks   []token
	pos    int
	params []types.Type
	lits   map[*Const]string // number literals and their text
	// column is the type of the input column x, for aggregate tests.
	column *types.Type
}

func (p *parser) peek() token { return p.toks[p.pos] }
func (p *parser) next() token {
	t := p.toks[p.pos]
	p.pos++
	return t
}
func (p *parser) isKw(kw string) bool { t := p.peek(); return t.kind == 'i' && t.text == kw }
func (p *parser) isOp(op string) bool { t := p.peek(); return t.kind == 'o' && t.text == op }
func (p *parser) accept(kind byte, text string) bool {
	t := p.peek()
	if t.kind == kind && t.text == text {
		p.pos++
		return true
	}
	return false
}
func (p *parser) expect(kind byte, text string) error {
	if !p.accept(kind, text) {
		return fmt.Errorf("expected %q at %q", text, p.peek().text)
	}
	return nil
}

// bindConfig holds the session settings literals are read with.
var bindConfig = types.DefaultTextConfig()

// parseExpr parses and binds one SQL expression.
func parseExpr(src string) (Expr, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, lits: map[*Const]string{}}
	e, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if p.peek().kind != 'e' {
		return nil, fmt.Errorf("trailing input at %q", p.peek().text)
	}
	return e, nil
}

// Binding powers, after PostgreSQL's operator precedence table.
const (
	precOr = iota + 1
	precAnd
	precNot
	precIs
	precCmp
	precLike
	precOther
	precAdd
	precMul
	precExp
	precAt
	precUnary
)

func binaryPrec(t token) int {
	if t.kind == 'i' {
		switch t.text {
		case "or":
			return precOr
		case "and":
			return precAnd
		case "is", "isnull", "notnull":
			return precIs
		case "between", "in", "like", "ilike", "similar", "not":
			return precLike
		case "at":
			return precAt
		}
		return 0
	}
	if t.kind != 'o' {
		return 0
	}
	switch t.text {
	case "<", ">", "=", "<=", ">=", "<>", "!=":
		return precCmp
	case "+", "-":
		return precAdd
	case "*", "/", "%":
		return precMul
	case "^":
		return precExp
	case "(", ")", ",", "[", "]", "::":
		return 0
	}
	return precOther
}

func (p *parser) expr(minPrec int) (Expr, error) {
	left, err := p.prefix()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		prec := binaryPrec(t)
		if prec == 0 || prec <= minPrec {
			return left, nil
		}
		p.next()
		left, err = p.infix(t, prec, left)
		if err != nil {
			return nil, err
		}
	}
}

func (p *parser) infix(t token, prec int, left Expr) (Expr, error) {
	if t.kind == 'i' {
		switch t.text {
		case "or", "and":
			right, err := p.expr(prec)
			if err != nil {
				return nil, err
			}
			l, err := coerceBool(left)
			if err != nil {
				return nil, err
			}
			r, err := coerceBool(right)
			if err != nil {
				return nil, err
			}
			if t.text == "or" {
				return &Or{Args: []Expr{l, r}}, nil
			}
			return &And{Args: []Expr{l, r}}, nil
		case "isnull":
			return &IsNull{Arg: left}, nil
		case "notnull":
			return &IsNull{Arg: left, Not: true}, nil
		case "is":
			not := p.accept('i', "not")
			switch {
			case p.accept('i', "null"):
				return &IsNull{Arg: left, Not: not}, nil
			case p.accept('i', "true"):
				l, err := coerceBool(left)
				return &IsTruth{Arg: l, Want: true, Not: not}, err
			case p.accept('i', "false"):
				l, err := coerceBool(left)
				return &IsTruth{Arg: l, Want: false, Not: not}, err
			case p.accept('i', "unknown"):
				l, err := coerceBool(left)
				return &IsUnknown{Arg: l, Not: not}, err
			case p.accept('i', "distinct"):
				if err := p.expect('i', "from"); err != nil {
					return nil, err
				}
				right, err := p.expr(precIs)
				if err != nil {
					return nil, err
				}
				l, r, err := unifyPair(left, right, "IS DISTINCT FROM")
				return &IsDistinctFrom{L: l, R: r, Not: not}, err
			}
			return nil, fmt.Errorf("bad IS")
		case "not":
			switch {
			case p.accept('i', "in"):
				return p.in(left, true)
			case p.accept('i', "like"):
				return p.like(left, "!~~")
			case p.accept('i', "ilike"):
				return p.like(left, "!~~*")
			case p.accept('i', "between"):
				e, err := p.between(left)
				if err != nil {
					return nil, err
				}
				return &Not{Arg: e}, nil
			}
			return nil, fmt.Errorf("bad NOT")
		case "in":
			return p.in(left, false)
		case "like":
			return p.like(left, "~~")
		case "ilike":
			return p.like(left, "~~*")
		case "similar":
			if err := p.expect('i', "to"); err != nil {
				return nil, err
			}
			right, err := p.expr(precLike)
			if err != nil {
				return nil, err
			}
			pat, err := callFunc("similar_to_escape", []Expr{right})
			if err != nil {
				return nil, err
			}
			return binOp("~", left, pat)
		case "between":
			return p.between(left)
		case "at":
			if err := p.expect('i', "time"); err != nil {
				return nil, err
			}
			if err := p.expect('i', "zone"); err != nil {
				return nil, err
			}
			right, err := p.expr(precAt)
			if err != nil {
				return nil, err
			}
			return callFunc("timezone", []Expr{right, left})
		}
	}
	// ANY/ALL after a comparison operator.
	if p.isKw("any") || p.isKw("all") || p.isKw("some") {
		all := p.next().text == "all"
		if err := p.expect('o', "("); err != nil {
			return nil, err
		}
		arr, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		if err := p.expect('o', ")"); err != nil {
			return nil, err
		}
		return bindAnyAll(t.text, left, arr, all)
	}
	right, err := p.expr(prec)
	if err != nil {
		return nil, err
	}
	return binOp(t.text, left, right)
}

func (p *parser) like(left Expr, op string) (Expr, error) {
	right, err := p.expr(precLike)
	if err != nil {
		return nil, err
	}
	if p.accept('i', "escape") {
		esc, err := p.expr(precLike)
		if err != nil {
			return nil, err
		}
		if right, err = callFunc("like_escape", []Expr{right, esc}); err != nil {
			return nil, err
		}
	}
	return binOp(op, left, right)
}

func (p *parser) between(left Expr) (Expr, error) {
	lo, err := p.expr(precLike)
	if err != nil {
		return nil, err
	}
	if err := p.expect('i', "and"); err != nil {
		return nil, err
	}
	hi, err := p.expr(precLike)
	if err != nil {
		return nil, err
	}
	a, err := binOp(">=", left, lo)
	if err != nil {
		return nil, err
	}
	b, err := binOp("<=", left, hi)
	if err != nil {
		return nil, err
	}
	return &And{Args: []Expr{a, b}}, nil
}

func (p *parser) in(left Expr, not bool) (Expr, error) {
	if err := p.expect('o', "("); err != nil {
		return nil, err
	}
	list, err := p.list(")")
	if err != nil {
		return nil, err
	}
	all := append([]Expr{left}, list...)
	all, _, err = unify(all, "IN")
	if err != nil {
		return nil, err
	}
	return &In{Arg: all[0], List: all[1:], Not: not}, nil
}

func (p *parser) list(end string) ([]Expr, error) {
	var out []Expr
	if p.accept('o', end) {
		return out, nil
	}
	for {
		e, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		if p.accept('o', end) {
			return out, nil
		}
		if err := p.expect('o', ","); err != nil {
			return nil, err
		}
	}
}

func (p *parser) prefix() (Expr, error) {
	e, err := p.primary()
	if err != nil {
		return nil, err
	}
	return p.postfix(e)
}

func (p *parser) postfix(e Expr) (Expr, error) {
	for {
		switch {
		case p.accept('o', "::"):
			t, err := p.typeName()
			if err != nil {
				return nil, err
			}
			if e, err = castTo(e, t); err != nil {
				return nil, err
			}
		case p.accept('o', "["):
			idx, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			if err := p.expect('o', "]"); err != nil {
				return nil, err
			}
			if e.Type().Family != types.Array && e.Type().Family != types.JSONB {
				return nil, pgerr.New(pgerr.DatatypeMismatch, "cannot subscript type %s because it does not support subscripting", typeName(e.Type()))
			}
			if idx, err = coerce(idx, types.TypeInt4); err != nil {
				return nil, err
			}
			e = &Subscript{Arr: e, Index: []Expr{idx}}
		default:
			return e, nil
		}
	}
}

var typeWords = map[string]types.Type{
	"int": types.TypeInt4, "integer": types.TypeInt4, "int4": types.TypeInt4, "smallint": types.TypeInt2,
	"int2": types.TypeInt2, "bigint": types.TypeInt8, "int8": types.TypeInt8, "real": types.TypeFloat4,
	"float4": types.TypeFloat4, "float8": types.TypeFloat8, "float": types.TypeFloat8, "numeric": types.TypeNumeric,
	"decimal": types.TypeNumeric, "text": types.TypeText, "varchar": types.TypeVarchar, "char": types.TypeChar,
	"bpchar": types.TypeChar, "name": types.TypeName, "bytea": types.TypeBytea, "date": types.TypeDate,
	"time": types.TypeTime, "timestamp": types.TypeTimestamp, "timestamptz": types.TypeTimestampTZ,
	"interval": types.TypeInterval, "uuid": types.TypeUUID, "json": types.TypeJSON, "jsonb": types.TypeJSONB,
	"bool": types.TypeBool, "boolean": types.TypeBool, "oid": types.TypeOid,
}

func (p *parser) typeName() (types.Type, error) {
	w := p.next()
	if w.kind != 'i' {
		return types.Type{}, fmt.Errorf("expected type name at %q", w.text)
	}
	name := w.text
	switch {
	case name == "double" && p.accept('i', "precision"):
		name = "float8"
	case name == "character" && p.accept('i', "varying"):
		name = "varchar"
	case name == "character":
		name = "char"
	}
	t, ok := typeWords[name]
	if !ok {
		return types.Type{}, pgerr.New(pgerr.UndefinedObject, "type \"%s\" does not exist", name)
	}
	if p.accept('o', "(") {
		var mods []int32
		for {
			n := p.next()
			v, _ := strconv.Atoi(n.text)
			mods = append(mods, int32(v))
			if p.accept('o', ")") {
				break
			}
			if err := p.expect('o', ","); err != nil {
				return types.Type{}, err
			}
		}
		if t.Family == types.Numeric {
			s := int32(0)
			if len(mods) > 1 {
				s = mods[1]
			}
			t.Mod = types.NumericMod(mods[0], s)
		} else {
			t.Mod = mods[0]
		}
	} else if t.Family == types.Char {
		t.Mod = 1
	}
	if (t.Family == types.Timestamp || t.Family == types.Time) && p.isKw("with") {
		p.next()
		p.next()
		p.next()
		if t.Family == types.Timestamp {
			t.Family = types.TimestampTZ
		}
	} else if p.isKw("without") {
		p.next()
		p.next()
		p.next()
	}
	for p.isOp("[") && p.toks[p.pos+1].text == "]" {
		p.pos += 2
		t = types.ArrayOf(t)
	}
	return t, nil
}

func (p *parser) primary() (Expr, error) {
	t := p.next()
	switch t.kind {
	case 'n':
		e, err := numberLiteral(t.text)
		if err == nil {
			p.lits[e.(*Const)] = t.text
		}
		return e, err
	case 's':
		return NewConst(types.NewText(t.text), types.TypeUnknown), nil
	case 'p':
		n, _ := strconv.Atoi(t.text)
		return &Param{Idx: n - 1, Typ: p.params[n-1]}, nil
	case 'o':
		switch t.text {
		case "(":
			e, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			return e, p.expect('o', ")")
		case "-", "+", "@", "~", "|/", "||/", "!!":
			arg, err := p.exprUnary(t.text)
			if err != nil {
				return nil, err
			}
			return arg, nil
		}
	case 'i':
		return p.keyword(t.text)
	}
	return nil, fmt.Errorf("unexpected %q", t.text)
}

func (p *parser) exprUnary(op string) (Expr, error) {
	prec := precUnary
	if op != "-" && op != "+" {
		prec = precOther
	}
	arg, err := p.expr(prec)
	if err != nil {
		return nil, err
	}
	if c, ok := arg.(*Const); ok && op == "-" && c.Typ.Family.IsNumeric() {
		if n, ok := p.negLiteral(c); ok {
			return n, nil
		}
	}
	return unOp(op, arg)
}

// negLiteral folds -<number literal> into the literal, as the grammar's
// doNegate does on the literal's text (parentheses do not matter): the
// type is then chosen from the negated text, so -2147483648 is an int4 and
// -(-2147483648) an int8.
func (p *parser) negLiteral(c *Const) (Expr, bool) {
	text, ok := p.lits[c]
	if !ok {
		return nil, false
	}
	if strings.HasPrefix(text, "-") {
		text = text[1:]
	} else {
		text = "-" + text
	}
	e, err := numberLiteral(text)
	if err != nil {
		return nil, false
	}
	p.lits[e.(*Const)] = text
	return e, true
}

func numberLiteral(s string) (Expr, error) {
	if !strings.ContainsAny(s, ".eE") {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			if v >= -1<<31 && v < 1<<31 {
				return NewConst(types.NewInt4(int32(v)), types.TypeInt4), nil
			}
			return NewConst(types.NewInt8(v), types.TypeInt8), nil
		}
	}
	d, err := castDatum(types.NewText(s), types.TypeUnknown, types.TypeNumeric, nil)
	if err != nil {
		return nil, err
	}
	return NewConst(d, types.TypeNumeric), nil
}

func (p *parser) keyword(w string) (Expr, error) {
	switch w {
	case "null":
		return NullOf(types.TypeUnknown), nil
	case "true":
		return NewConst(types.DTrue, types.TypeBool), nil
	case "false":
		return NewConst(types.DFalse, types.TypeBool), nil
	case "not":
		arg, err := p.expr(precNot)
		if err != nil {
			return nil, err
		}
		a, err := coerceBool(arg)
		return &Not{Arg: a}, err
	case "case":
		return p.caseExpr()
	case "array":
		if err := p.expect('o', "["); err != nil {
			return nil, err
		}
		elems, err := p.list("]")
		if err != nil {
			return nil, err
		}
		elems, t, err := unify(elems, "ARRAY")
		if err != nil {
			return nil, err
		}
		if len(elems) == 0 {
			return nil, pgerr.New(pgerr.Code("42P18"), "cannot determine type of empty array")
		}
		return &ArrayExpr{Elems: elems, Typ: types.ArrayOf(t)}, nil
	case "cast":
		if err := p.expect('o', "("); err != nil {
			return nil, err
		}
		e, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		if err := p.expect('i', "as"); err != nil {
			return nil, err
		}
		t, err := p.typeName()
		if err != nil {
			return nil, err
		}
		if err := p.expect('o', ")"); err != nil {
			return nil, err
		}
		return castTo(e, t)
	case "current_date", "current_timestamp", "localtimestamp", "current_time", "localtime":
		return callFunc(w, nil)
	}
	if t, ok := typeWords[w]; ok && p.peek().kind == 's' || w == "double" || w == "timestamp" && p.isKw("with") {
		if w == "double" {
			p.next()
			t = types.TypeFloat8
		}
		if w == "timestamp" {
			p.pos--
			var err error
			if t, err = p.typeName(); err != nil {
				return nil, err
			}
		}
		lit := p.next()
		return castTo(NewConst(types.NewText(lit.text), types.TypeUnknown), t)
	}
	if w == "x" && p.column != nil {
		return &ColRef{Idx: 0, Typ: *p.column}, nil
	}
	if !p.accept('o', "(") {
		return nil, pgerr.New(pgerr.UndefinedColumn, "column \"%s\" does not exist", w)
	}
	if IsAggregate(w) {
		return p.aggCall(w)
	}
	switch w {
	case "coalesce", "greatest", "least", "nullif":
		args, err := p.list(")")
		if err != nil {
			return nil, err
		}
		args, t, err := unify(args, strings.ToUpper(w))
		if err != nil {
			return nil, err
		}
		switch w {
		case "coalesce":
			return &Coalesce{Args: args, Typ: t}, nil
		case "greatest":
			return &Greatest{Args: args, Typ: t}, nil
		case "least":
			return &Least{Args: args, Typ: t}, nil
		}
		return &NullIf{L: args[0], R: args[1]}, nil
	case "extract":
		f := p.next()
		if err := p.expect('i', "from"); err != nil {
			return nil, err
		}
		arg, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		if err := p.expect('o', ")"); err != nil {
			return nil, err
		}
		return callFunc("extract", []Expr{NewConst(types.NewText(f.text), types.TypeUnknown), arg})
	case "position":
		a, err := p.expr(precLike)
		if err != nil {
			return nil, err
		}
		if err := p.expect('i', "in"); err != nil {
			return nil, err
		}
		b, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		if err := p.expect('o', ")"); err != nil {
			return nil, err
		}
		return callFunc("position", []Expr{b, a})
	case "substring":
		s, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		args := []Expr{s}
		if p.accept('i', "from") {
			from, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			args = append(args, from)
			if p.accept('i', "for") {
				n, err := p.expr(0)
				if err != nil {
					return nil, err
				}
				args = append(args, n)
			}
		} else if p.accept('i', "for") {
			n, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			args = append(args, NewConst(types.NewInt4(1), types.TypeInt4), n)
		} else {
			for p.accept('o', ",") {
				a, err := p.expr(0)
				if err != nil {
					return nil, err
				}
				args = append(args, a)
			}
		}
		if err := p.expect('o', ")"); err != nil {
			return nil, err
		}
		return callFunc("substring", args)
	case "overlay":
		var args []Expr
		for _, kw := range []string{"placing", "from", "for"} {
			a, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			if !p.accept('i', kw) {
				break
			}
		}
		if len(args) < 4 && !p.isOp(")") {
			a, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			args = append(args, a)
		}
		if err := p.expect('o', ")"); err != nil {
			return nil, err
		}
		return callFunc("overlay", args)
	case "trim":
		fn := "btrim"
		switch {
		case p.accept('i', "both"):
		case p.accept('i', "leading"):
			fn = "ltrim"
		case p.accept('i', "trailing"):
			fn = "rtrim"
		}
		var chars Expr
		if !p.accept('i', "from") {
			c, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			chars = c
			if !p.accept('i', "from") {
				if err := p.expect('o', ")"); err != nil {
					return nil, err
				}
				return callFunc(fn, []Expr{c})
			}
		}
		s, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		if err := p.expect('o', ")"); err != nil {
			return nil, err
		}
		if chars == nil {
			return callFunc(fn, []Expr{s})
		}
		return callFunc(fn, []Expr{s, chars})
	}
	args, err := p.list(")")
	if err != nil {
		return nil, err
	}
	return callFunc(w, args)
}

func (p *parser) caseExpr() (Expr, error) {
	var subject Expr
	if !p.isKw("when") {
		s, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		subject = s
	}
	var conds, results []Expr
	for p.accept('i', "when") {
		c, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		if subject != nil {
			if c, err = binOp("=", subject, c); err != nil {
				return nil, err
			}
		} else if c, err = coerceBool(c); err != nil {
			return nil, err
		}
		if err := p.expect('i', "then"); err != nil {
			return nil, err
		}
		r, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		conds, results = append(conds, c), append(results, r)
	}
	var els Expr
	if p.accept('i', "else") {
		e, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		els = e
	}
	if err := p.expect('i', "end"); err != nil {
		return nil, err
	}
	all := results
	if els != nil {
		all = append(all, els)
	}
	all, t, err := unify(all, "CASE")
	if err != nil {
		return nil, err
	}
	c := &Case{Typ: t}
	for i := range conds {
		c.Whens = append(c.Whens, When{Cond: conds[i], Result: all[i]})
	}
	if els != nil {
		c.Else = all[len(all)-1]
	}
	return c, nil
}

// coerce converts e to type t the way the binder does: an unknown literal
// is read as t directly, anything else gets a Cast node.
func coerce(e Expr, t types.Type) (Expr, error) {
	if sameType(e.Type(), t) && (t.Mod < 0 || e.Type().Mod == t.Mod) {
		return e, nil
	}
	if c, ok := e.(*Const); ok && c.Typ.Family == types.Unknown {
		if c.Val.IsNull() {
			return NullOf(t), nil
		}
		d, err := castDatum(c.Val, types.TypeUnknown, t, bindConfig)
		if err != nil {
			return nil, err
		}
		return NewConst(d, t), nil
	}
	return &Cast{Arg: e, To: t}, nil
}

func castTo(e Expr, t types.Type) (Expr, error) {
	if c, ok := e.(*Const); ok && c.Typ.Family == types.Unknown {
		return coerce(e, t)
	}
	return &Cast{Arg: e, To: t}, nil
}

func coerceBool(e Expr) (Expr, error) {
	if e.Type().Family == types.Unknown {
		return coerce(e, types.TypeBool)
	}
	if e.Type().Family != types.Bool {
		return nil, pgerr.New(pgerr.DatatypeMismatch, "argument of AND must be type boolean, not type %s", typeName(e.Type()))
	}
	return e, nil
}

func coerceAll(args []Expr, targets []types.Type) ([]Expr, error) {
	out := make([]Expr, len(args))
	for i, a := range args {
		c, err := coerce(a, targets[i])
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

func argTypes(args []Expr) []types.Type {
	ts := make([]types.Type, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	return ts
}

func callFunc(name string, args []Expr) (Expr, error) {
	fn, targets, err := ResolveFunc(name, argTypes(args))
	if err != nil {
		return nil, err
	}
	args, err = coerceAll(args, targets)
	if err != nil {
		return nil, err
	}
	return &Call{Fn: fn, Args: args}, nil
}

func binOp(op string, l, r Expr) (Expr, error) {
	fn, targets, err := ResolveBinaryOp(op, l.Type(), r.Type())
	if err != nil {
		return nil, err
	}
	args, err := coerceAll([]Expr{l, r}, targets)
	if err != nil {
		return nil, err
	}
	return &Call{Fn: fn, Args: args}, nil
}

func unOp(op string, a Expr) (Expr, error) {
	fn, targets, err := ResolveUnaryOp(op, a.Type())
	if err != nil {
		return nil, err
	}
	args, err := coerceAll([]Expr{a}, targets)
	if err != nil {
		return nil, err
	}
	return &Call{Fn: fn, Args: args}, nil
}

func bindAnyAll(op string, l, arr Expr, all bool) (Expr, error) {
	at := arr.Type()
	if at.Family == types.Unknown {
		lt := l.Type()
		if lt.Family == types.Unknown {
			lt = types.TypeText
		}
		var err error
		if arr, err = coerce(arr, types.ArrayOf(lt)); err != nil {
			return nil, err
		}
		at = arr.Type()
	}
	if at.Family != types.Array {
		return nil, pgerr.New(pgerr.WrongObjectType, "op ANY/ALL (array) requires array on right side")
	}
	fn, targets, err := ResolveBinaryOp(op, l.Type(), at.ElemType())
	if err != nil {
		return nil, err
	}
	if l, err = coerce(l, targets[0]); err != nil {
		return nil, err
	}
	if arr, err = coerce(arr, types.ArrayOf(targets[1])); err != nil {
		return nil, err
	}
	return &AnyAll{Arg: l, Op: fn, Array: arr, All: all}, nil
}

func unify(es []Expr, ctx string) ([]Expr, types.Type, error) {
	t, err := CommonType(argTypes(es), ctx)
	if err != nil {
		return nil, t, err
	}
	out := make([]Expr, len(es))
	for i, e := range es {
		if out[i], err = coerce(e, t); err != nil {
			return nil, t, err
		}
	}
	return out, t, nil
}

func unifyPair(l, r Expr, ctx string) (Expr, Expr, error) {
	es, _, err := unify([]Expr{l, r}, ctx)
	if err != nil {
		return nil, nil, err
	}
	return es[0], es[1], nil
}

// aggNode is an aggregate call in a test expression.
type aggNode struct {
	fn       *AggFunc
	args     []Expr
	distinct bool
	order    []Expr
	desc     []bool
}

func (a *aggNode) Type() types.Type           { return a.fn.Ret }
func (a *aggNode) String() string             { return a.fn.Name + "(...)" }
func (a *aggNode) Children() []Expr           { return nil }
func (a *aggNode) WithChildren(c []Expr) Expr { return a }

func (p *parser) aggCall(name string) (Expr, error) {
	a := &aggNode{}
	if p.accept('o', "*") {
		if err := p.expect('o', ")"); err != nil {
			return nil, err
		}
	} else {
		a.distinct = p.accept('i', "distinct")
		for {
			e, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			a.args = append(a.args, e)
			if !p.accept('o', ",") {
				break
			}
		}
		if p.accept('i', "order") {
			if err := p.expect('i', "by"); err != nil {
				return nil, err
			}
			for {
				e, err := p.expr(0)
				if err != nil {
					return nil, err
				}
				desc := p.accept('i', "desc")
				p.accept('i', "asc")
				a.order, a.desc = append(a.order, e), append(a.desc, desc)
				if !p.accept('o', ",") {
					break
				}
			}
		}
		if err := p.expect('o', ")"); err != nil {
			return nil, err
		}
	}
	fn, targets, err := ResolveAggregate(name, argTypes(a.args), a.distinct)
	if err != nil {
		return nil, err
	}
	if a.args, err = coerceAll(a.args, targets); err != nil {
		return nil, err
	}
	a.fn = fn
	return a, nil
}
