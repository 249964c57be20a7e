package scalar

import (
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/types"
)

// The String methods print the EXPLAIN form of expressions.

func (e *ColRef) String() string { return "#" + strconv.Itoa(e.Idx) }

// String prints the constant as a SQL literal: numbers and booleans bare,
// everything else quoted with its type unless it is text.
func (e *Const) String() string {
	if e.Val.IsNull() {
		if e.Typ.Family == types.Unknown {
			return "NULL"
		}
		return "NULL::" + typeName(e.Typ)
	}
	if e.Typ.Family == types.Bool {
		if e.Val.Bool() {
			return "true"
		}
		return "false"
	}
	s := datumText(e.Val, e.Typ, defaultText)
	switch e.Typ.Family {
	case types.Int4, types.Int8, types.Numeric:
		if strings.HasPrefix(s, "-") {
			return "(" + s + ")"
		}
		if e.Typ.Family == types.Numeric && !strings.Contains(s, ".") && !strings.Contains(s, "N") {
			return s + "::numeric"
		}
		return s
	case types.Text:
		return quoteLiteral(s)
	}
	return quoteLiteral(s) + "::" + typeName(e.Typ)
}

func (e *Param) String() string { return "$" + strconv.Itoa(e.Idx+1) }

func (e *Cast) String() string { return e.Arg.String() + "::" + typeName(e.To) }

func (e *Call) String() string {
	if e.Fn.Op {
		if len(e.Args) == 2 {
			return "(" + e.Args[0].String() + " " + e.Fn.Name + " " + e.Args[1].String() + ")"
		}
		return "(" + e.Fn.Name + " " + e.Args[0].String() + ")"
	}
	return e.Fn.Name + "(" + joinExprs(e.Args, ", ") + ")"
}

func joinExprs(es []Expr, sep string) string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.String()
	}
	return strings.Join(s, sep)
}

func (e *And) String() string { return "(" + joinExprs(e.Args, " AND ") + ")" }
func (e *Or) String() string  { return "(" + joinExprs(e.Args, " OR ") + ")" }
func (e *Not) String() string { return "(NOT " + e.Arg.String() + ")" }

func (e *IsNull) String() string {
	if e.Not {
		return "(" + e.Arg.String() + " IS NOT NULL)"
	}
	return "(" + e.Arg.String() + " IS NULL)"
}

func (e *IsTruth) String() string {
	s := "(" + e.Arg.String() + " IS "
	if e.Not {
		s += "NOT "
	}
	if e.Want {
		return s + "TRUE)"
	}
	return s + "FALSE)"
}

func (e *IsUnknown) String() string {
	if e.Not {
		return "(" + e.Arg.String() + " IS NOT UNKNOWN)"
	}
	return "(" + e.Arg.String() + " IS UNKNOWN)"
}

func (e *IsDistinctFrom) String() string {
	op := " IS DISTINCT FROM "
	if e.Not {
		op = " IS NOT DISTINCT FROM "
	}
	return "(" + e.L.String() + op + e.R.String() + ")"
}

func (e *Case) String() string {
	var b strings.Builder
	b.WriteString("CASE")
	for _, w := range e.Whens {
		b.WriteString(" WHEN " + w.Cond.String() + " THEN " + w.Result.String())
	}
	if e.Else != nil {
		b.WriteString(" ELSE " + e.Else.String())
	}
	b.WriteString(" END")
	return b.String()
}

func (e *Coalesce) String() string { return "COALESCE(" + joinExprs(e.Args, ", ") + ")" }
func (e *NullIf) String() string   { return "NULLIF(" + e.L.String() + ", " + e.R.String() + ")" }
func (e *Greatest) String() string { return "GREATEST(" + joinExprs(e.Args, ", ") + ")" }
func (e *Least) String() string    { return "LEAST(" + joinExprs(e.Args, ", ") + ")" }

func (e *In) String() string {
	op := " IN ("
	if e.Not {
		op = " NOT IN ("
	}
	return "(" + e.Arg.String() + op + joinExprs(e.List, ", ") + "))"
}

func (e *ArrayExpr) String() string { return "ARRAY[" + joinExprs(e.Elems, ", ") + "]" }
func (e *Subscript) String() string {
	s := e.Arr.String()
	for _, i := range e.Index {
		s += "[" + i.String() + "]"
	}
	return s
}

func (e *Slice) String() string {
	s := e.Arr.String()
	for i := range e.Lower {
		s += "["
		if e.Lower[i] != nil {
			s += e.Lower[i].String()
		}
		s += ":"
		if e.Upper[i] != nil {
			s += e.Upper[i].String()
		}
		s += "]"
	}
	return s
}

func (e *AnyAll) String() string {
	q := "ANY"
	if e.All {
		q = "ALL"
	}
	return "(" + e.Arg.String() + " " + e.Op.Name + " " + q + " (" + e.Array.String() + "))"
}

// quoteLiteral quotes s as a SQL string literal, doubling quotes; a
// backslash makes it an E” literal as PostgreSQL's quote_literal does.
func quoteLiteral(s string) string {
	var b strings.Builder
	if strings.Contains(s, `\`) {
		b.WriteByte('E')
	}
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\'':
			b.WriteString("''")
		case '\\':
			b.WriteString(`\\`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}
