package planner

import (
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// lowerSession lowers session windows, which forget the sessions the
// watermark of the time column has closed, when it has one.
func lowerSession(lc *LowerContext, s *Session) (dataflow.Node, error) {
	in, err := Lower(lc, s.Input)
	if err != nil {
		return in, err
	}
	wm, err := lc.columnWatermark(s.Input, s.TS)
	if err != nil {
		return in, err
	}
	spec := dataflow.SessionSpec{TS: s.TS, Gap: s.Gap, Watermark: wm}
	if len(s.Keys) > 0 {
		spec.Key = pick(s.Keys)
	}
	return lc.Graph.Session(in, spec), nil
}

// lowerEmitOnClose lowers EMIT ON WINDOW CLOSE over the watermark of its
// column.
func lowerEmitOnClose(lc *LowerContext, e *EmitOnClose) (dataflow.Node, error) {
	in, err := Lower(lc, e.Input)
	if err != nil {
		return in, err
	}
	if lc.Watermark == nil {
		// A one-tick read of the plan: every row it holds is final.
		return in, nil
	}
	wm, err := lc.columnWatermark(e.Input, e.Col)
	if err != nil {
		return in, err
	}
	if wm == nil {
		return in, pgerr.New(pgerr.FeatureNotSupported, "EMIT ON WINDOW CLOSE needs a column with a watermark")
	}
	return lc.Graph.EmitOnClose(in, e.Col, wm), nil
}

// lowerJoinExpiry builds the row expiries Physical decided for a join:
// a side's row is forgotten once its column plus the shift lies behind
// the other side's watermark and the column behind its own.
func lowerJoinExpiry(lc *LowerContext, j *Join) (left, right *dataflow.RowExpiry, err error) {
	build := func(x *JoinExpiry, own, other Node) (*dataflow.RowExpiry, error) {
		if x == nil {
			return nil, nil
		}
		wo, err := lc.columnWatermark(other, x.Other)
		if err != nil || wo == nil {
			return nil, err
		}
		ws, err := lc.columnWatermark(own, x.Col)
		if err != nil || ws == nil {
			return nil, err
		}
		return &dataflow.RowExpiry{Col: x.Col, Threshold: func() (types.Datum, bool) {
			a, ok := wo()
			if !ok {
				return types.Null, false
			}
			b, ok := ws()
			if !ok {
				return types.Null, false
			}
			t := min(a.Int()-x.Shift, b.Int())
			if b.Kind() == types.TimestampTZ {
				return types.NewTimestampTZ(t), true
			}
			return types.NewTimestamp(t), true
		}}, nil
	}
	if left, err = build(j.LeftExpire, j.Left, j.Right); err != nil {
		return nil, nil, err
	}
	right, err = build(j.RightExpire, j.Right, j.Left)
	return left, right, err
}
