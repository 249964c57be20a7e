package sql

import (
	"strconv"
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// parseInsertValues parses the most common bulk write, a plain
// "INSERT INTO t [(cols)] VALUES (…), …" whose values are literals,
// without the cgo round trip to PostgreSQL's grammar: pg_query's parse of
// a 1,000-row VALUES list, mostly spent encoding and decoding the tree as
// protobuf, costs several times the rest of the INSERT. It builds exactly
// the tree pg_query builds (locations included; the tests compare the
// two), and declines (ok false) anything else, which then takes the
// general path: comments, quoted identifiers, keywords as names, escape
// strings, casts, expressions, RETURNING, ON CONFLICT, more statements.
func parseInsertValues(text string) (*pg_query.Node, int, bool) {
	p := &valuesParser{s: text}
	if !p.keyword("insert") || !p.keyword("into") {
		return nil, 0, false
	}
	rel, ok := p.rangeVar()
	if !ok {
		return nil, 0, false
	}
	ins := &pg_query.InsertStmt{Relation: rel, Override: pg_query.OverridingKind_OVERRIDING_NOT_SET}
	if p.punct('(') {
		for {
			p.space()
			loc := p.i
			name, ok := p.ident()
			if !ok {
				return nil, 0, false
			}
			ins.Cols = append(ins.Cols, pg_query.MakeResTargetNodeWithName(name, int32(loc)))
			if p.punct(')') {
				break
			}
			if !p.punct(',') {
				return nil, 0, false
			}
		}
	}
	if !p.keyword("values") {
		return nil, 0, false
	}
	sel := &pg_query.SelectStmt{LimitOption: pg_query.LimitOption_LIMIT_OPTION_DEFAULT, Op: pg_query.SetOperation_SETOP_NONE}
	for {
		if !p.punct('(') {
			return nil, 0, false
		}
		start := len(p.items)
		for {
			v, ok := p.value()
			if !ok {
				return nil, 0, false
			}
			p.items = append(p.items, v)
			if p.punct(')') {
				break
			}
			if !p.punct(',') {
				return nil, 0, false
			}
		}
		sel.ValuesLists = append(sel.ValuesLists, p.listNode(p.items[start:len(p.items):len(p.items)]))
		if !p.punct(',') {
			break
		}
	}
	ins.SelectStmt = &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sel}}
	// The statement ends at an optional semicolon, followed by nothing.
	p.space()
	end := p.i
	if p.i < len(p.s) && p.s[p.i] == ';' {
		p.i++
		p.space()
	}
	if p.i != len(p.s) {
		return nil, 0, false
	}
	return &pg_query.Node{Node: &pg_query.Node_InsertStmt{InsertStmt: ins}}, end, true
}

// valuesParser scans the text of parseInsertValues.
type valuesParser struct {
	s string
	i int
	// The nodes of integer and string constants and of the rows' lists
	// are taken from blocks (nodeBlock at a time), and the rows' items
	// share one backing array: made one by one, a 1,000-row VALUES list
	// of three columns was 22,000 allocations, a tenth of the
	// INSERT's time.
	ints  []intConst
	strs  []strConst
	lists []listNode
	items []*pg_query.Node
}

// nodeBlock is how many nodes of a kind valuesParser allocates at once.
const nodeBlock = 128

// intConst, strConst and listNode hold the five or three structs that
// make up one node of pg_query's tree, allocated together.
type intConst struct {
	node   pg_query.Node
	wrap   pg_query.Node_AConst
	aconst pg_query.A_Const
	val    pg_query.A_Const_Ival
	ival   pg_query.Integer
}

type strConst struct {
	node   pg_query.Node
	wrap   pg_query.Node_AConst
	aconst pg_query.A_Const
	val    pg_query.A_Const_Sval
	sval   pg_query.String
}

type listNode struct {
	node pg_query.Node
	wrap pg_query.Node_List
	list pg_query.List
}

