package planner

import (
	"slices"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// removeApplies replaces every Apply, innermost first, by joins.
func removeApplies(n Node) (Node, error) {
	var err error
	out := RewriteNodes(n, func(n Node) Node {
		a, ok := n.(*Apply)
		if !ok || err != nil {
			return n
		}
		var r Node
		r, err = removeApply(a)
		return r
	})
	return out, err
}

// removeApply turns Apply(L, R) into a join. An uncorrelated R is simply
// joined. Otherwise R is computed for the domain D — the distinct values
// of the columns of L it reads — by pushing D into R, and joined back on
// those columns (NULL matching NULL, since a NULL outer value is a value
// the subquery was evaluated for).
//
// A guarded Apply (see Apply.Guard) takes its domain from the Left rows
// that meet the guard only, and keeps every Left row with a left join.
// An uncorrelated Right is then pushed the domain too, down to its
// leaves, so that it is computed only when some row meets the guard.
func removeApply(a *Apply) (Node, error) {
	if a.Guard == nil && !HasOuterRefs(a.Right, 1) {
		return &Join{Kind: a.Kind, Left: a.Left, Right: decrementDepth(a.Right), On: trueExpr()}, nil
	}
	if a.Kind == InnerJoin && rowLocal(a.Right) {
		return applyPerRow(a)
	}
	refs := outerColumns(a.Right, 1)
	lcols := a.Left.Columns()
	lw := len(lcols)
	for _, o := range refs {
		// A reference past the enclosing row is a planner bug (a plan
		// used at another depth than it was bound for): it fails the
		// statement with an error that says so, where indexing past the
		// row would panic, which ends an ad hoc query's connection.
		if o.Idx >= lw {
			return nil, pgerr.New(pgerr.InternalError, "correlated subquery refers to column %d of an enclosing row of %d columns", o.Idx+1, lw)
		}
	}
	k := len(refs)
	dexprs := make([]scalar.Expr, k)
	dcols := make([]Column, k)
	domainOf := map[int]int{}
	for i, o := range refs {
		dexprs[i] = &scalar.ColRef{Idx: o.Idx, Typ: lcols[o.Idx].Type}
		dcols[i] = Column{Name: lcols[o.Idx].Name, Type: lcols[o.Idx].Type}
		domainOf[o.Idx] = i
	}
	reaching, kind := a.Left, a.Kind
	if a.Guard != nil {
		reaching, kind = &Filter{Input: a.Left, Pred: a.Guard}, LeftJoin
	}
	domain := &Distinct{Input: &Project{Input: reaching, Exprs: dexprs, Cols: dcols}}
	d := &domainPush{domain: domain, k: k, of: domainOf, force: !HasOuterRefs(a.Right, 1)}
	right, err := d.push(a.Right)
	if err != nil {
		return nil, err
	}
	var on []scalar.Expr
	for i, o := range refs {
		on = append(on, &scalar.IsDistinctFrom{
			L:   &scalar.ColRef{Idx: o.Idx, Typ: lcols[o.Idx].Type},
			R:   &scalar.ColRef{Idx: lw + i, Typ: dcols[i].Type},
			Not: true,
		})
	}
	join := &Join{Kind: kind, Left: a.Left, Right: right, On: scalar.NewAnd(on)}
	// Drop the domain columns of the right side.
	jcols := join.Columns()
	var exprs []scalar.Expr
	var cols []Column
	for i, c := range jcols {
		if i >= lw && i < lw+k {
			continue
		}
		exprs = append(exprs, &scalar.ColRef{Idx: i, Typ: c.Type})
		cols = append(cols, c)
	}
	return &Project{Input: join, Exprs: exprs, Cols: cols}, nil
}

// domainPush pushes a domain relation (k columns) into a correlated plan:
// push(n) returns a plan whose rows are the domain columns followed by n's
// columns, n evaluated for each domain row, with the references to the
// enclosing row replaced by the domain columns.
type domainPush struct {
	domain Node
	k      int
	of     map[int]int // enclosing-row column → domain column
	// force pushes the domain into uncorrelated subplans as well, down
	// to the tables, instead of pairing them with it whole: every row of
	// the result then derives from a domain row, and an empty domain
	// computes nothing (a guarded, uncorrelated subquery).
	force bool
	// work maps the recursive queries being pushed (by ID) to their
	// widened working tables, which carry the domain columns from one
	// iteration to the next (see pushRecursive).
	work map[int]*WorkTable
}

// correlated reports whether n's rows depend on the domain: it reads
// the enclosing row, or the working table of a recursion the domain is
// pushed through, or the push is forced.
func (d *domainPush) correlated(n Node) bool {
	if d.force || HasOuterRefs(n, 1) {
		return true
	}
	for id := range d.work {
		if readsWorkTable(n, id) {
			return true
		}
	}
	return false
}

// expr rewrites an expression of a node whose input gained the k leading
// domain columns.
func (d *domainPush) expr(e scalar.Expr) scalar.Expr {
	if e == nil {
		return nil
	}
	return scalar.Rewrite(e, func(x scalar.Expr) scalar.Expr {
		switch c := x.(type) {
		case *scalar.ColRef:
			return &scalar.ColRef{Idx: c.Idx + d.k, Typ: c.Typ}
		case *OuterRef:
			if c.Depth == 1 {
				return &scalar.ColRef{Idx: d.of[c.Idx], Typ: c.Typ}
			}
			return &OuterRef{Depth: c.Depth - 1, Idx: c.Idx, Typ: c.Typ}
		}
		return x
	})
}

func (d *domainPush) exprs(es []scalar.Expr) []scalar.Expr {
	out := make([]scalar.Expr, len(es))
	for i, e := range es {
		out[i] = d.expr(e)
	}
	return out
}

func (d *domainPush) keys(ks []SortKey) []SortKey {
	out := make([]SortKey, len(ks))
	for i, k := range ks {
		k.Expr = d.expr(k.Expr)
		out[i] = k
	}
	return out
}

// domainCols are references to the k leading domain columns.
func (d *domainPush) domainCols() []scalar.Expr {
	cols := d.domain.Columns()
	out := make([]scalar.Expr, d.k)
	for i := range out {
		out[i] = &scalar.ColRef{Idx: i, Typ: cols[i].Type}
	}
	return out
}

func (d *domainPush) shiftInts(is []int) []int {
	out := make([]int, 0, d.k+len(is))
	for i := 0; i < d.k; i++ {
		out = append(out, i)
	}
	for _, c := range is {
		out = append(out, c+d.k)
	}
	return out
}

// cross pairs every domain row with an uncorrelated plan.
func (d *domainPush) cross(n Node) Node {
	return &Join{Kind: InnerJoin, Left: d.domain, Right: decrementDepth(n), On: trueExpr()}
}

func (d *domainPush) push(n Node) (Node, error) {
	if !d.correlated(n) {
		return d.cross(n), nil
	}
	switch x := n.(type) {
	case *Filter:
		in, err := d.push(x.Input)
		if err != nil {
			return nil, err
		}
		return &Filter{Input: in, Pred: d.expr(x.Pred)}, nil
	case *Project:
		in, err := d.push(x.Input)
		if err != nil {
			return nil, err
		}
		exprs := append(d.domainCols(), d.exprs(x.Exprs)...)
		cols := append(append([]Column(nil), d.domain.Columns()...), x.Cols...)
		return &Project{Input: in, Exprs: exprs, Cols: cols}, nil
	case *Values:
		// Correlated constants: one projection of the domain per row.
		var parts []Node
		for _, row := range x.Rows {
			exprs := append(d.domainCols(), d.valuesRow(row)...)
			cols := append(append([]Column(nil), d.domain.Columns()...), x.Cols...)
			parts = append(parts, &Project{Input: d.domain, Exprs: exprs, Cols: cols})
		}
		if len(parts) == 0 {
			return &Filter{Input: d.cross(x), Pred: scalar.NewConst(types.DFalse, types.TypeBool)}, nil
		}
		out := parts[0]
		for _, p := range parts[1:] {
			out = &SetOp{Kind: Union, All: true, Left: out, Right: p}
		}
		return out, nil
	case *Join:
		return d.pushJoin(x)
	case *Aggregate:
		return d.pushAggregate(x)
	case *Distinct:
		in, err := d.push(x.Input)
		if err != nil {
			return nil, err
		}
		return &Distinct{Input: in}, nil
	case *TopK:
		in, err := d.push(x.Input)
		if err != nil {
			return nil, err
		}
		return &TopK{Input: in, Group: d.shiftInts(x.Group), Order: d.keys(x.Order), Limit: d.expr(x.Limit), Offset: d.expr(x.Offset)}, nil
	case *SetOp:
		l, err := d.pushOrCross(x.Left)
		if err != nil {
			return nil, err
		}
		r, err := d.pushOrCross(x.Right)
		if err != nil {
			return nil, err
		}
		return &SetOp{Kind: x.Kind, All: x.All, Left: l, Right: r}, nil
	case *FlatMap:
		in, err := d.push(x.Input)
		if err != nil {
			return nil, err
		}
		return &FlatMap{Input: in, Func: x.Func, Args: d.exprs(x.Args), Cols: x.Cols, Ordinality: x.Ordinality}, nil
	case *Window:
		in, err := d.push(x.Input)
		if err != nil {
			return nil, err
		}
		w := MapExprs(&Window{Input: in, PartitionBy: d.shiftInts(x.PartitionBy), Order: x.Order, Calls: x.Calls, Cols: x.Cols}, d.expr)
		return w, nil
	case *Recursive:
		return d.pushRecursive(x)
	case *WorkTable:
		if w, ok := d.work[x.ID]; ok {
			return w, nil
		}
		return nil, pgerr.New(pgerr.InternalError, "working table of %q outside its recursive query", x.Name)
	}
	if d.force && len(n.Inputs()) == 0 {
		return d.cross(n), nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "correlated subquery of this shape is not supported")
}

func (d *domainPush) valuesRow(row []scalar.Expr) []scalar.Expr {
	out := make([]scalar.Expr, len(row))
	for i, e := range row {
		// Values rows read no input columns: only outer references move.
		out[i] = scalar.Rewrite(e, func(x scalar.Expr) scalar.Expr {
			if c, ok := x.(*OuterRef); ok {
				if c.Depth == 1 {
					return &scalar.ColRef{Idx: d.of[c.Idx], Typ: c.Typ}
				}
				return &OuterRef{Depth: c.Depth - 1, Idx: c.Idx, Typ: c.Typ}
			}
			return x
		})
	}
	return out
}

func (d *domainPush) pushOrCross(n Node) (Node, error) {
	if d.correlated(n) {
		return d.push(n)
	}
	return d.cross(n), nil
}

// pushJoin pushes the domain into a join. When only the side whose rows
// all survive the join reads the enclosing row, the domain goes into that
// side only; otherwise into both, matched on the domain columns.
func (d *domainPush) pushJoin(j *Join) (Node, error) {
	rcor := d.correlated(j.Right)
	lw := len(j.Left.Columns())
	k := d.k
	if !rcor && (j.Kind == InnerJoin || j.Kind == LeftJoin || j.Kind == SemiJoin || j.Kind == AntiJoin) {
		l, err := d.pushOrCross(j.Left)
		if err != nil {
			return nil, err
		}
		return &Join{Kind: j.Kind, Left: l, Right: decrementDepth(j.Right), On: d.expr(j.On)}, nil
	}
	if !d.correlated(j.Left) && (j.Kind == InnerJoin || j.Kind == RightJoin) {
		return d.pushJoinRight(j)
	}
	l, err := d.pushOrCross(j.Left)
	if err != nil {
		return nil, err
	}
	r, err := d.pushOrCross(j.Right)
	if err != nil {
		return nil, err
	}
	// Combined row: k + lw (left with domain) then k + rw (right with
	// domain). The join condition reads left columns at +k and right
	// columns at +2k.
	on := scalar.Rewrite(j.On, func(x scalar.Expr) scalar.Expr {
		switch c := x.(type) {
		case *scalar.ColRef:
			if c.Idx < lw {
				return &scalar.ColRef{Idx: c.Idx + k, Typ: c.Typ}
			}
			return &scalar.ColRef{Idx: c.Idx + 2*k, Typ: c.Typ}
		case *OuterRef:
			if c.Depth == 1 {
				return &scalar.ColRef{Idx: d.of[c.Idx], Typ: c.Typ}
			}
			return &OuterRef{Depth: c.Depth - 1, Idx: c.Idx, Typ: c.Typ}
		}
		return x
	})
	dc := d.domain.Columns()
	conds := []scalar.Expr{on}
	for i := 0; i < k; i++ {
		conds = append(conds, &scalar.IsDistinctFrom{
			L: &scalar.ColRef{Idx: i, Typ: dc[i].Type}, R: &scalar.ColRef{Idx: k + lw + i, Typ: dc[i].Type}, Not: true})
	}
	join := &Join{Kind: j.Kind, Left: l, Right: r, On: scalar.NewAnd(conds)}
	if j.Kind == SemiJoin || j.Kind == AntiJoin {
		return join, nil
	}
	// Output: the domain (from whichever side matched), the left columns,
	// the right columns.
	jcols := join.Columns()
	var exprs []scalar.Expr
	var cols []Column
	for i := 0; i < k; i++ {
		lref := &scalar.ColRef{Idx: i, Typ: dc[i].Type}
		rref := &scalar.ColRef{Idx: k + lw + i, Typ: dc[i].Type}
		var e scalar.Expr = lref
		if j.Kind == RightJoin || j.Kind == FullJoin {
			e = &scalar.Coalesce{Args: []scalar.Expr{lref, rref}, Typ: dc[i].Type}
		}
		exprs = append(exprs, e)
		cols = append(cols, dc[i])
	}
	for i := k; i < len(jcols); i++ {
		if i >= k+lw && i < 2*k+lw {
			continue
		}
		exprs = append(exprs, &scalar.ColRef{Idx: i, Typ: jcols[i].Type})
		cols = append(cols, jcols[i])
	}
	return &Project{Input: join, Exprs: exprs, Cols: cols}, nil
}

// pushJoinRight pushes the domain into the right side of a join whose
// left side does not depend on it and whose right rows all survive: the
// left side is joined whole, not paired with every domain row, and the
// domain columns are moved to the front of the result.
func (d *domainPush) pushJoinRight(j *Join) (Node, error) {
	r, err := d.push(j.Right)
	if err != nil {
		return nil, err
	}
	lw, k := len(j.Left.Columns()), d.k
	on := scalar.Rewrite(j.On, func(x scalar.Expr) scalar.Expr {
		switch c := x.(type) {
		case *scalar.ColRef:
			if c.Idx < lw {
				return c
			}
			return &scalar.ColRef{Idx: c.Idx + k, Typ: c.Typ}
		case *OuterRef:
			if c.Depth == 1 {
				return &scalar.ColRef{Idx: lw + d.of[c.Idx], Typ: c.Typ}
			}
			return &OuterRef{Depth: c.Depth - 1, Idx: c.Idx, Typ: c.Typ}
		}
		return x
	})
	join := &Join{Kind: j.Kind, Left: decrementDepth(j.Left), Right: r, On: on}
	jcols := join.Columns()
	order := make([]int, 0, len(jcols))
	for i := lw; i < lw+k; i++ {
		order = append(order, i)
	}
	for i := range jcols {
		if i < lw || i >= lw+k {
			order = append(order, i)
		}
	}
	exprs := make([]scalar.Expr, len(order))
	cols := make([]Column, len(order))
	for i, o := range order {
		exprs[i] = &scalar.ColRef{Idx: o, Typ: jcols[o].Type}
		cols[i] = jcols[o]
	}
	return &Project{Input: join, Exprs: exprs, Cols: cols}, nil
}

// pushRecursive pushes the domain through a recursive query whose base
// or step is correlated: the recursion runs for every domain row at
// once, its rows carrying their domain columns, which the working table
// passes from each iteration to the next. The base is pushed the domain
// (or paired with it, when uncorrelated) and the step, which reads the
// widened working table, keeps the domain columns of the rows it
// extends. UNION's duplicate elimination then applies per domain row,
// as it does when the subquery is evaluated once per enclosing row.
func (d *domainPush) pushRecursive(r *Recursive) (Node, error) {
	cols := append(slices.Clone(d.domain.Columns()), r.Cols...)
	w := &WorkTable{Name: r.Name, ID: r.ID, Cols: cols}
	if d.work == nil {
		d.work = map[int]*WorkTable{}
	}
	d.work[r.ID] = w
	defer delete(d.work, r.ID)
	base, err := d.pushOrCross(r.Base)
	if err != nil {
		return nil, err
	}
	step, err := d.push(r.Step)
	if err != nil {
		return nil, err
	}
	return &Recursive{Name: r.Name, ID: r.ID, Base: base, Step: step, Union: r.Union, Cols: cols, Limited: r.Limited}, nil
}

// pushAggregate groups by the domain as well. An aggregate without GROUP
// BY yields one row per domain value even when the subquery has no rows
// for it: the domain is left-joined with the groups and the missing
// aggregates take their empty-input value (0 for count).
func (d *domainPush) pushAggregate(a *Aggregate) (Node, error) {
	in, err := d.push(a.Input)
	if err != nil {
		return nil, err
	}
	aggs := make([]AggCall, len(a.Aggs))
	for i, c := range a.Aggs {
		c.Args = d.exprs(c.Args)
		c.Filter = d.expr(c.Filter)
		c.Order = d.keys(c.Order)
		aggs[i] = c
	}
	keys := append(d.domainCols(), d.exprs(a.Keys)...)
	cols := append(append([]Column(nil), d.domain.Columns()...), a.Cols...)
	grouped := &Aggregate{Input: in, Keys: keys, Aggs: aggs, Cols: cols}
	if len(a.Keys) > 0 {
		return grouped, nil
	}
	dc := d.domain.Columns()
	k := d.k
	var on []scalar.Expr
	for i := 0; i < k; i++ {
		on = append(on, &scalar.IsDistinctFrom{
			L: &scalar.ColRef{Idx: i, Typ: dc[i].Type}, R: &scalar.ColRef{Idx: k + i, Typ: dc[i].Type}, Not: true})
	}
	join := &Join{Kind: LeftJoin, Left: d.domain, Right: grouped, On: scalar.NewAnd(on)}
	exprs := d.domainCols()
	outCols := append([]Column(nil), dc...)
	for i, c := range aggs {
		var e scalar.Expr = &scalar.ColRef{Idx: 2*k + i, Typ: c.Typ}
		if !c.EmptyValue.IsNull() {
			e = &scalar.Coalesce{Args: []scalar.Expr{e, scalar.NewConst(c.EmptyValue, c.Typ)}, Typ: c.Typ}
		}
		exprs = append(exprs, e)
		outCols = append(outCols, a.Cols[i])
	}
	return &Project{Input: join, Exprs: exprs, Cols: outCols}, nil
}
