package planner

import (
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// expiringKey returns the first group key of an aggregate whose values a
// watermark bounds (see ColumnWatermark): a group behind it is closed
// once its rows are in, and the maintained aggregate forgets it.
func (p *physical) expiringKey(a *Aggregate) (bool, int) {
	if len(a.Keys) == 0 {
		return false, 0
	}
	for i, b := range p.wms.of(a)[:len(a.Keys)] {
		if b != nil && isTime(a.Keys[i].Type()) {
			return true, i
		}
	}
	return false, 0
}

func isTime(t types.Type) bool {
	return t.Family == types.Timestamp || t.Family == types.TimestampTZ
}

// joinExpiry finds the conditions of an inner join that bound a side's
// rows in time against the other side's: a conjunct x.c1 + k1 <= y.c2 +
// k2 (or <, or either way round), columns of opposite sides with
// watermarks, k1 and k2 constant intervals of fixed length. A y row can
// then match only x rows with c1 <= y.c2 + k2 - k1: once x's watermark
// on c1 has passed that, and y's own on c2 has passed y.c2, the row is
// forgotten. b.ts BETWEEN a.ts AND a.ts + INTERVAL '10 minutes' gives
// both sides one.
func (p *physical) joinExpiry(j *Join) (left, right *JoinExpiry) {
	lw := len(j.Left.Columns())
	wl, wr := p.wms.of(j.Left), p.wms.of(j.Right)
	bounded := func(col int) bool {
		if col < lw {
			return wl[col] != nil
		}
		return wr[col-lw] != nil
	}
	_, rest := splitJoinCondition(j.On, lw, j.NullSafe)
	for _, c := range rest {
		call, ok := c.(*scalar.Call)
		if !ok || !call.Fn.Op || len(call.Args) != 2 {
			continue
		}
		lo, hi := call.Args[0], call.Args[1]
		switch call.Fn.Name {
		case "<", "<=":
		case ">", ">=":
			lo, hi = hi, lo
		default:
			continue
		}
		c1, k1, ok1 := timeTerm(lo)
		c2, k2, ok2 := timeTerm(hi)
		if !ok1 || !ok2 || (c1 < lw) == (c2 < lw) || !bounded(c1) || !bounded(c2) {
			continue
		}
		// The side of c2 expires against the watermark of c1.
		if c2 < lw {
			if left == nil {
				left = &JoinExpiry{Col: c2, Other: c1 - lw, Shift: k2 - k1}
			}
		} else if right == nil {
			right = &JoinExpiry{Col: c2 - lw, Other: c1, Shift: k2 - k1}
		}
	}
	return left, right
}

// timeTerm reads a column of timestamps plus or minus a constant interval
// of fixed length (days count as 24 hours, as date_bin has them), in
// microseconds.
func timeTerm(e scalar.Expr) (col int, shift int64, ok bool) {
	switch x := e.(type) {
	case *scalar.ColRef:
		return x.Idx, 0, isTime(x.Typ)
	case *scalar.Call:
		if len(x.Args) != 2 || (x.Fn.Name != "+" && x.Fn.Name != "-") {
			return 0, 0, false
		}
		k, ok := fixedInterval(x.Args[1])
		if !ok {
			return 0, 0, false
		}
		col, shift, ok := timeTerm(x.Args[0])
		if x.Fn.Name == "-" {
			k = -k
		}
		return col, shift + k, ok
	}
	return 0, 0, false
}

// fixedInterval returns a constant interval without months in
// microseconds.
func fixedInterval(e scalar.Expr) (int64, bool) {
	c, ok := e.(*scalar.Const)
	if !ok || c.Val.IsNull() || c.Val.Kind() != types.Interval {
		return 0, false
	}
	iv := c.Val.Interval()
	if iv.Months != 0 {
		return 0, false
	}
	return int64(iv.Days)*86_400_000_000 + iv.Micros, true
}