// next takes the next unused element of a block, starting a new block
// when it is used up.
func next[T any](block *[]T) *T {
	if len(*block) == 0 {
		*block = make([]T, nodeBlock)
	}
	c := &(*block)[0]
	*block = (*block)[1:]
	return c
}

// intNode is pg_query.MakeAConstIntNode from a block.
func (p *valuesParser) intNode(v int64, loc int32) *pg_query.Node {
	c := next(&p.ints)
	c.ival.Ival = int32(v)
	c.val.Ival = &c.ival
	c.aconst.Val, c.aconst.Location = &c.val, loc
	c.wrap.AConst = &c.aconst
	c.node.Node = &c.wrap
	return &c.node
}

// strNode is pg_query.MakeAConstStrNode from a block.
func (p *valuesParser) strNode(str string, loc int32) *pg_query.Node {
	c := next(&p.strs)
	c.sval.Sval = str
	c.val.Sval = &c.sval
	c.aconst.Val, c.aconst.Location = &c.val, loc
	c.wrap.AConst = &c.aconst
	c.node.Node = &c.wrap
	return &c.node
}

// listNode is pg_query.MakeListNode from a block.
func (p *valuesParser) listNode(items []*pg_query.Node) *pg_query.Node {
	l := next(&p.lists)
	l.list.Items = items
	l.wrap.List = &l.list
	l.node.Node = &l.wrap
	return &l.node
}

// space skips white space; a comment makes the statement decline later,
// as '-' and '/' start no token of its grammar.
func (p *valuesParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			p.i++
		default:
			return
		}
	}
}

// punct consumes c after white space.
func (p *valuesParser) punct(c byte) bool {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// word scans an unquoted ASCII identifier or keyword, folded to lower
// case, and its start.
func (p *valuesParser) word() (string, int, bool) {
	p.space()
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || p.i > start && (c >= '0' && c <= '9' || c == '$') {
			p.i++
			continue
		}
		if c >= 0x80 {
			return "", start, false // non-ASCII letters: leave to the real lexer
		}
		break
	}
	if p.i == start {
		return "", start, false
	}
	return strings.ToLower(p.s[start:p.i]), start, true
}

func (p *valuesParser) keyword(kw string) bool {
	w, _, ok := p.word()
	return ok && w == kw
}

// ident scans a name that is no keyword: keywords are names only in some
// places, which the real grammar knows.
func (p *valuesParser) ident() (string, bool) {
	w, _, ok := p.word()
	if !ok || sqlKeywords[w] || len(w) > 63 { // longer names are truncated, with a notice
		return "", false
	}
	return w, true
}

// rangeVar scans "name" or "schema.name".
func (p *valuesParser) rangeVar() (*pg_query.RangeVar, bool) {
	p.space()
	loc := int32(p.i)
	name, ok := p.ident()
	if !ok {
		return nil, false
	}
	schema := ""
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		schema = name
		if name, ok = p.ident(); !ok {
			return nil, false
		}
	}
	return &pg_query.RangeVar{Schemaname: schema, Relname: name, Inh: true, Relpersistence: "p", Location: loc}, true
}

// value scans one literal: a number (negative ones folded, as the
// grammar folds a minus sign into the constant and reports the sign's
// location), a string, NULL, TRUE, FALSE or DEFAULT.
func (p *valuesParser) value() (*pg_query.Node, bool) {
	p.space()
	loc := int32(p.i)
	if p.i >= len(p.s) {
		return nil, false
	}
	switch c := p.s[p.i]; {
	case c == '\'':
		return p.str(loc)
	case c == '-' || c == '.' || c >= '0' && c <= '9':
		return p.number(loc)
	}
	w, _, ok := p.word()
	if !ok {
		return nil, false
	}
	switch w {
	case "null":
		return &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{Isnull: true, Location: loc}}}, true
	case "true", "false":
		return &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{
			Val: &pg_query.A_Const_Boolval{Boolval: &pg_query.Boolean{Boolval: w == "true"}}, Location: loc}}}, true
	case "default":
		return &pg_query.Node{Node: &pg_query.Node_SetToDefault{SetToDefault: &pg_query.SetToDefault{Location: loc}}}, true
	}
	return nil, false
}

