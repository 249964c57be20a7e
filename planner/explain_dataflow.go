package planner

import (
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/planner/scalar"
)

// ExplainDataflow renders the dataflow operators an optimised query
// lowers to in a maintained view, in EXPLAIN's format: what EXPLAIN
// DATAFLOW shows. It reads the decisions Physical records, as lowering
// does, and names each node by the operators lowering builds for it.
func ExplainDataflow(q *Query) string {
	var b strings.Builder
	e := &dataflowExplainer{b: &b, fused: map[*Join]string{}}
	e.node(PhysicalQuery(q, Maintained).Root, 0)
	return b.String()
}

// dataflowExplainer writes EXPLAIN DATAFLOW.
type dataflowExplainer struct {
	b *strings.Builder
	// fused holds what joins do beyond joining, as lowering fuses it
	// into them: the top-k gate, the projection of their output.
	fused map[*Join]string
}

func (e *dataflowExplainer) node(n Node, depth int) {
	b := e.b
	line := func(d int, s string) {
		b.WriteString(strings.Repeat("  ", d))
		b.WriteString(s)
		b.WriteByte('\n')
	}
	switch x := n.(type) {
	case *Get:
		if x.Spans != nil {
			via := ""
			if x.IndexName != "" {
				via = " index=" + x.IndexName
			}
			line(depth, "Lookup "+x.Name+" "+spansText(x)+via)
		} else {
			line(depth, "Input "+x.Name)
		}
		return
	case *Values:
		line(depth, "Constant rows="+strconv.Itoa(len(x.Rows)))
		return
	case *Filter:
		line(depth, describe(x))
	case *Project:
		if isIdentity(x.Exprs, len(x.Input.Columns())) {
			e.node(x.Input, depth)
			return
		}
		if j, ok := fusedJoin(x, e.fused); ok {
			e.node(j, depth)
			return
		}
		line(depth, "Map "+exprList(x.Exprs))
	case *Distinct:
		line(depth, "Distinct")
	case *Aggregate:
		line(depth, "Reduce "+strings.TrimPrefix(describe(x), "Aggregate "))
	case *TopK:
		fusedJoin(x, e.fused)
		line(depth, topKOperator(x))
	case *FlatMap:
		line(depth, describe(x))
	case *Window:
		if x.Numbered {
			// The top-k numbers its rows; no Window runs.
			t := x.Input.(*TopK)
			fusedJoin(t, e.fused)
			line(depth, topKOperator(t)+" numbered")
			e.node(t.Input, depth+1)
			return
		}
		line(depth, describe(x))
	case *SetOp:
		switch {
		case x.Kind == Union && x.All:
			line(depth, "Union")
		case x.Kind == Union:
			line(depth, "Distinct")
			line(depth+1, "Union")
			depth++
		default:
			line(depth, "Threshold "+x.Kind.String()+allSuffix(x.All))
		}
	case *Join:
		e.join(x, depth, line)
		return
	default:
		line(depth, describe(n))
	}
	for _, in := range n.Inputs() {
		e.node(in, depth+1)
	}
}

func allSuffix(all bool) string {
	if all {
		return " all"
	}
	return ""
}

func (e *dataflowExplainer) join(j *Join, depth int, line func(int, string)) {
	if v, constLeft, ok := constantJoin(j); ok {
		if j.On != nil && !isTrue(j.On) {
			line(depth, "Filter "+j.On.String())
			depth++
		}
		line(depth, "FlatMap × constant rows="+strconv.Itoa(len(v.Rows)))
		other := j.Left
		if constLeft {
			other = j.Right
		}
		e.node(other, depth+1)
		return
	}
	lw := len(j.Left.Columns())
	pairs, rest := splitJoinCondition(j.On, lw, j.NullSafe)
	keys := make([]string, len(pairs))
	for i, p := range pairs {
		op := " = "
		if p.NullSafe {
			op = " IS NOT DISTINCT FROM "
		}
		keys[i] = p.Left.String() + op + "r" + p.Right.String()
	}
	desc := "keys=[" + strings.Join(keys, ", ") + "]"
	if len(pairs) == 0 {
		desc = "cross"
	}
	residual := ""
	if len(rest) > 0 {
		residual = " residual=" + scalar.NewAnd(rest).String()
	}
	switch j.Kind {
	case InnerJoin:
		line(depth, "Join "+desc+residual+joinExpiryText(j)+e.fused[j])
	case SemiJoin, AntiJoin:
		name := "SemiJoin"
		if j.Kind == AntiJoin {
			name = "AntiJoin"
		}
		line(depth, name+" "+desc+residual)
	default:
		line(depth, "Union ("+j.Kind.String()+" outer join)")
		line(depth+1, "Join "+desc+residual)
		switch j.Kind {
		case LeftJoin:
			line(depth+1, "AntiJoin left unmatched, padded with NULLs")
		case RightJoin:
			line(depth+1, "AntiJoin right unmatched, padded with NULLs")
		case FullJoin:
			line(depth+1, "AntiJoin left unmatched, padded with NULLs")
			line(depth+1, "AntiJoin right unmatched, padded with NULLs")
		}
		depth++
	}
	e.node(j.Left, depth+1)
	e.node(j.Right, depth+1)
}

// joinExpiryText says which of a join's sides forget rows, and by which
// column.
func joinExpiryText(j *Join) string {
	var s string
	for i, x := range []*JoinExpiry{j.LeftExpire, j.RightExpire} {
		if x != nil {
			s += " expire_" + [...]string{"left", "right"}[i] + "=#" + strconv.Itoa(x.Col)
		}
	}
	return s
}

// topKOperator names the top-k operator t lowers to, with its arguments.
func topKOperator(t *TopK) string {
	if t.Monotonic {
		return "MonotonicTopK" + topKArgs(t)
	}
	return "TopK" + topKArgs(t)
}
