package dataflow

import (
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// This file holds the frames whose bounds are not counts of rows: RANGE
// frames with an offset, whose bounds are found by comparing order values
// (PostgreSQL's in_range), and GROUPS frames, whose bounds are peer
// groups; and frame exclusion. Their rows are found at the start of each
// peer group (peers share a frame in both modes), by cursors that only
// move forward along a range, so a range costs its length plus the
// frame it starts from, as for ROWS frames.

// holds reports whether order value val lies on the frame's side of
// bound b (the start when start is set) for a current row of value cur.
// NULLs sort together, before or after every value: for a NULL current
// row the frame's offset bounds are its peer group, and a non-NULL row's
// offset bounds never reach a NULL, as in PostgreSQL.
func (f *Frame) holds(b *FrameBound, start bool, val, cur types.Datum) (bool, error) {
	if val.IsNull() || cur.IsNull() {
		if start == f.NullsFirst {
			return cur.IsNull(), nil
		}
		return val.IsNull(), nil
	}
	return b.InRange(val, cur)
}

// widenGroups extends sp, the affected range of change ch at entry p, to
// the rows of GROUPS frames that can hold ch's row: those up to
// r.groupsAhead peer groups after it and r.groupsBehind before it.
// Counting in the state before the change is enough: a change that
// creates or removes a peer group moves the groups after it all alike,
// so a row whose frame does not reach the change keeps the same rows.
func (r *reach) widenGroups(s *seq, p pos, ch *wChange, sp *span) {
	if r.groupsBehind >= unbounded {
		sp.lo = ""
	} else if r.groupsBehind > 0 {
		sk, groups := ch.key[:ch.sk], int64(0)
		for q := p; ; {
			prev, ok := s.prev(q)
			if !ok {
				sp.lo = ""
				break
			}
			if k := s.at(prev).sortKey(); k != sk {
				if groups++; groups > r.groupsBehind {
					break
				}
				sk = k
			}
			q = prev
			sp.lo = min(sp.lo, s.at(q).key)
		}
	}
	if sp.hiInf {
		return
	}
	if r.groupsAhead >= unbounded {
		sp.hiInf = true
		return
	}
	if r.groupsAhead == 0 {
		return
	}
	sk, groups, last := ch.key[:ch.sk], int64(0), ""
	q := p
	for ; q.c < len(s.chunks); q = s.next(q) {
		if k := s.at(q).sortKey(); k != sk {
			if groups++; groups > r.groupsAhead {
				break
			}
			sk = k
		}
		last = s.at(q).key
	}
	switch {
	case q.c >= len(s.chunks):
		sp.hiInf = true
	case last != "":
		sp.hi = max(sp.hi, last+"\x00")
	}
}

// widenValues extends sp, the affected range of change ch at entry p, to
// the rows whose RANGE frame f can hold ch's row: the rows before it
// whose frame ends at or after its value, and those after it whose frame
// starts at or before it. An in_range error widens to the partition's
// edge, so that every row it fails for is evaluated.
func widenValues(s *seq, p pos, ch *wChange, f *Frame, sp *span) {
	v := ch.row[f.OrderCol]
	switch f.End.Kind {
	case UnboundedFollowing:
		sp.lo = ""
	case Preceding, Following:
		for q := p; ; {
			prev, ok := s.prev(q)
			if !ok {
				sp.lo = ""
				break
			}
			if in, err := f.holds(&f.End, false, v, s.row(prev)[f.OrderCol]); err == nil && !in {
				break
			}
			q = prev
			sp.lo = min(sp.lo, s.at(q).key)
		}
	}
	if sp.hiInf {
		return
	}
	switch f.Start.Kind {
	case UnboundedPreceding:
		sp.hiInf = true
	case Preceding, Following:
		q, last := p, ""
		for ; q.c < len(s.chunks); q = s.next(q) {
			if in, err := f.holds(&f.Start, true, v, s.row(q)[f.OrderCol]); err == nil && !in {
				break
			}
			last = s.at(q).key
		}
		switch {
		case q.c >= len(s.chunks):
			sp.hiInf = true
		case last != "":
			sp.hi = max(sp.hi, last+"\x00")
		}
	}
}

// frameCursor is one end of a RANGE frame with an offset during an
// evaluation: the entry at the frame's edge and its unit.
type frameCursor struct {
	p   pos
	u   int64
	set bool
}

// groupFrame computes, at the start of the peer group at p, the frame
// [fs.ra, fs.rb) shared by the group's rows for a RANGE frame with an
// offset or a GROUPS frame. The group is [ev.gStart, ev.gEnd].
func (ev *evaluator) groupFrame(f *Frame, fs *funcState, p pos) {
	fs.rerr = nil
	if f.Mode == FrameGroups {
		fs.ra = ev.groupBound(&f.Start, true)
		fs.rb = max(fs.ra, ev.groupBound(&f.End, false))
		return
	}
	cur := ev.s.row(p)[f.OrderCol]
	var err error
	switch f.Start.Kind {
	case UnboundedPreceding:
		fs.ra = 0
	case CurrentRow:
		fs.ra = ev.gStart
	default:
		fs.ra, err = ev.seekStart(f, &fs.head, p, cur)
	}
	if err == nil {
		switch f.End.Kind {
		case UnboundedFollowing:
			fs.rb = ev.total
		case CurrentRow:
			fs.rb = ev.gEnd + 1
		default:
			fs.rb, err = ev.seekEnd(f, &fs.tail, p, cur)
		}
	}
	if err != nil {
		fs.rerr = dataError(err)
		// The cursors stopped half-way; the next group starts afresh.
		fs.head.set, fs.tail.set = false, false
		fs.ra, fs.rb = 0, 0
		return
	}
	fs.rb = max(fs.ra, fs.rb)
}

// seekStart moves c to the first row at or after the frame's start for
// the group at p of order value cur, and returns its unit. The first
// group of a range walks back from p; later groups move on from where
// the previous one's start was, since starts only move forward.
func (ev *evaluator) seekStart(f *Frame, c *frameCursor, p pos, cur types.Datum) (int64, error) {
	s := ev.s
	if !c.set {
		c.p, c.u, c.set = p, ev.gStart, true
		in, err := f.holds(&f.Start, true, s.row(p)[f.OrderCol], cur)
		if err != nil {
			return 0, err
		}
		for in {
			prev, ok := s.prev(c.p)
			if !ok {
				break
			}
			if in, err = f.holds(&f.Start, true, s.row(prev)[f.OrderCol], cur); err != nil {
				return 0, err
			}
			if in {
				c.p = prev
				c.u -= s.at(prev).n
			}
		}
	}
	for c.p.c < len(s.chunks) {
		in, err := f.holds(&f.Start, true, s.row(c.p)[f.OrderCol], cur)
		if err != nil {
			return 0, err
		}
		if in {
			break
		}
		c.u += s.at(c.p).n
		c.p = s.next(c.p)
	}
	return c.u, nil
}

// seekEnd moves c to the first row after the frame's end for the group
// at p of order value cur, and returns its unit. Like starts, ends only
// move forward after the first group of a range, which walks back from
// p when the frame ends before the group.
func (ev *evaluator) seekEnd(f *Frame, c *frameCursor, p pos, cur types.Datum) (int64, error) {
	s := ev.s
	if !c.set {
		c.p, c.u, c.set = p, ev.gStart, true
		in, err := f.holds(&f.End, false, s.row(p)[f.OrderCol], cur)
		if err != nil {
			return 0, err
		}
		for !in {
			prev, ok := s.prev(c.p)
			if !ok {
				break
			}
			if in, err = f.holds(&f.End, false, s.row(prev)[f.OrderCol], cur); err != nil {
				return 0, err
			}
			if !in {
				c.p = prev
				c.u -= s.at(prev).n
			}
		}
	}
	for c.p.c < len(s.chunks) {
		in, err := f.holds(&f.End, false, s.row(c.p)[f.OrderCol], cur)
		if err != nil {
			return 0, err
		}
		if !in {
			break
		}
		c.u += s.at(c.p).n
		c.p = s.next(c.p)
	}
	return c.u, nil
}

// groupBound returns the unit where a GROUPS frame starts (start set) or
// the unit after its end, for the current peer group.
func (ev *evaluator) groupBound(b *FrameBound, start bool) int64 {
	g := ev.dense - 1 // the current group
	switch b.Kind {
	case UnboundedPreceding:
		return 0
	case UnboundedFollowing:
		return ev.total
	case CurrentRow:
		if start {
			return ev.gStart
		}
		return ev.gEnd + 1
	case Preceding:
		g -= b.Offset
	case Following:
		g += b.Offset
	}
	if !start {
		g++ // the end is the start of the group after it
	}
	if g <= 0 {
		return 0
	}
	return ev.s.unitsBefore(ev.s.groupStart(g))
}

// excluded returns the units of the frame [a, b) that the frame's
// EXCLUDE clause removes for the current unit: up to two ranges, empty
// ones with x ≥ y.
func (ev *evaluator) excluded(f *Frame, a, b int64) (x1, y1, x2, y2 int64) {
	switch f.Exclude {
	case ExcludeCurrentRow:
		x1, y1 = ev.u, ev.u+1
	case ExcludeGroup:
		x1, y1 = ev.gStart, ev.gEnd+1
	case ExcludeTies:
		x1, y1, x2, y2 = ev.gStart, ev.u, ev.u+1, ev.gEnd+1
	}
	return max(x1, a), min(y1, b), max(x2, a), min(y2, b)
}

// framePosition returns the unit of the i-th row (0-based) of the frame
// [a, b) without its excluded rows, false when there is none; from the
// end when last is set.
func (ev *evaluator) framePosition(f *Frame, a, b, i int64, last bool) (int64, bool) {
	x1, y1, x2, y2 := ev.excluded(f, a, b)
	holes := [2][2]int64{{x1, y1}, {x2, y2}}
	if last {
		at := b - 1 - i
		for h := 1; h >= 0; h-- {
			if x, y := holes[h][0], holes[h][1]; x < y && at < y {
				at -= y - x
			}
		}
		return at, at >= a
	}
	at := a + i
	for _, h := range holes {
		if x, y := h[0], h[1]; x < y && at >= x {
			at += y - x
		}
	}
	return at, at < b
}

// withoutExcluded reads the aggregate of the frame [a, b) held in fs
// without the rows the frame's EXCLUDE clause removes: it takes them out
// of the state, reads the result and puts them back.
func (ev *evaluator) withoutExcluded(f *Frame, fs *funcState, a, b int64) (types.Datum, *pgerr.Error) {
	x1, y1, x2, y2 := ev.excluded(f, a, b)
	ev.feedUnits(fs, x1, y1, -1)
	ev.feedUnits(fs, x2, y2, -1)
	d, err := ev.frameResult(fs)
	ev.feedUnits(fs, x1, y1, 1)
	ev.feedUnits(fs, x2, y2, 1)
	return d, err
}

// feedUnits feeds the rows of units [x, y) to the frame's aggregate
// with sign.
func (ev *evaluator) feedUnits(fs *funcState, x, y, sign int64) {
	if x >= y {
		return
	}
	c := ev.s.cursor(x)
	for x < y {
		row, n := ev.s.take(&c, y-x)
		ev.feed(fs, row, sign*n)
		x += n
	}
}

// frameResult returns the aggregate of the frame held in fs, or the
// first error of its rows.
func (ev *evaluator) frameResult(fs *funcState) (types.Datum, *pgerr.Error) {
	if len(fs.errs) > 0 {
		return types.Null, fs.errs[0].Err
	}
	d, err := fs.st.Result()
	if err != nil {
		return types.Null, dataError(err)
	}
	return d, nil
}
