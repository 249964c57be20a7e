package oracle

import (
	"fmt"
	"strings"
)

// Window frames of issue 28 for aggregate window calls, which read their
// frame as a set, so that peers need no total order: RANGE with offsets
// over one ORDER BY key (numbers, dates and timestamps, with interval
// offsets), GROUPS, and EXCLUDE in every mode.

// frameBounds are the frame bounds in their order; a frame's end may not
// come before its start, nor may a start at CURRENT ROW or FOLLOWING end
// PRECEDING (PostgreSQL's errors).
const (
	bUnboundedPreceding = iota
	bPreceding
	bCurrent
	bFollowing
	bUnboundedFollowing
)

// frameOver renders a window definition with partition part (and its
// trailing space) and one of the frames above.
func (g *qgen) frameOver(in *ectx, part string) string {
	switch g.r.IntN(3) {
	case 0:
		var nums, times []col
		for _, c := range in.sc.qualified() {
			switch c.typ.class() {
			case cNum:
				nums = append(nums, c)
			case cTime:
				times = append(times, c)
			}
		}
		keys := nums
		if len(times) > 0 && (len(nums) == 0 || g.r.chance(0.5)) {
			keys = times
		}
		if len(keys) > 0 {
			k := pick(g.r, keys)
			offset := func() string { return rangeOffset(g, k.typ) }
			return part + "ORDER BY " + k.ref + g.direction() + " RANGE " + g.frameExtent(offset) + g.exclusion()
		}
	case 1:
		offset := func() string { return fmt.Sprint(g.r.between(0, 2)) }
		return part + "ORDER BY " + strings.Join(g.windowKeys(in), ", ") + " GROUPS " + g.frameExtent(offset) + g.exclusion()
	}
	offset := func() string { return fmt.Sprint(g.r.between(0, 2)) }
	return part + "ORDER BY " + g.totalOrder(in) + " ROWS " + g.frameExtent(offset) + g.exclusion()
}

// frameExtent renders BETWEEN start AND end with offsets from offset.
func (g *qgen) frameExtent(offset func() string) string {
	s := g.r.between(bUnboundedPreceding, bFollowing)
	lo := max(s, bPreceding)
	if s >= bCurrent {
		lo = s
	}
	e := g.r.between(lo, bUnboundedFollowing)
	bound := func(b int) string {
		switch b {
		case bUnboundedPreceding:
			return "UNBOUNDED PRECEDING"
		case bPreceding:
			return offset() + " PRECEDING"
		case bCurrent:
			return "CURRENT ROW"
		case bFollowing:
			return offset() + " FOLLOWING"
		}
		return "UNBOUNDED FOLLOWING"
	}
	return "BETWEEN " + bound(s) + " AND " + bound(e)
}

// exclusion renders an EXCLUDE clause, often none.
func (g *qgen) exclusion() string {
	if g.r.chance(0.5) {
		return ""
	}
	return pick(g.r, []string{" EXCLUDE CURRENT ROW", " EXCLUDE GROUP", " EXCLUDE TIES", " EXCLUDE NO OTHERS"})
}

// rangeOffset is an offset for a RANGE frame over a key of type t.
func rangeOffset(g *qgen, t typ) string {
	switch t {
	case tInt, tBigint:
		return fmt.Sprint(g.r.between(0, 3))
	case tNumeric:
		return pick(g.r, []string{"0", "1", "2.5"})
	case tDate:
		return pick(g.r, []string{"INTERVAL '1 day'", "INTERVAL '7 days'", "INTERVAL '1 mon'"})
	}
	return pick(g.r, []string{"INTERVAL '1 hour'", "INTERVAL '1 day'", "INTERVAL '2 days 12:00:00'"})
}
