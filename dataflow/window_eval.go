package dataflow

import (
	"context"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// reach says how far the effect of a changed row extends, in units
// (rows with multiplicity): ahead rows after it and behind rows before it
// may change value; peers widens both ends to whole peer groups.
type reach struct {
	ahead, behind int64
	peers         bool
	// groupsAhead and groupsBehind extend the reach by peer groups
	// (GROUPS frames); values lists the RANGE frames with an offset,
	// whose reach is found by comparing order values (widenValues).
	groupsAhead, groupsBehind int64
	values                    []*Frame
}

// windowReach combines the reach of every function of a spec.
func windowReach(spec WindowSpec) reach {
	var r reach
	for i := range spec.Funcs {
		f := &spec.Funcs[i]
		switch f.Kind {
		case RowNumber:
			r.ahead = unbounded
		case Rank, DenseRank:
			r.ahead, r.peers = unbounded, true
		case PercentRank, CumeDist, Ntile:
			r.ahead, r.behind, r.peers = unbounded, unbounded, true
		case Lag, Lead:
			if f.VarN {
				// A row's offset may reach any other row.
				r.ahead, r.behind = unbounded, unbounded
			} else if f.Kind == Lag {
				r.widen(f.N)
			} else {
				r.widen(-f.N)
			}
		default:
			if f.Frame.Start.Kind == 0 {
				r.frame(&defaultFrame)
			} else {
				r.frame(&f.Frame)
			}
		}
	}
	return r
}

// widen covers rows whose function looks off rows back (forward when
// negative).
func (r *reach) widen(off int64) {
	if off >= 0 {
		r.ahead = max(r.ahead, off)
	} else {
		r.behind = max(r.behind, -off)
	}
}

// frame covers the rows whose frame contains the changed row: row q's
// ROWS frame [q+s, q+e] contains p when p−e ≤ q ≤ p−s.
// A RANGE frame with an offset reaches the rows whose values its offsets
// cover, a GROUPS frame the peer groups its offsets count; EXCLUDE GROUP
// and TIES need the current row's peer group.
func (r *reach) frame(f *Frame) {
	if f.Exclude == ExcludeGroup || f.Exclude == ExcludeTies {
		r.peers = true
	}
	s, e := boundOffset(f.Start), boundOffset(f.End)
	switch f.Mode {
	case FrameRange:
		r.peers = true
		if f.Start.Kind == UnboundedPreceding {
			r.ahead = unbounded
		}
		if f.End.Kind == UnboundedFollowing {
			r.behind = unbounded
		}
		if f.offsetRange() {
			r.values = append(r.values, f)
		}
		return
	case FrameGroups:
		r.peers = true
		r.groupsAhead = max(r.groupsAhead, -s)
		r.groupsBehind = max(r.groupsBehind, e)
		return
	}
	r.ahead = max(r.ahead, -s, 0)
	r.behind = max(r.behind, e, 0)
}

func boundOffset(b FrameBound) int64 {
	switch b.Kind {
	case UnboundedPreceding:
		return -unbounded
	case Preceding:
		return -b.Offset
	case Following:
		return b.Offset
	case UnboundedFollowing:
		return unbounded
	}
	return 0
}

// defaultFrame is the zero Frame made explicit.
var defaultFrame = Frame{Mode: FrameRange, Start: FrameBound{Kind: UnboundedPreceding}, End: FrameBound{Kind: CurrentRow}}

// frame returns the function's frame, the default made explicit.
func (f *WindowFunc) frame() *Frame {
	if f.Frame.Start.Kind == 0 && f.Frame.End.Kind == 0 {
		return &defaultFrame
	}
	return &f.Frame
}

// span is a half-open range of window keys [lo, hi); hiInf means to the
// end of the partition.
type span struct {
	lo, hi string
	hiInf  bool
}

// affected returns the key range holding every row whose values can
// differ between the partition before and after change ch, computed on
// the state before. Walking the change's reach in the old state is
// enough although positions shift: a row whose value depends on some
// change within reach in the new state has a nearest change on that side
// with only unchanged rows in between, so at the same distance in both
// states. The ranges of a partition's changes, taken in key order, start
// in order too, so that overlapping ones are merged as they come (see
// stepPartition).
func (op *windowOp) affected(s *seq, ch *wChange) span {
	r := op.reach
	p := s.search(ch.key)
	sp := span{lo: ch.key}
	if r.behind >= unbounded {
		sp.lo = ""
	} else {
		for q, units := p, int64(0); units < r.behind; {
			prev, ok := s.prev(q)
			if !ok {
				sp.lo = ""
				break
			}
			q = prev
			units += s.at(q).n
			sp.lo = s.at(q).key
		}
	}
	q := p
	if q.c < len(s.chunks) && s.at(q).is(ch.key) {
		q = s.next(q)
	}
	last := ch.key // the last key in reach: one concatenation per change
	for units := int64(0); units < r.ahead; {
		if q.c >= len(s.chunks) || r.ahead >= unbounded {
			sp.hiInf = true
			break
		}
		last = s.at(q).key
		units += s.at(q).n
		q = s.next(q)
	}
	if !sp.hiInf {
		sp.hi = last + "\x00"
	}
	if r.groupsAhead > 0 || r.groupsBehind > 0 {
		r.widenGroups(s, p, ch, &sp)
	}
	for _, f := range r.values {
		widenValues(s, p, ch, f, &sp)
	}
	if r.peers {
		sp.lo = min(sp.lo, peerLo(s, sp.lo), ch.key[:ch.sk])
		if !sp.hiInf {
			sp.hi, sp.hiInf = peerHi(s, sp.hi, ch.key[:ch.sk])
		}
	}
	return sp
}

// merge extends sp by x, which starts at or after sp's start, and
// reports whether they overlap (or touch); if not, sp is unchanged.
func (sp *span) merge(x span) bool {
	if !sp.hiInf && x.lo > sp.hi {
		return false
	}
	if x.hiInf || (!sp.hiInf && x.hi > sp.hi) {
		sp.hi, sp.hiInf = x.hi, x.hiInf
	}
	return true
}

// peerLo returns the sort key of the entry at or after lo, so that a range
// starting there starts at its peer group.
func peerLo(s *seq, lo string) string {
	p := s.search(lo)
	if p.c >= len(s.chunks) {
		return lo
	}
	return s.at(p).sortKey()
}

// peerHi widens an exclusive bound hi to the end of the peer group of the
// last entry before it and of the sort key sk.
func peerHi(s *seq, hi, sk string) (string, bool) {
	p := s.search(hi)
	if q, ok := s.prev(p); ok {
		if k := s.at(q).sortKey(); k > sk {
			sk = k
		}
	}
	end, ok := prefixEnd(sk)
	if !ok {
		return "", true
	}
	return max(hi, end), false
}

// prefixEnd returns the smallest string greater than every string with
// prefix p, false when there is none (p empty or all 0xff).
func prefixEnd(p string) (string, bool) {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1]), true
		}
	}
	return "", false
}

