package planner

import (
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// A table or source with a WATERMARK FOR ts AS ts - INTERVAL '5 seconds'
// refuses every change (insertion or deletion) to a row whose ts lies
// behind its watermark, the greatest ts seen minus five seconds: such
// rows are late, counted and dropped or routed elsewhere. So every
// change still to come has ts at or after the watermark, and a plan
// knows the same of the columns it computes from ts with monotone
// functions: a tumbling window's start (date_bin(size, ts, origin)) is at
// least the start of the watermark's window, its end that plus size.
//
// A ColumnWatermark is such a bound: the value of Bound, an expression
// over one column #0, at the watermark of object Object. Operators use
// them to forget what no change can reach any more: an aggregate the
// groups of closed windows, a join the rows no row still to come can
// match, EMIT ON WINDOW CLOSE to emit a window once its bound has passed
// it.

// ColumnWatermark bounds the values of a column in every change still to
// come: they are at least Bound evaluated at the current watermark of
// Object.
type ColumnWatermark struct {
	Object ObjectID
	Bound  scalar.Expr
}

// watermarks computes the bounds of the columns of plan nodes, memoized.
type watermarks map[Node][]*ColumnWatermark

// of returns the bound of each of n's columns, nil where none is known.
func (w watermarks) of(n Node) []*ColumnWatermark {
	if b, ok := w[n]; ok {
		return b
	}
	out := make([]*ColumnWatermark, len(n.Columns()))
	w[n] = out
	switch x := n.(type) {
	case *Get:
		if x.Watermarked && x.WatermarkCol < len(out) {
			t := x.Cols[x.WatermarkCol].Type
			out[x.WatermarkCol] = &ColumnWatermark{Object: x.ID, Bound: &scalar.ColRef{Idx: 0, Typ: t}}
		}
	case *Filter, *Distinct, *EmitOnClose:
		// A row leaves a filter's or DISTINCT's output only when it
		// leaves its input.
		copy(out, w.of(n.Inputs()[0]))
	case *Project:
		in := w.of(x.Input)
		for i, e := range x.Exprs {
			out[i] = monotone(e, in)
		}
	case *Aggregate:
		// A group changes only when rows of its key change.
		in := w.of(x.Input)
		for i, k := range x.Keys {
			out[i] = monotone(k, in)
		}
	case *FlatMap:
		in := w.of(x.Input)
		copy(out, in)
		if x.Func.Name == "generate_series" && len(x.Args) == 3 && positiveInterval(x.Args[2]) {
			// A series rising from its start: HOP's window starts.
			out[len(in)] = monotone(x.Args[0], in)
		}
	case *Session:
		// A session's rows are retracted when it merges with another,
		// whatever their times; its end is after the watermark as long
		// as the session is open.
		if b := w.of(x.Input)[x.TS]; b != nil {
			out[len(out)-1] = b
		}
	case *SetOp:
		if x.Kind == Union && x.All {
			l, r := w.of(x.Left), w.of(x.Right)
			for i := range out {
				if l[i] != nil && r[i] != nil && l[i].Object == r[i].Object && l[i].Bound.String() == r[i].Bound.String() {
					out[i] = l[i]
				}
			}
		}
	}
	return out
}

// Watermarks returns the bound of each column of a plan, nil where none
// is known (see ColumnWatermark).
func Watermarks(n Node) []*ColumnWatermark { return watermarks{}.of(n) }

// monotone returns the bound of e over columns bounded by in, when e is
// a non-decreasing function of one bounded column: the column itself,
// plus or minus a constant interval, date_bin and date_trunc of it with
// constant arguments. The bound is e with the column replaced by its
// bound.
func monotone(e scalar.Expr, in []*ColumnWatermark) *ColumnWatermark {
	switch x := e.(type) {
	case *scalar.ColRef:
		return in[x.Idx]
	case *scalar.Pinned:
		b := monotone(x.Arg, in)
		if b == nil {
			return nil
		}
		return &ColumnWatermark{Object: b.Object, Bound: &scalar.Pinned{Arg: b.Bound, Text: x.Text, Zone: x.Zone}}
	case *scalar.Call:
		var arg int
		switch {
		case (x.Fn.Name == "+" || x.Fn.Name == "-") && len(x.Args) == 2 && isConst(x.Args[1]) && x.Args[1].Type().Family == types.Interval:
			arg = 0
		case x.Fn.Name == "+" && len(x.Args) == 2 && isConst(x.Args[0]) && x.Args[0].Type().Family == types.Interval:
			arg = 1
		case x.Fn.Name == "date_bin" && len(x.Args) == 3 && isConst(x.Args[0]) && isConst(x.Args[2]):
			arg = 1
		case x.Fn.Name == "date_trunc" && len(x.Args) >= 2 && isConst(x.Args[0]) && (len(x.Args) == 2 || isConst(x.Args[2])):
			arg = 1
		default:
			return nil
		}
		b := monotone(x.Args[arg], in)
		if b == nil {
			return nil
		}
		args := append([]scalar.Expr(nil), x.Args...)
		args[arg] = b.Bound
		return &ColumnWatermark{Object: b.Object, Bound: &scalar.Call{Fn: x.Fn, Args: args}}
	}
	return nil
}

func isConst(e scalar.Expr) bool {
	_, ok := e.(*scalar.Const)
	return ok
}

// positiveInterval reports whether e is a constant interval greater than
// zero.
func positiveInterval(e scalar.Expr) bool {
	c, ok := e.(*scalar.Const)
	if !ok || c.Val.IsNull() || c.Val.Kind() != types.Interval {
		return false
	}
	iv := c.Val.Interval()
	return iv.Months >= 0 && iv.Days >= 0 && iv.Micros >= 0 && (iv.Months > 0 || iv.Days > 0 || iv.Micros > 0)
}

// columnWatermark returns the dataflow watermark of column col of n, nil
// when none is known or the lowering has no watermarks (LowerContext.
// Watermark unset).
func (lc *LowerContext) columnWatermark(n Node, col int) (dataflow.Watermark, error) {
	if lc.Watermark == nil {
		return nil, nil
	}
	if lc.wms == nil {
		lc.wms = watermarks{}
	}
	b := lc.wms.of(n)[col]
	if b == nil {
		return nil, nil
	}
	base := lc.Watermark(b.Object)
	if base == nil {
		return nil, nil
	}
	if _, ok := b.Bound.(*scalar.ColRef); ok {
		return base, nil
	}
	ev, err := scalar.Compile(b.Bound)
	if err != nil {
		return nil, err
	}
	ctx := lc.Eval
	row := make(types.Row, 1)
	return func() (types.Datum, bool) {
		w, ok := base()
		if !ok || w.IsNull() {
			return types.Null, false
		}
		row[0] = w
		d, err := ev(ctx, row)
		if err != nil {
			return types.Null, false
		}
		return d, true
	}, nil
}
