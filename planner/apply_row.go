package planner

import (
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// A correlated plan that computes its rows from the enclosing row alone —
// projections, filters and table functions over a constant VALUES, as
// `CROSS JOIN LATERAL jsonb_array_elements(t.items)` or `LATERAL (SELECT
// t.a + 1 AS b)` — needs no domain: it is a map or flat-map of each
// enclosing row. removeApply plans such an Apply as that map over the
// left side itself, instead of computing the plan once per distinct
// domain value and joining back. The join would keep every distinct
// domain value (a whole JSON array per order) and both of its sides in a
// maintained view's state; the flat-map keeps nothing.
//
// Only an inner Apply qualifies: a LEFT JOIN LATERAL must keep the left
// rows the function yields nothing for, which a flat-map drops.

// rowLocal reports whether n's rows are a function of the enclosing row
// alone: Project, Filter and FlatMap over VALUES.
func rowLocal(n Node) bool {
	for {
		switch x := n.(type) {
		case *Project:
			n = x.Input
		case *Filter:
			n = x.Input
		case *FlatMap:
			n = x.Input
		case *Values:
			return true
		default:
			return false
		}
	}
}

// applyPerRow plans an inner Apply whose right side is rowLocal as that
// right side evaluated over the left side's rows: the left columns
// followed by the right's, as the Apply's own output.
func applyPerRow(a *Apply) (Node, error) {
	lcols := a.Left.Columns()
	of := make(map[int]int, len(lcols))
	for i := range lcols {
		of[i] = i
	}
	d := &domainPush{domain: a.Left, k: len(lcols), of: of}
	return d.pushRow(a.Right)
}

// pushRow is push for a rowLocal plan with the left side as the domain:
// each node keeps the left columns in front of its own, and VALUES
// becomes one projection of the left side per row (a union of them for
// several rows), never a cross join, which would keep both sides.
func (d *domainPush) pushRow(n Node) (Node, error) {
	if v, ok := n.(*Values); ok {
		return d.valuesPerRow(v), nil
	}
	var in Node
	switch x := n.(type) {
	case *Filter:
		in = x.Input
	case *Project:
		in = x.Input
	case *FlatMap:
		in = x.Input
	default:
		return nil, pgerr.New(pgerr.InternalError, "planner: a per-row apply over %T", n)
	}
	in, err := d.pushRow(in)
	if err != nil {
		return nil, err
	}
	switch x := n.(type) {
	case *Filter:
		return &Filter{Input: in, Pred: d.expr(x.Pred)}, nil
	case *Project:
		exprs := append(d.domainCols(), d.exprs(x.Exprs)...)
		cols := append(append([]Column(nil), d.domain.Columns()...), x.Cols...)
		return &Project{Input: in, Exprs: exprs, Cols: cols}, nil
	}
	f := n.(*FlatMap)
	return &FlatMap{Input: in, Func: f.Func, Args: d.exprs(f.Args), Cols: f.Cols, Ordinality: f.Ordinality}, nil
}

// valuesPerRow is VALUES beside each domain row: one projection of the
// domain per row of VALUES, a union of them for several.
func (d *domainPush) valuesPerRow(v *Values) Node {
	cols := append(append([]Column(nil), d.domain.Columns()...), v.Cols...)
	if len(v.Rows) == 0 {
		exprs := d.domainCols()
		for _, c := range v.Cols {
			exprs = append(exprs, scalar.NullOf(c.Type))
		}
		empty := &Project{Input: d.domain, Exprs: exprs, Cols: cols}
		return &Filter{Input: empty, Pred: scalar.NewConst(types.DFalse, types.TypeBool)}
	}
	var out Node
	for _, row := range v.Rows {
		p := &Project{Input: d.domain, Exprs: append(d.domainCols(), d.valuesRow(row)...), Cols: cols}
		if out == nil {
			out = p
			continue
		}
		out = &SetOp{Kind: Union, All: true, Left: out, Right: p}
	}
	return out
}