// eval appends the outputs of every unit of the entries in sp; it fails
// when ctx is canceled, checked every cancelCheckRows units.
func (op *windowOp) eval(ctx context.Context, s *seq, sp span, dst []wOut) ([]wOut, error) {
	p := s.search(sp.lo)
	if p.c >= len(s.chunks) {
		return dst, nil
	}
	ev := evaluator{op: op, s: s, total: s.total, u: s.unitsBefore(p)}
	ev.init(p)
	// The end is tested on heads (see wEntry.is) before keys.
	hiHead := headOf(stored(sp.hi))
	for ; p.c < len(s.chunks); p = s.next(p) {
		e := s.at(p)
		if c := e.pfx.compare(hiHead); !sp.hiInf && (c > 0 || c == 0 && e.key >= sp.hi) {
			break
		}
		if op.reach.peers && s.isStart(p) {
			ev.startGroup(p)
		}
		row := s.row(p)
		for k := int64(0); k < e.n; k++ {
			dst = append(dst, ev.unit(e, row, k))
			if ev.u++; ev.u%cancelCheckRows == 0 {
				if err := ctx.Err(); err != nil {
					return dst, err
				}
			}
		}
	}
	return dst, nil
}

// evaluator computes the functions' values unit by unit along a range of
// a partition. Cursors and frames only move forward, so a range costs its
// length plus the initial frames.
type evaluator struct {
	op    *windowOp
	s     *seq
	total int64
	u     int64 // current unit
	// The current peer group [gStart, gEnd] and dense rank.
	gStart, gEnd int64
	dense        int64
	fs           []funcState
}

