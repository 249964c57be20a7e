package dataflow

import (
	"container/heap"
	"context"
	"slices"
	"sort"

	"github.com/streamdb/streamdb/types"
)

// SessionSpec describes session windows: per partition (Key, nil for
// one partition), the rows whose event times (column TS, a timestamp or
// timestamptz) follow each other by less than Gap microseconds form one
// session, from its first row's time to its last row's time plus Gap.
// Watermark, when set, is the watermark of TS: sessions it has passed
// are closed, and their rows forgotten.
type SessionSpec struct {
	Key       func(types.Row) types.Row
	TS        int
	Gap       int64
	Watermark Watermark
}

// Session appends to each row of src the bounds of its session window,
// window_start and window_end, of the type of the time column (Flink's
// and RisingWave's SESSION: two events belong to one session when the
// later comes less than the gap after the earlier). A row whose time is
// NULL belongs to no session and is dropped.
//
// A row arriving out of order can merge two sessions, and a deletion can
// split one: the rows of every session a change reaches are re-emitted
// with their new bounds (−old +new), and the rest cost nothing. State is
// each partition's rows in time order; with a watermark, a session whose
// end the watermark has reached is closed (no row still to come can join
// it, and its rows can no longer be deleted) and its rows are forgotten.
//
//	gap 10
//	input:  +(u, 0) +(u, 30)             +(u, 15)
//	output: +(u,0, 0,10) +(u,30, 30,40)  -(u,0, 0,10) -(u,30, 30,40)
//	                                     +(u,0, 0,40) +(u,15, 0,40) +(u,30, 0,40)
func (g *Graph) Session(src Node, spec SessionSpec) Node {
	out := new(stream)
	op := &sessionOp{in: g.input(src), out: out, spec: spec, parts: map[string]*sessionPart{}}
	return g.add(op, out)
}

type sessionOp struct {
	in, out *stream
	// staged keeps a final step's chunks for one Step at its finish.
	staged heldInput
	spec   SessionSpec
	// parts holds each partition by the key encoding of its key.
	parts map[string]*sessionPart
	// ends orders partitions by the end of a session computed for them,
	// for closing sessions behind the watermark.
	ends    sessionEndHeap
	touched []*sessionPart
	kbuf    []byte
	slab    rowSlab
	bytes   int64
	tick    uint64
}

// sessionPart is one partition: its rows in time order, and the tick's
// changes to it.
type sessionPart struct {
	kenc    string
	rows    []*sessionRow
	changes Batch
	tick    uint64
}

// sessionRow is one distinct row of a partition with its multiplicity,
// and the bounds of its session as last emitted (n rows of them).
type sessionRow struct {
	ts         int64
	kenc       string
	row        types.Row
	n          int64
	start, end int64
	emitted    int64
}

var _ operator = (*sessionOp)(nil)

func (op *sessionOp) Name() string { return "Session" }

func (op *sessionOp) Step(context.Context) error {
	op.out.passErrors(op.in)
	op.tick++
	for _, u := range op.in.delta {
		t := u.Row[op.spec.TS]
		if t.IsNull() {
			continue
		}
		var key types.Row
		if op.spec.Key != nil {
			key = op.spec.Key(u.Row)
		}
		op.kbuf = types.AppendKeyRow(op.kbuf[:0], key)
		p, ok := op.parts[string(op.kbuf)]
		if !ok {
			p = &sessionPart{kenc: string(op.kbuf)}
			op.parts[p.kenc] = p
			op.bytes += sizeSessionPart + int64(len(p.kenc))
		}
		if p.tick != op.tick {
			p.tick = op.tick
			op.touched = append(op.touched, p)
		}
		p.changes = append(p.changes, u)
	}
	for _, p := range op.touched {
		op.apply(p)
		clear(p.changes)
		p.changes = p.changes[:0]
		if len(p.rows) == 0 {
			delete(op.parts, p.kenc)
			op.bytes -= sizeSessionPart + int64(len(p.kenc))
		}
	}
	clear(op.touched)
	op.touched = op.touched[:0]
	op.close()
	return nil
}

// apply applies a partition's changes: it finds the region of rows whose
// sessions the changes can reach (every session within a gap of a
// changed time), applies them, recomputes the sessions of the region and
// emits the rows whose session or multiplicity changed. The sessions
// outside the region stay as they are: a gap of at least Gap separated
// them from the region and still does.
func (op *sessionOp) apply(p *sessionPart) {
	gap := op.spec.Gap
	lo, hi := int64(MaxTime), int64(MinTime)
	for _, u := range p.changes {
		t := u.Row[op.spec.TS].Int()
		lo, hi = min(lo, t), max(hi, t)
	}
	a, b := op.region(p.rows, lo, hi)
	from, to := lo, hi
	if a < b {
		from, to = min(from, p.rows[a].ts), max(to, p.rows[b-1].ts)
	}
	// emitted marks the rows of the region with the count emitted with
	// their bounds; new rows have none.
	for _, r := range p.rows[a:b] {
		r.emitted = r.n
	}
	for _, u := range p.changes {
		op.change(p, u)
	}
	a = sort.Search(len(p.rows), func(i int) bool { return p.rows[i].ts >= from })
	b = sort.Search(len(p.rows), func(i int) bool { return p.rows[i].ts > to })
	kept := p.rows[a:a]
	for _, r := range p.rows[a:b] {
		if r.n != 0 {
			kept = append(kept, r)
			continue
		}
		op.emit(r, -r.emitted)
		op.bytes -= sizeSessionRow + int64(len(r.kenc)) + rowBytes(r.row)
	}
	n := len(p.rows)
	p.rows = append(p.rows[:a+len(kept)], p.rows[b:]...)
	clear(p.rows[len(p.rows):n])
	region := kept
	for i := 0; i < len(region); {
		j := i + 1
		for j < len(region) && region[j].ts-region[j-1].ts < gap {
			j++
		}
		start, end := region[i].ts, region[j-1].ts+gap
		for _, r := range region[i:j] {
			if r.emitted != 0 && (r.start != start || r.end != end || r.emitted != r.n) {
				op.emit(r, -r.emitted)
				r.emitted = 0
			}
			r.start, r.end = start, end
			if r.emitted == 0 {
				op.emit(r, r.n)
			}
			r.emitted = 0
		}
		if op.spec.Watermark != nil {
			heap.Push(&op.ends, sessionEnd{end: end, part: p})
		}
		i = j
	}
}

