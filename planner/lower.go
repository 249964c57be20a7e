package planner

import (
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// Lowering turns an optimised plan into dataflow operators. It is the only
// place where plans meet the engine: every plan node maps onto a few
// operators, with scalar expressions compiled once into closures the
// operators call per row.

// LowerContext carries what lowering needs from its caller. It lowers one
// plan: the first node given to Lower is taken for the root, read whole.
type LowerContext struct {
	Graph *dataflow.Graph
	// Eval is the evaluation context every compiled expression of the
	// dataflow runs with: parameters, statement time, session settings.
	Eval *scalar.EvalContext
	// Get returns the dataflow node that produces the contents of an
	// object (for a one-tick read, an input filled from a snapshot; for a
	// maintained view, the input fed each tick's changes).
	Get func(g *Get) (dataflow.Node, error)
	// Watermark returns the current watermark of an object that has one
	// (a table or source WATERMARK), nil for one that has none; nil for
	// a one-tick read, whose operators forget nothing.
	Watermark func(id ObjectID) dataflow.Watermark

	memo    map[Node]dataflow.Node
	wms     watermarks
	lowered []lowered // for shared
	// need holds the columns each node's consumers read, computed from
	// the first node lowered, the root.
	need neededColumns
}

// Needed returns the columns of n that the plan being lowered reads, and
// false when it reads n whole: a Get callback may leave the others NULL.
func (lc *LowerContext) Needed(n Node) (scalar.ColSet, bool) {
	cols, ok := lc.need[n]
	return cols, ok && cols.Len() < len(n.Columns())
}

// Lower builds the operators for n and returns the node producing its rows.
func Lower(lc *LowerContext, n Node) (dataflow.Node, error) {
	if lc.memo == nil {
		lc.memo = map[Node]dataflow.Node{}
		lc.need = computeNeeded(n)
	}
	if d, ok := lc.memo[n]; ok {
		return d, nil
	}
	if d, ok := lc.shared(n); ok {
		lc.memo[n] = d
		return d, nil
	}
	d, err := lower(lc, n)
	if err != nil {
		return dataflow.Node{}, err
	}
	lc.memo[n] = d
	lc.lowered = append(lc.lowered, lowered{n, d})
	return d, nil
}

func lower(lc *LowerContext, n Node) (dataflow.Node, error) {
	switch x := n.(type) {
	case *Get:
		return lc.Get(x)
	case *Values:
		return lowerValues(lc, x)
	case *Filter:
		if x.Temporal {
			return lowerTemporal(lc, x)
		}
		in, err := Lower(lc, x.Input)
		if err != nil {
			return in, err
		}
		pred, err := compilePred(lc, x.Pred)
		if err != nil {
			return in, err
		}
		return lc.Graph.Filter(in, pred), nil
	case *Project:
		if x.JoinBuilds {
			return lowerJoinProject(lc, x)
		}
		in, err := Lower(lc, x.Input)
		if err != nil {
			return in, err
		}
		return lowerProject(lc, in, x.Exprs, len(x.Input.Columns()))
	case *Join:
		return lowerJoin(lc, x, joinFusion{})
	case *Aggregate:
		return lowerAggregate(lc, x)
	case *Distinct:
		in, err := Lower(lc, x.Input)
		if err != nil {
			return in, err
		}
		return lc.Graph.Distinct(in), nil
	case *SetOp:
		return lowerSetOp(lc, x)
	case *TopK:
		return lowerTopK(lc, x, false)
	case *FlatMap:
		return lowerFlatMap(lc, x)
	case *Window:
		return lowerWindow(lc, x)
	case *Session:
		return lowerSession(lc, x)
	case *EmitOnClose:
		return lowerEmitOnClose(lc, x)
	case *Recursive:
		return lowerRecursive(lc, x)
	case *WorkTable:
		return dataflow.Node{}, pgerr.New(pgerr.InternalError, "recursive reference to %q outside its recursive term", x.Name)
	case *Apply:
		return dataflow.Node{}, pgerr.New(pgerr.InternalError, "correlated subquery was not decorrelated")
	}
	return dataflow.Node{}, pgerr.New(pgerr.InternalError, "cannot lower plan node %T", n)
}

func compilePred(lc *LowerContext, e scalar.Expr) (func(types.Row) (bool, error), error) {
	p, err := scalar.CompilePredicate(e)
	if err != nil {
		return nil, err
	}
	ctx := lc.Eval
	return func(r types.Row) (bool, error) { return p(ctx, r) }, nil
}

// compileRow compiles expressions that together build one output row,
// always a new one (see dataflow.Graph.MapNew): a column is copied, never
// the input row passed on.
func compileRow(lc *LowerContext, exprs []scalar.Expr) (func(types.Row) (types.Row, error), error) {
	evs := make([]scalar.Evaluator, len(exprs))
	cols := make([]int, len(exprs)) // >= 0: a plain column copy
	for i, e := range exprs {
		cols[i] = -1
		if cr, ok := e.(*scalar.ColRef); ok {
			cols[i] = cr.Idx
			continue
		}
		ev, err := scalar.Compile(e)
		if err != nil {
			return nil, err
		}
		evs[i] = ev
	}
	ctx := lc.Eval
	var slab dataflow.RowSlab
	return func(r types.Row) (types.Row, error) {
		out := slab.Row(len(evs))
		for i, ev := range evs {
			if c := cols[i]; c >= 0 {
				out[i] = r[c]
				continue
			}
			d, err := ev(ctx, r)
			if err != nil {
				return nil, err
			}
			out[i] = d
		}
		return slab.Detach(out), nil
	}, nil
}

// lowerProject maps rows through exprs; an identity projection is free.
func lowerProject(lc *LowerContext, in dataflow.Node, exprs []scalar.Expr, width int) (dataflow.Node, error) {
	if isIdentity(exprs, width) {
		return in, nil
	}
	fn, err := compileRow(lc, exprs)
	if err != nil {
		return in, err
	}
	return lc.Graph.MapNew(in, fn), nil
}

// isIdentity reports whether exprs project rows of width columns onto
// themselves.
func isIdentity(exprs []scalar.Expr, width int) bool {
	if len(exprs) != width {
		return false
	}
	for i, e := range exprs {
		if cr, ok := e.(*scalar.ColRef); !ok || cr.Idx != i {
			return false
		}
	}
	return true
}

// lowerValues feeds constant rows through an input once: a one-tick read
// consumes them in its only step, a maintained view at hydration. A row
// whose expression fails becomes an error carried as data.
func lowerValues(lc *LowerContext, v *Values) (dataflow.Node, error) {
	in := lc.Graph.Input()
	rows, errs, err := evalValues(lc, v)
	if err != nil {
		return in.Node(), err
	}
	batch := make(dataflow.Batch, len(rows))
	for i, row := range rows {
		batch[i] = dataflow.Update{Row: row, Diff: 1}
	}
	in.Push(batch)
	if len(errs) > 0 {
		in.PushErrors(errs)
	}
	return in.Node(), nil
}

// evalValues evaluates the rows of a VALUES list. A row whose evaluation
// fails with a SQL error is data, an error update of the list; any other
// failure fails the lowering.
func evalValues(lc *LowerContext, v *Values) ([]types.Row, []dataflow.ErrorUpdate, error) {
	var rows []types.Row
	var errs []dataflow.ErrorUpdate
	for _, exprs := range v.Rows {
		fn, err := compileRow(lc, exprs)
		if err != nil {
			return nil, nil, err
		}
		row, err := fn(nil)
		if err != nil {
			pe := pgerr.As(err)
			if pe == nil {
				return nil, nil, err
			}
			errs = append(errs, dataflow.ErrorUpdate{Err: pe, Diff: 1})
			continue
		}
		rows = append(rows, row)
	}
	return rows, errs, nil
}

// constInt evaluates a LIMIT/OFFSET expression.
func constInt(lc *LowerContext, e scalar.Expr, what string) (int64, error) {
	d, err := scalar.Eval(lc.Eval, e, nil)
	if err != nil {
		return 0, err
	}
	if d.IsNull() {
		return -1, nil
	}
	v := d.Int()
	if v < 0 {
		code := pgerr.InvalidRowCountInLimit
		if what == "OFFSET" {
			code = pgerr.InvalidRowCountInOffset
		}
		return 0, pgerr.New(code, "%s must not be negative", what)
	}
	return v, nil
}

// Comparator returns the ORDER BY comparator of sort keys over rows. The
// keys must be column references.
func Comparator(keys []SortKey) func(a, b types.Row) int {
	type key struct {
		col        int
		desc       bool
		nullsFirst bool
	}
	ks := make([]key, len(keys))
	for i, k := range keys {
		ks[i] = key{col: k.Expr.(*scalar.ColRef).Idx, desc: k.Desc, nullsFirst: k.NullsFirst}
	}
	return func(a, b types.Row) int {
		for _, k := range ks {
			x, y := a[k.col], b[k.col]
			xn, yn := x.IsNull(), y.IsNull()
			var c int
			switch {
			case xn && yn:
				c = 0
			case xn || yn:
				// The NULL sorts after the value unless NULLS FIRST.
				c = 1
				if k.nullsFirst {
					c = -1
				}
				if yn {
					c = -c
				}
			default:
				c = types.Compare(x, y)
				if k.desc {
					c = -c
				}
			}
			if c != 0 {
				return c
			}
		}
		return 0
	}
}

// columnKeys ensures every expression is a column of the input: the ones
// that are not are appended by a projection. It returns the new input,
// its width, and the column of each expression.
func columnKeys(lc *LowerContext, in dataflow.Node, width int, exprs []scalar.Expr) (dataflow.Node, int, []int, error) {
	cols := make([]int, len(exprs))
	var extra []scalar.Expr
	for i, e := range exprs {
		if cr, ok := e.(*scalar.ColRef); ok {
			cols[i] = cr.Idx
			continue
		}
		cols[i] = width + len(extra)
		extra = append(extra, e)
	}
	if len(extra) == 0 {
		return in, width, cols, nil
	}
	all := make([]scalar.Expr, 0, width+len(extra))
	for i := 0; i < width; i++ {
		all = append(all, &scalar.ColRef{Idx: i})
	}
	all = append(all, extra...)
	out, err := lowerProject(lc, in, all, width)
	return out, width + len(extra), cols, err
}

// pick returns a function that extracts the given columns: a slice of
// the row, without allocating, when they are adjacent and in order (a
// PARTITION BY or group key usually is one column). Its callers copy the
// keys they keep.
func pick(cols []int) func(types.Row) types.Row {
	if adjacent(cols) {
		lo, hi := cols[0], cols[0]+len(cols)
		return func(r types.Row) types.Row { return r[lo:hi:hi] }
	}
	return func(r types.Row) types.Row {
		k := make(types.Row, len(cols))
		for i, c := range cols {
			k[i] = r[c]
		}
		return k
	}
}

// adjacent reports whether cols are consecutive ascending positions.
func adjacent(cols []int) bool {
	for i := range cols {
		if cols[i] != cols[0]+i {
			return false
		}
	}
	return len(cols) > 0
}

// dropColumns keeps the first n columns.
func dropColumns(lc *LowerContext, in dataflow.Node, n int) dataflow.Node {
	return lc.Graph.Map(in, func(r types.Row) (types.Row, error) { return r[:n:n], nil })
}

// lowerTopK lowers a top-k; number asks for its rows numbered (see
// Window.Numbered).
func lowerTopK(lc *LowerContext, t *TopK, number bool) (dataflow.Node, error) {
	in, gate, err := lowerTopKInput(lc, t)
	if err != nil {
		return in, err
	}
	width := len(t.Input.Columns())
	exprs := make([]scalar.Expr, len(t.Order))
	for i, k := range t.Order {
		exprs[i] = k.Expr
	}
	in, w2, cols, err := columnKeys(lc, in, width, exprs)
	if err != nil {
		return in, err
	}
	keys := make([]SortKey, len(t.Order))
	sc := make([]dataflow.SortColumn, len(t.Order))
	exact := true
	for i, k := range t.Order {
		keys[i] = SortKey{Expr: &scalar.ColRef{Idx: cols[i]}, Desc: k.Desc, NullsFirst: k.NullsFirst}
		sc[i] = dataflow.SortColumn{Col: cols[i], Desc: k.Desc, NullsFirst: k.NullsFirst}
		exact = exact && dataflow.SortKeyExact(k.Expr.Type().Family)
	}
	// A sort key where its order is provably the comparator's (see
	// TestSortKeyMatchesComparator): TopK then compares inline key
	// bytes rather than reaching every compared row.
	spec := dataflow.TopKSpec{Limit: -1, Gate: gate, Number: number}
	if exact {
		spec.SortKey = dataflow.ColumnSortKey(sc)
	} else {
		spec.Compare = Comparator(keys)
	}
	if len(t.Group) > 0 {
		spec.Group = pick(t.Group)
	}
	if t.Limit != nil {
		if spec.Limit, err = constInt(lc, t.Limit, "LIMIT"); err != nil {
			return in, err
		}
	}
	if t.Offset != nil {
		if spec.Offset, err = constInt(lc, t.Offset, "OFFSET"); err != nil {
			return in, err
		}
		if spec.Offset < 0 {
			spec.Offset = 0
		}
	}
	if number && (spec.Limit < 0 || spec.Offset > 0 || w2 > width || !t.Monotonic) {
		return in, pgerr.New(pgerr.InternalError, "numbered top-k without a limit, with an offset or over computed keys")
	}
	var out dataflow.Node
	if t.Monotonic {
		out = lc.Graph.MonotonicTopK(in, spec)
	} else {
		out = lc.Graph.TopK(in, spec)
	}
	if w2 > width {
		out = dropColumns(lc, out, width)
	}
	return out, nil
}

func lowerSetOp(lc *LowerContext, s *SetOp) (dataflow.Node, error) {
	l, err := Lower(lc, s.Left)
	if err != nil {
		return l, err
	}
	r, err := Lower(lc, s.Right)
	if err != nil {
		return r, err
	}
	g := lc.Graph
	switch {
	case s.Kind == Union && s.All:
		return g.Union(l, r), nil
	case s.Kind == Union:
		return g.Distinct(g.Union(l, r)), nil
	case s.Kind == Intersect && s.All:
		return g.Threshold(l, r, func(lc, rc int64) int64 { return max(min(lc, rc), 0) }), nil
	case s.Kind == Intersect:
		return g.Threshold(l, r, func(lc, rc int64) int64 { return b2i(lc > 0 && rc > 0) }), nil
	case s.Kind == Except && s.All:
		return g.Threshold(l, r, func(lc, rc int64) int64 { return max(lc-max(rc, 0), 0) }), nil
	}
	return g.Threshold(l, r, func(lc, rc int64) int64 { return b2i(lc > 0 && rc <= 0) }), nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func lowerFlatMap(lc *LowerContext, f *FlatMap) (dataflow.Node, error) {
	in, err := Lower(lc, f.Input)
	if err != nil {
		return in, err
	}
	args, err := compileRow(lc, f.Args)
	if err != nil {
		return in, err
	}
	tf, ev := f.Func, lc.Eval
	extra := len(f.Cols)
	if f.Ordinality {
		extra++
	}
	ordinality := f.Ordinality
	var slab dataflow.RowSlab
	return lc.Graph.FlatMap(in, func(row types.Row, emit func(types.Row) bool) error {
		a, err := args(row)
		if err != nil {
			return err
		}
		var n int64
		return tf.Eval(ev, a, func(out types.Row) bool {
			r := slab.Row(len(row) + extra)
			copy(r[copy(r, row):], out)
			if ordinality {
				n++
				r[len(r)-1] = types.NewInt8(n)
			}
			return emit(slab.Detach(r))
		})
	}), nil
}
