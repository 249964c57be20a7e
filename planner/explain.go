package planner

import (
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/planner/scalar"
)

// Explain renders a query's plan in streamdb's one EXPLAIN format: one
// operator per line, children indented by two spaces, columns referred to
// as #n (the position in the operator's input row).
func Explain(q *Query) string {
	var b strings.Builder
	if len(q.Order) > 0 || q.Limit != nil || q.Offset != nil {
		b.WriteString("Finish")
		if len(q.Order) > 0 {
			b.WriteString(" order_by=[")
			b.WriteString(sortKeys(q.Order))
			b.WriteString("]")
		}
		if q.Limit != nil {
			b.WriteString(" limit=" + q.Limit.String())
		}
		if q.Offset != nil {
			b.WriteString(" offset=" + q.Offset.String())
		}
		if q.Hidden > 0 {
			b.WriteString(" hidden=" + strconv.Itoa(q.Hidden))
		}
		b.WriteByte('\n')
		newExplainer(&b).node(q.Root, 1)
	} else {
		newExplainer(&b).node(q.Root, 0)
	}
	return b.String()
}

// ExplainNode renders a relation.
func ExplainNode(n Node) string {
	var b strings.Builder
	newExplainer(&b).node(n, 0)
	return b.String()
}

// explainer writes EXPLAIN. A plan Physical decided shows the operators
// that run: a join that builds its consumer's rows is shown in its
// consumer's place, with what it took over (fusedJoin).
type explainer struct {
	b     *strings.Builder
	fused map[*Join]string
}

func newExplainer(b *strings.Builder) *explainer {
	return &explainer{b: b, fused: map[*Join]string{}}
}

func (e *explainer) line(depth int, s string) {
	e.b.WriteString(strings.Repeat("  ", depth))
	e.b.WriteString(s)
	e.b.WriteByte('\n')
}

func (e *explainer) node(n Node, depth int) {
	if in, ok := fusedJoin(n, e.fused); ok {
		e.node(in, depth)
		return
	}
	switch x := n.(type) {
	case *Join:
		e.line(depth, describe(n)+e.fused[x])
	case *Window:
		if x.Numbered {
			// The top-k numbers its rows; no window runs.
			t := x.Input.(*TopK)
			fusedJoin(t, e.fused)
			e.line(depth, describe(t)+" numbered")
			e.node(t.Input, depth+1)
			return
		}
		e.line(depth, describe(n))
	default:
		e.line(depth, describe(n))
	}
	for _, in := range n.Inputs() {
		e.node(in, depth+1)
	}
}

// fusedJoin notes in fused what n's input join takes over from n, when
// Physical fused them: a projection's columns, which the join builds (n
// itself then does not run: ok is true and in is the join), or a top-k's
// gate.
func fusedJoin(n Node, fused map[*Join]string) (in Node, ok bool) {
	switch x := n.(type) {
	case *Project:
		if x.JoinBuilds {
			j := x.Input.(*Join)
			fused[j] += " output=[" + exprList(x.Exprs) + "]"
			return j, true
		}
	case *TopK:
		if x.Gated {
			fused[x.Input.(*Join)] += " gated by the top-k"
		}
	}
	return nil, false
}

// spansText renders a Get's key spans: "lookup=[1, 2]" for the values of
// the leading key columns, alternatives separated by " | "; a span with a
// range as "range=[…]", conditions over the key columns (#n) that the span
// stands for.
func spansText(g *Get) string {
	ranged := g.Spans[0].Lo != nil || g.Spans[0].Hi != nil
	parts := make([]string, len(g.Spans))
	for i, sp := range g.Spans {
		if !ranged {
			parts[i] = "[" + exprList(sp.Prefix) + "]"
			continue
		}
		var conds []string
		for j, v := range sp.Prefix {
			conds = append(conds, "#"+strconv.Itoa(g.KeyCols[j])+" = "+v.String())
		}
		col := "#" + strconv.Itoa(g.KeyCols[len(sp.Prefix)])
		if sp.Lo != nil {
			op := " > "
			if sp.Lo.Inclusive {
				op = " >= "
			}
			conds = append(conds, col+op+sp.Lo.Value.String())
		}
		if sp.Hi != nil {
			op := " < "
			if sp.Hi.Inclusive {
				op = " <= "
			}
			conds = append(conds, col+op+sp.Hi.Value.String())
		}
		parts[i] = "[" + strings.Join(conds, " and ") + "]"
	}
	if ranged {
		return "range=" + strings.Join(parts, " | ")
	}
	return "lookup=" + strings.Join(parts, " | ")
}

func exprList(es []scalar.Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}

func intList(is []int) string {
	parts := make([]string, len(is))
	for i, v := range is {
		parts[i] = "#" + strconv.Itoa(v)
	}
	return strings.Join(parts, ", ")
}

