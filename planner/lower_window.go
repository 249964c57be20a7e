package planner

import (
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// lowerWindow plans window functions on the dataflow Window operator.
// Arguments that are not plain columns are computed as extra trailing
// columns first and dropped from the output again.
func lowerWindow(lc *LowerContext, w *Window) (dataflow.Node, error) {
	if w.Numbered {
		return lowerTopK(lc, w.Input.(*TopK), true)
	}
	in, err := Lower(lc, w.Input)
	if err != nil {
		return in, err
	}
	width := len(w.Input.Columns())
	// The value arguments, then the counts and offsets that are not one
	// number for every row, computed into columns.
	var valueArgs, nArgs []scalar.Expr
	fixed := make([]*int64, len(w.Calls))
	for i, c := range w.Calls {
		if c.Func != nil && len(c.Args) > 0 && c.Func.Kind != scalar.WinNtile {
			valueArgs = append(valueArgs, c.Args[0])
		}
		if e := nArg(c); e != nil {
			n, ok, err := fixedN(lc, e)
			if err != nil {
				return in, err
			}
			if ok {
				fixed[i] = &n
			} else {
				nArgs = append(nArgs, e)
			}
		}
	}
	in, wide, cols, err := columnKeys(lc, in, width, append(valueArgs, nArgs...))
	if err != nil {
		return in, err
	}
	nCols := cols[len(valueArgs):]
	spec := dataflow.WindowSpec{}
	if len(w.PartitionBy) > 0 {
		spec.Partition = pick(w.PartitionBy)
	}
	if len(w.Order) > 0 {
		sc := make([]dataflow.SortColumn, len(w.Order))
		for i, k := range w.Order {
			cr, ok := k.Expr.(*scalar.ColRef)
			if !ok {
				return in, pgerr.New(pgerr.InternalError, "window ORDER BY over an expression")
			}
			sc[i] = dataflow.SortColumn{Col: cr.Idx, Desc: k.Desc, NullsFirst: k.NullsFirst}
		}
		spec.SortKey = dataflow.ColumnSortKey(sc)
	}
	next, nextN := 0, 0
	for i, c := range w.Calls {
		nCol := -1
		if nArg(c) != nil && fixed[i] == nil {
			nCol = nCols[nextN]
			nextN++
		}
		f, err := windowFunc(lc, c, w.Order, fixed[i], nCol)
		if err != nil {
			return in, err
		}
		if c.Func != nil && len(c.Args) > 0 && c.Func.Kind != scalar.WinNtile {
			f.Col = cols[next]
			next++
		}
		spec.Funcs = append(spec.Funcs, f)
	}
	out := lc.Graph.Window(in, spec)
	if wide == width {
		return out, nil
	}
	n := len(w.Calls)
	return lc.Graph.Map(out, func(r types.Row) (types.Row, error) {
		o := make(types.Row, 0, width+n)
		o = append(o, r[:width]...)
		return append(o, r[wide:]...), nil
	}), nil
}

// windowFunc translates one call. The count of ntile, the offset of lag
// and lead and the position of nth_value are n when they are one number
// for every row, or else read from column nCol of each row (see
// dataflow.WindowFunc's VarN), as PostgreSQL evaluates a non-constant
// one per row. An aggregate that lists its inputs (array_agg,
// string_agg, ...) takes the window's ORDER BY as its own: its frame's
// rows in window order.
func windowFunc(lc *LowerContext, c WindowCall, order []SortKey, n *int64, nCol int) (dataflow.WindowFunc, error) {
	frame, err := windowFrame(lc, c.Frame, order)
	if err != nil {
		return dataflow.WindowFunc{}, err
	}
	if c.Agg != nil {
		call := AggCall{Func: c.Agg, Args: c.Args, Filter: c.Filter, Typ: c.Typ}
		if c.Agg.InputOrdered() {
			call.Order = order
		}
		agg, err := buildAggregate(lc, call, false)
		if err != nil {
			return dataflow.WindowFunc{}, err
		}
		return dataflow.WindowFunc{Kind: dataflow.WindowAgg, Agg: agg, Frame: frame}, nil
	}
	f := dataflow.WindowFunc{Frame: frame, N: 1}
	switch {
	case n != nil:
		f.N = *n
	case nCol >= 0:
		f.VarN, f.NCol = true, nCol
	}
	switch c.Func.Kind {
	case scalar.WinRowNumber:
		f.Kind = dataflow.RowNumber
	case scalar.WinRank:
		f.Kind = dataflow.Rank
	case scalar.WinDenseRank:
		f.Kind = dataflow.DenseRank
	case scalar.WinPercentRank:
		f.Kind = dataflow.PercentRank
	case scalar.WinCumeDist:
		f.Kind = dataflow.CumeDist
	case scalar.WinNtile:
		f.Kind = dataflow.Ntile
		if !f.VarN && f.N < 1 {
			return f, pgerr.New(pgerr.InvalidArgumentForNtile, "argument of ntile must be greater than zero")
		}
	case scalar.WinLag, scalar.WinLead:
		f.Kind = dataflow.Lag
		if c.Func.Kind == scalar.WinLead {
			f.Kind = dataflow.Lead
		}
		if len(c.Args) > 2 {
			def, err := scalar.Compile(c.Args[2])
			if err != nil {
				return f, err
			}
			ev := lc.Eval
			f.Default = func(r types.Row) (types.Datum, error) { return def(ev, r) }
		}
	case scalar.WinFirstValue:
		f.Kind = dataflow.FirstValue
	case scalar.WinLastValue:
		f.Kind = dataflow.LastValue
	case scalar.WinNthValue:
		f.Kind = dataflow.NthValue
		if !f.VarN && f.N < 1 {
			return f, pgerr.New(pgerr.InvalidArgumentForNthValue, "argument of nth_value must be greater than zero")
		}
	default:
		return f, pgerr.New(pgerr.FeatureNotSupported, "window function %s is not supported", c.Func.Name)
	}
	return f, nil
}

// nArg is a call's count (ntile), offset (lag, lead) or position
// (nth_value), nil for none (lag(x) looks one row back).
func nArg(c WindowCall) scalar.Expr {
	if c.Func == nil {
		return nil
	}
	i := 1
	switch c.Func.Kind {
	case scalar.WinNtile:
		i = 0
	case scalar.WinLag, scalar.WinLead, scalar.WinNthValue:
	default:
		return nil
	}
	if i >= len(c.Args) {
		return nil
	}
	return c.Args[i]
}

// fixedN evaluates a count or offset that is the same for every row: one
// that reads no column and calls no volatile function. ok is false for
// the others, and for NULL, which makes every row's result NULL.
func fixedN(lc *LowerContext, e scalar.Expr) (n int64, ok bool, err error) {
	if len(scalar.ColumnsUsed(e)) > 0 || scalar.MaxVolatility(e) == scalar.Volatile {
		return 0, false, nil
	}
	d, err := scalar.Eval(lc.Eval, e, nil)
	if err != nil || d.IsNull() {
		return 0, false, err
	}
	return d.Int(), true, nil
}

// windowFrame translates a frame clause, evaluating its offsets. A RANGE
// offset becomes the in_range comparison of the window's one ORDER BY
// column, with PostgreSQL's direction flags: sub for PRECEDING, both
// flags flipped for a descending order.
func windowFrame(lc *LowerContext, f Frame, order []SortKey) (dataflow.Frame, error) {
	if f == DefaultFrame {
		return dataflow.Frame{}, nil
	}
	out := dataflow.Frame{Exclude: dataflow.Exclusion(f.Exclude)}
	switch f.Mode {
	case FrameRows:
		out.Mode = dataflow.FrameRows
	case FrameGroups:
		out.Mode = dataflow.FrameGroups
	}
	var orderCol *scalar.ColRef
	if f.Mode == FrameRange && (f.Start.Offset != nil || f.End.Offset != nil) {
		if len(order) != 1 {
			return out, pgerr.New(pgerr.InternalError, "RANGE offset over %d ORDER BY columns", len(order))
		}
		cr, ok := order[0].Expr.(*scalar.ColRef)
		if !ok {
			return out, pgerr.New(pgerr.InternalError, "window ORDER BY over an expression")
		}
		orderCol, out.OrderCol, out.NullsFirst = cr, cr.Idx, order[0].NullsFirst
	}
	bound := func(b FrameBound, start bool) (dataflow.FrameBound, error) {
		var r dataflow.FrameBound
		switch b.Kind {
		case UnboundedPreceding:
			r.Kind = dataflow.UnboundedPreceding
		case OffsetPreceding:
			r.Kind = dataflow.Preceding
		case CurrentRow:
			r.Kind = dataflow.CurrentRow
		case OffsetFollowing:
			r.Kind = dataflow.Following
		case UnboundedFollowing:
			r.Kind = dataflow.UnboundedFollowing
		}
		if b.Offset == nil {
			return r, nil
		}
		d, err := scalar.Eval(lc.Eval, b.Offset, nil)
		if err != nil {
			return r, err
		}
		if d.IsNull() {
			which := [2]string{"ending", "starting"}[boolIdx(start)]
			return r, pgerr.New(pgerr.NullValueNotAllowed, "frame %s offset must not be null", which)
		}
		if orderCol == nil {
			r.Offset = d.Int()
			return r, nil
		}
		sub, less := b.Kind == OffsetPreceding, !start
		if order[0].Desc {
			sub, less = !sub, !less
		}
		r.InRange = scalar.InRange(lc.Eval, orderCol.Typ.Family, d, sub, less)
		return r, nil
	}
	var err error
	if out.Start, err = bound(f.Start, true); err != nil {
		return out, err
	}
	if out.End, err = bound(f.End, false); err != nil {
		return out, err
	}
	return out, out.Validate()
}

func boolIdx(b bool) int {
	if b {
		return 1
	}
	return 0
}