// region returns the rows [a, b) of the sessions a change at times lo
// to hi can reach: every row less than a gap away from them, extended to
// the bounds of its session.
func (op *sessionOp) region(rows []*sessionRow, lo, hi int64) (int, int) {
	gap := op.spec.Gap
	a := sort.Search(len(rows), func(i int) bool { return rows[i].ts > lo-gap })
	for a > 0 && a < len(rows) && rows[a].ts-rows[a-1].ts < gap {
		a--
	}
	b := sort.Search(len(rows), func(i int) bool { return rows[i].ts >= hi+gap })
	for b > 0 && b < len(rows) && rows[b].ts-rows[b-1].ts < gap {
		b++
	}
	return a, max(a, b)
}

// change applies one update to a partition's rows. A row whose count
// drops to zero stays until apply has retracted what it emitted.
func (op *sessionOp) change(p *sessionPart, u Update) {
	t := u.Row[op.spec.TS].Int()
	op.kbuf = types.AppendKeyRow(op.kbuf[:0], u.Row)
	i := sort.Search(len(p.rows), func(i int) bool {
		r := p.rows[i]
		return r.ts > t || r.ts == t && r.kenc >= string(op.kbuf)
	})
	if i < len(p.rows) && p.rows[i].ts == t && p.rows[i].kenc == string(op.kbuf) {
		p.rows[i].n += u.Diff
		return
	}
	r := &sessionRow{ts: t, kenc: string(op.kbuf), row: u.Row, n: u.Diff}
	p.rows = slices.Insert(p.rows, i, r)
	op.bytes += sizeSessionRow + int64(len(r.kenc)) + rowBytes(r.row)
}

// emit outputs a row with its session's bounds, n times.
func (op *sessionOp) emit(r *sessionRow, n int64) {
	if n == 0 {
		return
	}
	out := op.slab.row(len(r.row) + 2)
	copy(out, r.row)
	kind := r.row[op.spec.TS].Kind()
	out[len(r.row)] = timeDatum(kind, r.start)
	out[len(r.row)+1] = timeDatum(kind, r.end)
	op.out.delta = append(op.out.delta, Update{Row: out, Diff: n})
}

// timeDatum returns a timestamp of the family of the time column.
func timeDatum(kind types.Family, us int64) types.Datum {
	if kind == types.TimestampTZ {
		return types.NewTimestampTZ(us)
	}
	return types.NewTimestamp(us)
}

// close forgets the sessions whose end the watermark has reached: a row
// still to come has a time at or after the watermark, too late to join
// them, and a row before the watermark cannot be deleted.
func (op *sessionOp) close() {
	if op.spec.Watermark == nil {
		return
	}
	w, ok := op.spec.Watermark()
	if !ok || w.IsNull() {
		return
	}
	wt := w.Int()
	for len(op.ends) > 0 && op.ends[0].end <= wt {
		p := heap.Pop(&op.ends).(sessionEnd).part
		n := 0
		for n < len(p.rows) {
			j := n + 1
			for j < len(p.rows) && p.rows[j].ts-p.rows[j-1].ts < op.spec.Gap {
				j++
			}
			if p.rows[j-1].ts+op.spec.Gap > wt {
				break
			}
			n = j
		}
		for _, r := range p.rows[:n] {
			op.bytes -= sizeSessionRow + int64(len(r.kenc)) + rowBytes(r.row)
		}
		p.rows = slices.Delete(p.rows, 0, n)
		if len(p.rows) == 0 && op.parts[p.kenc] == p {
			delete(op.parts, p.kenc)
			op.bytes -= sizeSessionPart + int64(len(p.kenc))
		}
	}
}

func (op *sessionOp) StateBytes() int64 {
	return op.bytes + int64(cap(op.ends))*24
}

// Sizes of a partition and a row beside their strings and rows.
const (
	sizeSessionPart = 48 + 16 + 64
	sizeSessionRow  = 72 + 8
)

// sessionEnd is a session's end in the heap of sessionOp.ends.
type sessionEnd struct {
	end  int64
	part *sessionPart
}

type sessionEndHeap []sessionEnd

func (h sessionEndHeap) Len() int           { return len(h) }
func (h sessionEndHeap) Less(i, j int) bool { return h[i].end < h[j].end }
func (h sessionEndHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *sessionEndHeap) Push(x any)        { *h = append(*h, x.(sessionEnd)) }
func (h *sessionEndHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = sessionEnd{}
	*h = old[:len(old)-1]
	return x
}

func (op *sessionOp) absorb(context.Context, int) error {
	op.staged.absorb(op.in)
	return nil
}

func (op *sessionOp) finish(ctx context.Context) error {
	return op.staged.finish(ctx, op.in, op.Step)
}
