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
	if numberedTopK(lc, w) {
		return lowerTopK(lc, w.Input.(*TopK), true)
	}
	in, err := Lower(lc, w.Input)
	if err != nil {
		return in, err
	}
	width := len(w.Input.Columns())
	var valueArgs []scalar.Expr
	for _, c := range w.Calls {
		if c.Func != nil && len(c.Args) > 0 && c.Func.Kind != scalar.WinNtile {
			valueArgs = append(valueArgs, c.Args[0])
		}
	}
	in, wide, cols, err := columnKeys(lc, in, width, valueArgs)
	if err != nil {
		return in, err
	}
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
	next := 0
	for _, c := range w.Calls {
		f, err := windowFunc(lc, c, w.Order)
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

// windowFunc translates one call. Offsets and bucket counts must be
// constants (or parameters), as the operator needs them up front. An
// aggregate that lists its inputs (array_agg, string_agg, ...) takes the
// window's ORDER BY as its own: its frame's rows in window order.
func windowFunc(lc *LowerContext, c WindowCall, order []SortKey) (dataflow.WindowFunc, error) {
	frame, err := windowFrame(lc, c.Frame)
	if err != nil {
		return dataflow.WindowFunc{}, err
	}
	if c.Agg != nil {
		call := AggCall{Func: c.Agg, Args: c.Args, Typ: c.Typ}
		if c.Agg.InputOrdered() {
			call.Order = order
		}
		agg, err := buildAggregate(lc, call, false)
		if err != nil {
			return dataflow.WindowFunc{}, err
		}
		return dataflow.WindowFunc{Kind: dataflow.WindowAgg, Agg: agg, Frame: frame}, nil
	}
	arg := func(i int, def int64) (int64, error) {
		if i >= len(c.Args) {
			return def, nil
		}
		d, err := scalar.Eval(lc.Eval, c.Args[i], nil)
		if err != nil {
			return 0, err
		}
		if d.IsNull() {
			return 0, pgerr.New(pgerr.InvalidParameterValue, "argument of %s must not be null", c.Func.Name)
		}
		return d.Int(), nil
	}
	f := dataflow.WindowFunc{Frame: frame}
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
		if f.N, err = arg(0, 1); err != nil {
			return f, err
		}
		if f.N < 1 {
			return f, pgerr.New(pgerr.InvalidArgumentForNtile, "argument of ntile must be greater than zero")
		}
	case scalar.WinLag, scalar.WinLead:
		f.Kind = dataflow.Lag
		if c.Func.Kind == scalar.WinLead {
			f.Kind = dataflow.Lead
		}
		if f.N, err = arg(1, 1); err != nil {
			return f, err
		}
		if len(c.Args) > 2 {
			def, err := scalar.Compile(c.Args[2])
			if err != nil {
				return f, err
			}
			ev := lc.Eval
			f.Default = func(r types.Row) types.Datum {
				d, err := def(ev, r)
				if err != nil {
					return types.Null
				}
				return d
			}
		}
	case scalar.WinFirstValue:
		f.Kind = dataflow.FirstValue
	case scalar.WinLastValue:
		f.Kind = dataflow.LastValue
	case scalar.WinNthValue:
		f.Kind = dataflow.NthValue
		if f.N, err = arg(1, 1); err != nil {
			return f, err
		}
		if f.N < 1 {
			return f, pgerr.New(pgerr.InvalidArgumentForNthValue, "argument of nth_value must be greater than zero")
		}
	default:
		return f, pgerr.New(pgerr.FeatureNotSupported, "window function %s is not supported", c.Func.Name)
	}
	return f, nil
}

// windowFrame translates a frame clause, evaluating its offsets.
func windowFrame(lc *LowerContext, f Frame) (dataflow.Frame, error) {
	if f == DefaultFrame {
		return dataflow.Frame{}, nil
	}
	if f.Mode == FrameGroups {
		return dataflow.Frame{}, pgerr.New(pgerr.FeatureNotSupported, "GROUPS frames are not supported")
	}
	var out dataflow.Frame
	if f.Mode == FrameRows {
		out.Mode = dataflow.FrameRows
	}
	bound := func(b FrameBound) (dataflow.FrameBound, error) {
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
		if b.Offset != nil {
			d, err := scalar.Eval(lc.Eval, b.Offset, nil)
			if err != nil {
				return r, err
			}
			if d.IsNull() {
				return r, pgerr.New(pgerr.NullValueNotAllowed, "frame offset must not be null")
			}
			r.Offset = d.Int()
		}
		return r, nil
	}
	var err error
	if out.Start, err = bound(f.Start); err != nil {
		return out, err
	}
	if out.End, err = bound(f.End); err != nil {
		return out, err
	}
	return out, out.Validate()
}
