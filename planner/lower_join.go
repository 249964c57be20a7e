package planner

import (
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// equiPair is one equality conjunct of a join condition: Left reads the
// left row, Right the right row (already shifted to right-row positions).
type equiPair struct {
	Left, Right scalar.Expr
	NullSafe    bool
}

// splitJoinCondition separates the equality conjuncts that can key a join
// from the rest. lw is the width of the left rows.
func splitJoinCondition(on scalar.Expr, lw int, nullSafe bool) ([]equiPair, []scalar.Expr) {
	var pairs []equiPair
	var rest []scalar.Expr
	if on == nil {
		return nil, nil
	}
	for _, c := range scalar.Conjuncts(on) {
		if k, ok := c.(*scalar.Const); ok && !k.Val.IsNull() && k.Val.Kind() == types.Bool && k.Val.Bool() {
			continue
		}
		var a, b scalar.Expr
		ns := nullSafe
		switch x := c.(type) {
		case *scalar.Call:
			if x.Fn.Name == "=" && len(x.Args) == 2 {
				a, b = x.Args[0], x.Args[1]
			}
		case *scalar.IsDistinctFrom:
			if x.Not {
				a, b, ns = x.L, x.R, true
			}
		}
		if a != nil {
			sa, sb := side(a, lw), side(b, lw)
			switch {
			case sa == sideLeft && sb == sideRight:
				pairs = append(pairs, equiPair{Left: a, Right: scalar.ShiftColumns(b, -lw), NullSafe: ns})
				continue
			case sa == sideRight && sb == sideLeft:
				pairs = append(pairs, equiPair{Left: b, Right: scalar.ShiftColumns(a, -lw), NullSafe: ns})
				continue
			}
		}
		rest = append(rest, c)
	}
	return pairs, rest
}

type sideKind uint8

const (
	sideNone sideKind = iota
	sideLeft
	sideRight
	sideBoth
)

// side reports which join input an expression reads.
func side(e scalar.Expr, lw int) sideKind {
	s := sideNone
	for _, c := range scalar.ColumnsUsed(e) {
		if c < lw {
			s |= sideLeft
		} else {
			s |= sideRight
		}
	}
	return s
}

// joinKeys prepares both inputs for keyed matching: key expressions that
// are not plain columns are computed as extra trailing columns (so that
// their errors travel as data), and key pairs of different types are cast
// to a common type.
type joinKeys struct {
	left, right         dataflow.Node
	lw, rw              int // widths without the extra key columns
	lwide, rwide        int // widths with them
	leftKey, rightKey   dataflow.KeyFunc
	leftCols, rightCols []int
}

func prepareJoinKeys(lc *LowerContext, l, r dataflow.Node, lw, rw int, pairs []equiPair) (*joinKeys, error) {
	lexprs := make([]scalar.Expr, len(pairs))
	rexprs := make([]scalar.Expr, len(pairs))
	ns := make([]bool, len(pairs))
	for i, p := range pairs {
		a, b := p.Left, p.Right
		if a.Type() != b.Type() {
			t, err := scalar.CommonType([]types.Type{a.Type(), b.Type()}, "JOIN")
			if err != nil {
				return nil, err
			}
			if a.Type() != t {
				a = &scalar.Cast{Arg: a, To: t}
			}
			if b.Type() != t {
				b = &scalar.Cast{Arg: b, To: t}
			}
		}
		lexprs[i], rexprs[i], ns[i] = a, b, p.NullSafe
	}
	jk := &joinKeys{lw: lw, rw: rw}
	var err error
	if jk.left, jk.lwide, jk.leftCols, err = columnKeys(lc, l, lw, lexprs); err != nil {
		return nil, err
	}
	if jk.right, jk.rwide, jk.rightCols, err = columnKeys(lc, r, rw, rexprs); err != nil {
		return nil, err
	}
	if len(pairs) > 0 {
		jk.leftKey = keyFunc(jk.leftCols, ns)
		jk.rightKey = keyFunc(jk.rightCols, ns)
	}
	return jk, nil
}

// keyFunc extracts key columns; a NULL in a component that is not
// null-safe means the row matches nothing. The key is a slice of the row
// when its columns are adjacent, else one buffer reused: a join encodes
// each key at once (see dataflow.KeyFunc), and allocating one per row was
// a tenth of a join's cost.
func keyFunc(cols []int, nullSafe []bool) dataflow.KeyFunc {
	if adjacent(cols) {
		lo, hi := cols[0], cols[0]+len(cols)
		return func(r types.Row) (types.Row, bool) {
			k := r[lo:hi:hi]
			for i := range k {
				if k[i].IsNull() && !nullSafe[i] {
					return nil, false
				}
			}
			return k, true
		}
	}
	k := make(types.Row, len(cols))
	return func(r types.Row) (types.Row, bool) {
		for i, c := range cols {
			d := r[c]
			if d.IsNull() && !nullSafe[i] {
				return nil, false
			}
			k[i] = d
		}
		return k, true
	}
}

// rowKey keys a row by its first n columns, NULLs included: the identity
// of a row for the unmatched side of an outer join with a residual
// condition.
func rowKey(n int) dataflow.KeyFunc {
	return func(r types.Row) (types.Row, bool) { return r[:n:n], true }
}

// constantJoin reports whether j is an inner join with a VALUES list,
// which lowers as a FlatMap (see lowerConstantJoin), and which side the
// list is.
func constantJoin(j *Join) (v *Values, constLeft, ok bool) {
	if j.Kind != InnerJoin || j.NullSafe {
		return nil, false, false
	}
	if v, ok := j.Right.(*Values); ok {
		return v, false, true
	}
	v, ok = j.Left.(*Values)
	return v, true, ok
}

// lowerConstantJoin lowers an inner join with a VALUES list (q5's
// CROSS JOIN (VALUES (0), …, (4)), a hopping window) as a FlatMap that
// pairs each row of the other side with every constant row, then the
// join's condition as a filter: the same rows and errors a join and its
// residual give, without the join's state. A join arranges both sides:
// here that was every row of the other side, kept for a partner that can
// never change. NULL-safe joins are left to the join, since their
// equalities are not the condition's own.
func lowerConstantJoin(lc *LowerContext, j *Join) (n dataflow.Node, ok bool, err error) {
	v, constLeft, ok := constantJoin(j)
	if !ok {
		return n, false, nil
	}
	g := lc.Graph
	consts, errs, err := evalValues(lc, v)
	if err != nil {
		return n, true, err
	}
	other := j.Left
	if constLeft {
		other = j.Right
	}
	in, err := Lower(lc, other)
	if err != nil {
		return in, true, err
	}
	lw, rw := len(j.Left.Columns()), len(j.Right.Columns())
	var slab dataflow.RowSlab
	n = g.FlatMap(in, func(row types.Row, emit func(types.Row) bool) error {
		for _, c := range consts {
			out := slab.Row(lw + rw)
			if constLeft {
				copy(out, c)
				copy(out[lw:], row[:rw])
			} else {
				copy(out, row[:lw])
				copy(out[lw:], c)
			}
			if !emit(slab.Detach(out)) {
				break
			}
		}
		return nil
	})
	if len(errs) > 0 {
		// A VALUES row that fails is an error of the join's result,
		// as the join passes on its inputs' errors.
		bad := g.Input()
		bad.PushErrors(errs)
		n = g.Union(n, bad.Node())
	}
	if j.On != nil && !isTrue(j.On) {
		pred, err := compilePred(lc, j.On)
		if err != nil {
			return n, true, err
		}
		n = g.Filter(n, pred)
	}
	return n, true, nil
}

// nonNil returns cols, or an empty list for none: a JoinSpec's Keep is
// nil only when every column is kept.
func nonNil(cols []int) []int {
	if cols == nil {
		return []int{}
	}
	return cols
}

// lowerJoin lowers a join, with what the consumer that alone reads it
// takes over (see join_fusion.go).
func lowerJoin(lc *LowerContext, j *Join, fuse joinFusion) (dataflow.Node, error) {
	if n, ok, err := lowerConstantJoin(lc, j); ok || err != nil {
		return n, err
	}
	l, err := Lower(lc, j.Left)
	if err != nil {
		return l, err
	}
	r, err := Lower(lc, j.Right)
	if err != nil {
		return r, err
	}
	lw, rw := len(j.Left.Columns()), len(j.Right.Columns())
	pairs, rest := splitJoinCondition(j.On, lw, j.NullSafe)
	jk, err := prepareJoinKeys(lc, l, r, lw, rw, pairs)
	if err != nil {
		return l, err
	}
	g := lc.Graph
	var residual func(types.Row) (bool, error)
	if len(rest) > 0 {
		if residual, err = compilePred(lc, scalar.NewAnd(rest)); err != nil {
			return l, err
		}
	}
	matched := func() dataflow.Node {
		var slab dataflow.RowSlab
		output := func(a, b types.Row) types.Row {
			out := slab.Row(lw + rw)
			copy(out, a[:lw])
			copy(out[lw:], b[:rw])
			return slab.Detach(out)
		}
		spec := dataflow.JoinSpec{LeftKey: jk.leftKey, RightKey: jk.rightKey}
		if lcols, rcols, ok := lc.need.joinOutput(j, lw, rw); ok && j.Kind == InnerJoin {
			// Only the columns read above are copied, and stored in
			// the join's state; the rest stay NULL.
			spec.LeftKeep, spec.RightKeep = nonNil(lcols), nonNil(rcols)
			output = func(a, b types.Row) types.Row {
				out := slab.Row(lw + rw)
				for _, c := range lcols {
					out[c] = a[c]
				}
				for _, c := range rcols {
					out[lw+c] = b[c]
				}
				return slab.Detach(out)
			}
		}
		// A residual that cannot fail is evaluated on the matched
		// pair before its row is built, and so is the gate of a
		// top-k above; one that can fails on the built row, as a
		// filter, so that its errors travel with the rows. A
		// projection above has the join build its rows.
		pre := &prefilter{}
		early := residual != nil && allCannotFail(rest)
		if early {
			pre.add(scalar.Columns(scalar.NewAnd(rest)).Ordered(), func(row types.Row) bool {
				ok, err := residual(row)
				return ok && err == nil // err is nil: see cannotFail
			})
		}
		if fuse.gate != nil {
			pre.add(fuse.gate.cols, fuse.gate.gate.Admits)
		}
		if cols := fuse.project; cols != nil {
			output = func(a, b types.Row) types.Row {
				out := slab.Row(len(cols))
				for i, c := range cols {
					if c < lw {
						out[i] = a[c]
					} else {
						out[i] = b[c-lw]
					}
				}
				return out
			}
		}
		spec.Output = pre.output(output, lw, lw+rw)
		n := g.Join(jk.left, jk.right, spec)
		if residual != nil && !early {
			n = g.Filter(n, residual)
		}
		return n
	}
	// unmatched returns the rows of one side without a partner, padded
	// with NULLs for the other side.
	unmatched := func(inner dataflow.Node, leftSide bool) dataflow.Node {
		var anti dataflow.Node
		if leftSide {
			if residual == nil {
				anti = g.AntiJoin(jk.left, jk.right, jk.leftKey, jk.rightKey)
			} else {
				partners := g.Map(inner, func(row types.Row) (types.Row, error) { return row[:lw:lw], nil })
				anti = g.AntiJoin(jk.left, partners, rowKey(lw), rowKey(lw))
			}
			return g.Map(anti, func(row types.Row) (types.Row, error) {
				out := make(types.Row, lw+rw)
				copy(out, row[:lw])
				return out, nil
			})
		}
		if residual == nil {
			anti = g.AntiJoin(jk.right, jk.left, jk.rightKey, jk.leftKey)
		} else {
			partners := g.Map(inner, func(row types.Row) (types.Row, error) { return row[lw:], nil })
			anti = g.AntiJoin(jk.right, partners, rowKey(rw), rowKey(rw))
		}
		return g.Map(anti, func(row types.Row) (types.Row, error) {
			out := make(types.Row, lw+rw)
			copy(out[lw:], row[:rw])
			return out, nil
		})
	}
	switch j.Kind {
	case InnerJoin:
		return matched(), nil
	case LeftJoin:
		inner := matched()
		return g.Union(inner, unmatched(inner, true)), nil
	case RightJoin:
		inner := matched()
		return g.Union(inner, unmatched(inner, false)), nil
	case FullJoin:
		inner := matched()
		return g.Union(inner, unmatched(inner, true), unmatched(inner, false)), nil
	}
	// Semi and anti joins keep the left rows (with their multiplicity).
	var found dataflow.Node
	if residual == nil {
		if j.Kind == SemiJoin {
			found = g.SemiJoin(jk.left, jk.right, jk.leftKey, jk.rightKey)
		} else {
			found = g.AntiJoin(jk.left, jk.right, jk.leftKey, jk.rightKey)
		}
	} else {
		partners := g.Map(matched(), func(row types.Row) (types.Row, error) { return row[:lw:lw], nil })
		if j.Kind == SemiJoin {
			found = g.SemiJoin(jk.left, partners, rowKey(lw), rowKey(lw))
		} else {
			found = g.AntiJoin(jk.left, partners, rowKey(lw), rowKey(lw))
		}
	}
	if jk.lwide > lw {
		found = dropColumns(lc, found, lw)
	}
	return found, nil
}