// funcState is the per-function state of an evaluation: a cursor for
// Lag, Lead and NthValue, and the aggregated frame [a, b) with cursors at
// a and b for frames. A RANGE frame with an offset and a GROUPS frame
// have their current peer group's frame in [ra, rb) (or the error rerr),
// found with the cursors head and tail (see groupFrame).
type funcState struct {
	cur        ucur
	curSet     bool
	a, b       int64
	lo, hi     ucur
	st         AggState
	errs       []ErrorUpdate
	ra, rb     int64
	head, tail frameCursor
	rerr       *pgerr.Error
}

func (ev *evaluator) init(p pos) {
	// The function states are the operator's, reused by every range: a
	// tick on a large partition evaluates a range per change.
	n := len(ev.op.spec.Funcs)
	if cap(ev.op.fs) < n {
		ev.op.fs = make([]funcState, n)
	}
	ev.fs = ev.op.fs[:n]
	clear(ev.fs)
	if ev.op.groupCounts {
		ev.dense = ev.s.startsBefore(p)
		// A range starts at a peer group (see affected) unless the
		// functions need no peers; startGroup runs on its first entry.
	}
}

// startGroup records the peer group starting at p.
func (ev *evaluator) startGroup(p pos) {
	ev.gStart = ev.u
	n := int64(0)
	sk := ev.s.at(p).sortKey()
	for q := p; q.c < len(ev.s.chunks) && ev.s.at(q).sortKey() == sk; q = ev.s.next(q) {
		n += ev.s.at(q).n
	}
	ev.gEnd = ev.u + n - 1
	ev.dense++
	for i := range ev.op.spec.Funcs {
		if f := &ev.op.spec.Funcs[i].Frame; f.Mode == FrameGroups || f.offsetRange() {
			ev.groupFrame(f, &ev.fs[i], p)
		}
	}
}

// unit returns the output for copy k of entry e with row, at unit ev.u.
func (ev *evaluator) unit(e *wEntry, row types.Row, k int64) wOut {
	o := wOut{key: e.key, k: k}
	funcs := ev.op.spec.Funcs
	vals := ev.op.vals[:0]
	for i := range funcs {
		d, err := ev.value(&funcs[i], &ev.fs[i], row)
		if err != nil && o.err == nil {
			o.err = err
		}
		vals = append(vals, d)
	}
	ev.op.vals = vals
	if o.err != nil {
		return o
	}
	out := ev.op.slab.row(len(row) + len(vals))
	copy(out, row)
	copy(out[len(row):], vals)
	o.row = out
	return o
}

func (ev *evaluator) value(f *WindowFunc, fs *funcState, row types.Row) (types.Datum, *pgerr.Error) {
	switch f.Kind {
	case RowNumber:
		return types.NewInt8(ev.u + 1), nil
	case Rank:
		return types.NewInt8(ev.gStart + 1), nil
	case DenseRank:
		return types.NewInt8(ev.dense), nil
	case PercentRank:
		if ev.total <= 1 {
			return types.NewFloat8(0), nil
		}
		return types.NewFloat8(float64(ev.gStart) / float64(ev.total-1)), nil
	case CumeDist:
		return types.NewFloat8(float64(ev.gEnd+1) / float64(ev.total)), nil
	case Ntile:
		n := f.N
		if f.VarN {
			first, _ := ev.rowAt(fs, 0)
			d := first[f.NCol]
			if d.IsNull() {
				return types.Null, nil
			}
			if n = d.Int(); n < 1 {
				return types.Null, pgerr.New(pgerr.InvalidArgumentForNtile, "argument of ntile must be greater than zero")
			}
		}
		return types.NewInt4(int32(ntile(ev.u, ev.total, n))), nil
	case Lag, Lead:
		off := f.N
		if f.VarN {
			d := row[f.NCol]
			if d.IsNull() {
				return types.Null, nil
			}
			off = d.Int()
		}
		if f.Kind == Lead {
			off = -off
		}
		if r, ok := ev.rowAt(fs, ev.u-off); ok {
			return r[f.Col], nil
		}
		if f.Default != nil {
			d, err := f.Default(row)
			if err != nil {
				return types.Null, dataError(err)
			}
			return d, nil
		}
		return types.Null, nil
	}
	if fs.rerr != nil {
		return types.Null, fs.rerr
	}
	fr := f.frame()
	a, b := ev.bounds(fr, fs)
	switch f.Kind {
	case FirstValue, LastValue, NthValue:
		var i int64
		if f.Kind == NthValue {
			n := f.N
			if f.VarN {
				d := row[f.NCol]
				if d.IsNull() {
					return types.Null, nil
				}
				if n = d.Int(); n < 1 {
					return types.Null, pgerr.New(pgerr.InvalidArgumentForNthValue, "argument of nth_value must be greater than zero")
				}
			}
			i = n - 1
		}
		at, ok := ev.framePosition(fr, a, b, i, f.Kind == LastValue)
		if !ok {
			return types.Null, nil
		}
		r, _ := ev.rowAt(fs, at)
		return r[f.Col], nil
	}
	ev.slide(f, fs, a, b)
	if fr.Exclude != ExcludeNoOthers {
		return ev.withoutExcluded(fr, fs, a, b)
	}
	return ev.frameResult(fs)
}