// str scans a standard-conforming string literal (a doubled quote stands
// for one; a backslash is itself). Adjacent literals separated by a newline, which
// the lexer concatenates, are declined.
func (p *valuesParser) str(loc int32) (*pg_query.Node, bool) {
	// A literal without a doubled quote (most are) is one copy of its
	// part of the text; a copy, not a substring, since a value kept in a
	// view (a group's key) would keep the whole statement's text alive.
	var b strings.Builder
	var val string
	p.i++
	for {
		j := strings.IndexByte(p.s[p.i:], '\'')
		if j < 0 {
			return nil, false
		}
		part := p.s[p.i : p.i+j]
		p.i += j + 1
		doubled := p.i < len(p.s) && p.s[p.i] == '\''
		if !doubled && b.Len() == 0 {
			val = strings.Clone(part)
			break
		}
		b.WriteString(part)
		if !doubled {
			val = b.String()
			break
		}
		b.WriteByte('\'')
		p.i++
	}
	if strings.IndexByte(val, 0) >= 0 || !utf8.ValidString(val) {
		return nil, false
	}
	save := p.i
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '\'' {
		return nil, false
	}
	p.i = save
	return p.strNode(val, loc), true
}

// number scans an optionally negative decimal integer or numeric
// literal: an integer that fits int32 is an Integer constant, anything
// else a Float holding the literal's text.
func (p *valuesParser) number(loc int32) (*pg_query.Node, bool) {
	neg := p.s[p.i] == '-'
	if neg {
		p.i++
	}
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	n := digits()
	isInt := true
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		isInt = false
		if digits() == 0 && n == 0 {
			return nil, false
		}
	} else if n == 0 {
		return nil, false
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, false
		}
		isInt = false
	}
	// A number must end at a delimiter ("1abc" and "1_000" are the real
	// lexer's business).
	if p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r', '\f', '\v', ',', ')':
		default:
			return nil, false
		}
	}
	lit := p.s[start:p.i]
	if isInt {
		if v, err := strconv.ParseInt(lit, 10, 32); err == nil {
			if neg {
				v = -v
			}
			return p.intNode(v, loc), true
		}
	}
	if neg {
		lit = "-" + lit
	}
	return &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{
		Val: &pg_query.A_Const_Fval{Fval: &pg_query.Float{Fval: lit}}, Location: loc}}}, true
}

// sqlKeywords are PostgreSQL's reserved, type/function-name and
// column-name keywords: words that are not plain names everywhere.
// Unreserved keywords are valid table and column names and stay out.
var sqlKeywords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		all analyse analyze and any array as asc asymmetric both case cast check collate column
		constraint create current_catalog current_date current_role current_time current_timestamp
		current_user default deferrable desc distinct do else end except false fetch for foreign
		from grant group having in initially intersect into lateral leading limit localtime
		localtimestamp not null offset on only or order placing primary references returning
		select session_user some symmetric system_user table then to trailing true union unique
		user using variadic when where window with
		authorization binary collation concurrently cross current_schema freeze full ilike inner
		is isnull join left like natural notnull outer overlaps right similar tablesample verbose
		between bigint bit boolean char character coalesce dec decimal exists extract float
		greatest grouping inout int integer interval json json_array json_arrayagg json_exists
		json_object json_objectagg json_query json_scalar json_serialize json_table json_value
		least merge_action national nchar none normalize nullif numeric out overlay position
		precision real row setof smallint substring time timestamp treat trim values varchar
		xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi
		xmlroot xmlserialize xmltable`) {
		m[w] = true
	}
	return m
}()