func sortKeys(ks []SortKey) string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		s := k.Expr.String()
		if k.Desc {
			s += " desc"
		}
		if k.NullsFirst != k.Desc {
			if k.NullsFirst {
				s += " nulls_first"
			} else {
				s += " nulls_last"
			}
		}
		parts[i] = s
	}
	return strings.Join(parts, ", ")
}

func describe(n Node) string {
	switch x := n.(type) {
	case *Recursive:
		if x.Union {
			return "Recursive " + x.Name + " union"
		}
		return "Recursive " + x.Name + " union_all"
	case *WorkTable:
		return "WorkTable " + x.Name
	case *Get:
		s := "Get " + x.Name
		if x.Spans != nil {
			s += " " + spansText(x)
			if x.IndexName != "" {
				s += " index=" + x.IndexName
			}
		}
		if x.WithKey {
			s += " with_key"
		}
		return s
	case *Values:
		rows := make([]string, len(x.Rows))
		for i, r := range x.Rows {
			rows[i] = "(" + exprList(r) + ")"
		}
		return "Values " + strings.Join(rows, ", ")
	case *Filter:
		return "Filter " + x.Pred.String()
	case *Project:
		return "Project " + exprList(x.Exprs)
	case *Join:
		s := "Join " + x.Kind.String()
		if x.On != nil && !isTrue(x.On) {
			s += " on=" + x.On.String()
		}
		return s
	case *Apply:
		if x.Guard != nil {
			return "Apply " + x.Kind.String() + " guard=" + x.Guard.String()
		}
		return "Apply " + x.Kind.String()
	case *Aggregate:
		aggs := make([]string, len(x.Aggs))
		for i, a := range x.Aggs {
			name := "single_value"
			if a.Func != nil {
				name = a.Func.Name
			}
			arg := exprList(a.Args)
			if a.Func != nil && len(a.Args) == 0 {
				arg = "*"
			}
			if a.Distinct {
				arg = "distinct " + arg
			}
			s := name + "(" + arg
			if len(a.Order) > 0 {
				s += " order_by " + sortKeys(a.Order)
			}
			s += ")"
			if a.Filter != nil {
				s += " filter " + a.Filter.String()
			}
			aggs[i] = s
		}
		s := "Aggregate keys=[" + exprList(x.Keys) + "] aggs=[" + strings.Join(aggs, ", ") + "]"
		if x.AppendOnly {
			s += " append_only"
		}
		return s
	case *Distinct:
		return "Distinct"
	case *SetOp:
		s := "SetOp " + x.Kind.String()
		if x.All {
			s += " all"
		}
		return s
	case *TopK:
		s := "TopK" + topKArgs(x)
		if x.Monotonic {
			s += " monotonic"
		}
		return s
	case *FlatMap:
		s := "FlatMap " + x.Func.Name + "(" + exprList(x.Args) + ")"
		if x.Ordinality {
			s += " with_ordinality"
		}
		return s
	case *Window:
		calls := make([]string, len(x.Calls))
		for i, c := range x.Calls {
			name := ""
			if c.Func != nil {
				name = c.Func.Name
			} else if c.Agg != nil {
				name = c.Agg.Name
			}
			calls[i] = name + "(" + exprList(c.Args) + ")"
			if c.Filter != nil {
				calls[i] += " filter " + c.Filter.String()
			}
			if c.Frame != DefaultFrame && c.Frame != (Frame{}) {
				calls[i] += " " + frameText(c.Frame)
			}
		}
		s := "Window"
		if len(x.PartitionBy) > 0 {
			s += " partition_by=[" + intList(x.PartitionBy) + "]"
		}
		if len(x.Order) > 0 {
			s += " order_by=[" + sortKeys(x.Order) + "]"
		}
		return s + " calls=[" + strings.Join(calls, ", ") + "]"
	}
	return "?"
}

// topKArgs renders a top-k's groups, order, limit and offset.
func topKArgs(x *TopK) string {
	var s string
	if len(x.Group) > 0 {
		s += " group=[" + intList(x.Group) + "]"
	}
	if len(x.Order) > 0 {
		s += " order_by=[" + sortKeys(x.Order) + "]"
	}
	if x.Limit != nil {
		s += " limit=" + x.Limit.String()
	}
	if x.Offset != nil {
		s += " offset=" + x.Offset.String()
	}
	return s
}

// frameText renders a frame clause: "rows between 1 preceding and
// current row exclude ties".
func frameText(f Frame) string {
	bound := func(b FrameBound) string {
		switch b.Kind {
		case UnboundedPreceding:
			return "unbounded preceding"
		case OffsetPreceding:
			return b.Offset.String() + " preceding"
		case CurrentRow:
			return "current row"
		case OffsetFollowing:
			return b.Offset.String() + " following"
		}
		return "unbounded following"
	}
	s := [...]string{"range", "rows", "groups"}[f.Mode] + " between " + bound(f.Start) + " and " + bound(f.End)
	if f.Exclude != ExcludeNoOthers {
		s += " exclude " + f.Exclude.String()
	}
	return s
}