// rowAt returns the row at unit u through the function's cursor, which
// moves forward as u does.
func (ev *evaluator) rowAt(fs *funcState, u int64) (types.Row, bool) {
	if u < 0 || u >= ev.total {
		return nil, false
	}
	if !fs.curSet {
		fs.cur, fs.curSet = ev.s.cursor(u), true
	} else {
		ev.s.moveTo(&fs.cur, u)
	}
	return ev.s.row(fs.cur.p), true
}

// bounds returns the frame [a, b) of the current unit.
func (ev *evaluator) bounds(fr *Frame, fs *funcState) (int64, int64) {
	var a, b int64
	if fr.Mode == FrameGroups || fr.offsetRange() {
		return fs.ra, fs.rb
	}
	if fr.Mode == FrameRange {
		a, b = 0, ev.total
		if fr.Start.Kind == CurrentRow {
			a = ev.gStart
		}
		if fr.End.Kind == CurrentRow {
			b = ev.gEnd + 1
		}
		return a, b
	}
	a = clamp(ev.u+boundOffset(fr.Start), 0, ev.total)
	b = clamp(ev.u+boundOffset(fr.End)+1, 0, ev.total)
	return a, max(a, b)
}

func clamp(v, lo, hi int64) int64 { return min(max(v, lo), hi) }

// slide moves the aggregated frame to [a, b): both ends only move forward
// along a range. A frame that jumps past the current one starts afresh.
func (ev *evaluator) slide(f *WindowFunc, fs *funcState, a, b int64) {
	if fs.st == nil || a >= fs.b {
		fs.st = f.Agg.NewState()
		clear(fs.errs)
		fs.errs = fs.errs[:0]
		fs.a, fs.b = a, a
		fs.lo = ev.s.cursor(a)
		fs.hi = fs.lo
	}
	for fs.b < b {
		row, n := ev.s.take(&fs.hi, b-fs.b)
		ev.feed(fs, row, n)
		fs.b += n
	}
	for fs.a < a {
		row, n := ev.s.take(&fs.lo, a-fs.a)
		ev.feed(fs, row, -n)
		fs.a += n
	}
}

// feed updates the frame's aggregate; a row the aggregate fails on is
// counted among the frame's errors until it leaves the frame.
func (ev *evaluator) feed(fs *funcState, row types.Row, n int64) {
	err := fs.st.Update(row, n)
	if err == nil {
		return
	}
	pe := dataError(err)
	for i := range fs.errs {
		if compareErrors(fs.errs[i].Err, pe) == 0 {
			fs.errs[i].Diff += n
			if fs.errs[i].Diff == 0 {
				fs.errs = append(fs.errs[:i], fs.errs[i+1:]...)
			}
			return
		}
	}
	fs.errs = append(fs.errs, ErrorUpdate{Err: pe, Diff: n})
	fs.errs = ConsolidateErrors(fs.errs)
}

// ntile returns the bucket (1-based) of unit u among total units split
// into n buckets, the first total%n of them one larger, as PostgreSQL
// does.
func ntile(u, total, n int64) int64 {
	if n <= 0 {
		return 0
	}
	q, r := total/n, total%n
	if big := r * (q + 1); u < big {
		return u/(q+1) + 1
	} else if q > 0 {
		return r + (u-big)/q + 1
	}
	return u + 1
}
