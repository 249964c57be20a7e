package dataflow

import (
	"context"
	"math"
	"slices"
	"strings"
	"unsafe"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// WindowSpec describes window functions over partitions of a collection.
// Partition returns a row's PARTITION BY key (nil: one partition); it may
// return a slice of the row. SortKey appends the row's ORDER BY key in a
// memcomparable encoding (ColumnSortKey builds one); nil means no ORDER
// BY, every row of a partition being a peer of every other. Rows that tie
// are ordered by their key encoding, so that ROW_NUMBER and ROWS frames
// are deterministic. Each output row is the input row followed by one
// column per function.
type WindowSpec struct {
	Partition func(types.Row) types.Row
	SortKey   func(dst []byte, row types.Row) []byte
	Funcs     []WindowFunc
}

// WindowKind names a window function.
type WindowKind uint8

// The window functions. Values are bigint for RowNumber, Rank and
// DenseRank, integer for Ntile, double precision for PercentRank and
// CumeDist, the argument column's value for Lag, Lead, FirstValue,
// LastValue and NthValue, and the aggregate's result for WindowAgg.
const (
	RowNumber WindowKind = iota + 1
	Rank
	DenseRank
	PercentRank
	CumeDist
	Ntile      // N buckets
	Lag        // Col of the row N rows before, else Default
	Lead       // Col of the row N rows after, else Default
	FirstValue // Col of the frame's first row
	LastValue  // Col of the frame's last row
	NthValue   // Col of the frame's N-th row (N ≥ 1)
	WindowAgg  // Agg over the frame
)

// WindowFunc is one window function call. Col is the argument column
// (Lag, Lead, FirstValue, LastValue, NthValue); the planner computes
// argument expressions into columns beforehand. N is the offset of Lag and
// Lead (SQL's default is 1; negative looks the other way), the bucket
// count of Ntile, and the position of NthValue; the planner rejects
// Ntile and NthValue arguments below 1 as PostgreSQL does. With VarN, N
// is read from column NCol instead, as PostgreSQL evaluates a
// non-constant argument: for Lag, Lead and NthValue the current row's, for
// Ntile the partition's first row's; a NULL there makes the result NULL,
// and a value below 1 fails Ntile and NthValue. Default gives Lag's and
// Lead's value when the offset leaves the partition (nil: NULL); it
// receives the current row and is called only then, as PostgreSQL
// evaluates it. Frame applies to FirstValue, LastValue, NthValue and
// WindowAgg; the zero Frame is SQL's default frame.
type WindowFunc struct {
	Kind    WindowKind
	Col     int
	N       int64
	VarN    bool
	NCol    int
	Default func(types.Row) (types.Datum, error)
	Agg     Aggregate
	Frame   Frame
}

// FrameMode is ROWS, RANGE or GROUPS.
type FrameMode uint8

// Frame modes. A RANGE frame's offsets are distances in the value of
// the one ORDER BY column (see FrameBound.InRange), a GROUPS frame's
// counts of peer groups, a ROWS frame's counts of rows.
const (
	FrameRange FrameMode = iota
	FrameRows
	FrameGroups
)

// BoundKind is the kind of a frame bound.
type BoundKind uint8

// Frame bound kinds; Offset applies to Preceding and Following.
const (
	UnboundedPreceding BoundKind = iota + 1
	Preceding
	CurrentRow
	Following
	UnboundedFollowing
)

// FrameBound is a frame's start or end. Offset counts rows (ROWS) or
// peer groups (GROUPS). A RANGE bound with an offset has InRange
// instead: PostgreSQL's in_range support function with the offset, the
// bound's direction and the sort order applied, reporting whether the
// order value val lies on the frame's side of this bound for a current
// row of value cur (at or after the start, at or before the end). Both
// values are non-NULL; NULLs are the peers of each other and of no other
// value, as in PostgreSQL. Its error (an invalid offset) becomes the
// output of each row it is asked for.
type FrameBound struct {
	Kind    BoundKind
	Offset  int64
	InRange func(val, cur types.Datum) (bool, error)
}

// Exclusion is a frame's EXCLUDE clause.
type Exclusion uint8

// Frame exclusions: the rows of the frame that a function does not see.
const (
	ExcludeNoOthers   Exclusion = iota
	ExcludeCurrentRow           // the current row
	ExcludeGroup                // the current row's peer group
	ExcludeTies                 // its peers but not the current row
)

// Frame is a window frame. The zero Frame is SQL's default, RANGE BETWEEN
// UNBOUNDED PRECEDING AND CURRENT ROW (without ORDER BY: the whole
// partition). OrderCol and NullsFirst describe the ORDER BY column of a
// RANGE frame with an offset: where its value is, and whether NULLs sort
// before the other values.
type Frame struct {
	Mode       FrameMode
	Start, End FrameBound
	Exclude    Exclusion
	OrderCol   int
	NullsFirst bool
}

// offsetRange reports whether f is a RANGE frame with an offset bound.
func (f *Frame) offsetRange() bool {
	return f.Mode == FrameRange && (f.Start.InRange != nil || f.End.InRange != nil)
}

// Validate reports whether the engine supports the frame, with
// PostgreSQL's errors for frames PostgreSQL rejects too.
func (f Frame) Validate() error {
	if f.Start.Kind == 0 && f.End.Kind == 0 {
		return nil
	}
	switch {
	case f.Start.Kind == UnboundedFollowing:
		return pgerr.New(pgerr.WindowingError, "frame start cannot be UNBOUNDED FOLLOWING")
	case f.End.Kind == UnboundedPreceding:
		return pgerr.New(pgerr.WindowingError, "frame end cannot be UNBOUNDED PRECEDING")
	case f.Start.Kind == CurrentRow && f.End.Kind == Preceding:
		return pgerr.New(pgerr.WindowingError, "frame starting from current row cannot have preceding rows")
	case f.Start.Kind == Following && (f.End.Kind == Preceding || f.End.Kind == CurrentRow):
		return pgerr.New(pgerr.WindowingError, "frame starting from following row cannot have preceding rows")
	case f.Start.Kind == 0 || f.End.Kind == 0:
		return pgerr.New(pgerr.WindowingError, "frame bound missing")
	}
	for i, b := range []FrameBound{f.Start, f.End} {
		if b.Kind != Preceding && b.Kind != Following {
			continue
		}
		if f.Mode == FrameRange {
			if b.InRange == nil {
				return pgerr.New(pgerr.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported")
			}
			continue
		}
		if b.Offset < 0 {
			which := [2]string{"starting", "ending"}[i]
			return pgerr.New(invalidPrecedingOrFollowingSize, "frame %s offset must not be negative", which)
		}
	}
	return nil
}

// invalidPrecedingOrFollowingSize is SQLSTATE 22013, which pgerr does
// not name yet.
const invalidPrecedingOrFollowingSize pgerr.Code = "22013"

// Window computes window functions incrementally.
//
// State: each partition's rows in window order (decoded, since outputs
// are built from them), in a chunked sequence counted by units and by peer
// groups, so that a row's position, rank and dense rank cost O(log n).
//
// Per tick, for each partition the delta touches, the operator works out
// which rows' values can change: for each changed row, the rows whose
// function values depend on it — all later rows for ROW_NUMBER, RANK,
// DENSE_RANK and running frames (UNBOUNDED PRECEDING), the whole
// partition for PERCENT_RANK, CUME_DIST and NTILE (they depend on its
// size), N rows around it for LAG and LEAD, the rows whose ROWS frame
// covers it for bounded frames, peer groups for RANGE frames, the rows
// whose values lie within a RANGE frame's offsets of its value and the
// peer groups within a GROUPS frame's offsets of its own. It
// evaluates those rows before and after applying the changes and emits the
// outputs that differ. A tick costs O(c·log n + A + F) per touched
// partition, for c changed rows, A the rows in the affected ranges (those
// whose values can change) and F the size of the frames the evaluation of
// each range starts from: a bounded frame costs its width, a frame
// starting at UNBOUNDED PRECEDING the rows before the range, since the
// engine's aggregates can be updated but not copied. A change therefore
// never recomputes a partition unless its functions' values all depend on
// it (NTILE, PERCENT_RANK, CUME_DIST, frames unbounded on both sides).
//
//	input:  +(a, 1) +(a, 3)        +(a, 2)
//	spec:   PARTITION BY #0 ORDER BY #1, row_number()
//	output: +(a,1,1) +(a,3,2)      -(a,3,2) +(a,2,2) +(a,3,3)
//
// Aggregate errors over a frame make the affected rows' outputs errors,
// which cancel as usual when the failing row leaves the frame.
func (g *Graph) Window(src Node, spec WindowSpec) Node {
	for _, f := range spec.Funcs {
		if err := f.Frame.Validate(); err != nil {
			panic("dataflow: Window: " + err.Error())
		}
	}
	out := new(stream)
	op := &windowOp{g: g, in: g.input(src), out: out, spec: spec, index: newRowIndex()}
	op.reach = windowReach(spec)
	for _, f := range spec.Funcs {
		op.groupCounts = op.groupCounts || f.Kind == DenseRank || f.Frame.Mode == FrameGroups
	}
	return g.add(op, out)
}

type windowOp struct {
	g       *Graph
	in, out *stream
	spec    WindowSpec
	reach   reach
	// groupCounts is set when a function needs peer-group counts
	// (DENSE_RANK, GROUPS frames).
	groupCounts bool
	index       *rowIndex
	parts       []*wPart // by index position
	touched     []*wPart
	changes     []wChange
	sorted      []wChange
	olds        []wOut
	news        []wOut
	kbuf        []byte
	slab        rowSlab
	vals        []types.Datum
	fs          []funcState // the evaluator's, see evaluator.init
	// bytes is the sum of the partitions' sizes, as of their last step,
	// and changeBytes estimates what the changes hold beside themselves
	// until the tick's finish.
	bytes       int64
	changeBytes int64
}

type wPart struct {
	s    seq
	pos  int32
	tick uint64
	idx  int
	// bytes is the partition's size counted in windowOp.bytes.
	bytes      int64
	changeSpan // the partition's changes in windowOp.sorted
}

// wChange is a change of a row of a partition, with the row's window key.
type wChange struct {
	part int
	key  string
	sk   int
	row  types.Row
	diff int64
}

// wOut is an output of the evaluation: the row (or error) for copy k of
// the entry with key.
type wOut struct {
	key string
	k   int64
	row types.Row
	err *pgerr.Error
}

var _ operator = (*windowOp)(nil)

func (op *windowOp) Name() string { return "Window" }

func (op *windowOp) Step(ctx context.Context) error {
	if err := op.absorb(ctx, 0); err != nil {
		return err
	}
	return op.finish(ctx)
}

// absorb records the changes of a delta, or of a final step's chunk, by
// partition, each with its window key.
func (op *windowOp) absorb(context.Context, int) error {
	op.out.passErrors(op.in)
	for _, u := range op.in.delta {
		if u.Diff == 0 {
			continue
		}
		part := op.lookup(u.Row)
		if part.tick != op.g.tick {
			part.tick = op.g.tick
			part.idx = len(op.touched)
			part.start, part.end = 0, 0
			op.touched = append(op.touched, part)
		}
		var sk int
		op.kbuf = op.kbuf[:0]
		if op.spec.SortKey != nil {
			op.kbuf = op.spec.SortKey(op.kbuf, u.Row)
			sk = len(op.kbuf)
		}
		op.kbuf = types.AppendKeyRow(op.kbuf, u.Row)
		op.changes = append(op.changes, wChange{part: part.idx, key: string(op.kbuf), sk: sk, row: u.Row, diff: u.Diff})
		// The change keeps its key and, in a final step, the row its
		// input no longer holds; the changes themselves count by their
		// capacity (see StateBytes).
		op.changeBytes += int64(len(op.kbuf)) + int64(len(u.Row))*sizeDatum
	}
	return nil
}

// finish steps every touched partition on its changes, flushing the
// output between partitions in a final step.
func (op *windowOp) finish(ctx context.Context) error {
	op.groupChanges()
	for _, part := range op.touched {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := op.stepPartition(ctx, part, op.sorted[part.start:part.end]); err != nil {
			return err
		}
		if part.s.total == 0 && len(part.s.chunks) == 0 {
			op.index.remove(part.pos)
			op.parts[part.pos] = nil
			op.bytes -= part.bytes
		} else {
			size := part.s.size()
			op.bytes += size - part.bytes
			part.bytes = size
		}
		if err := op.out.flushIfFull(ctx); err != nil {
			return err
		}
	}
	clear(op.touched)
	op.touched = op.touched[:0]
	clear(op.changes)
	op.changes = op.changes[:0]
	clear(op.sorted)
	op.sorted = op.sorted[:0]
	op.changeBytes = 0
	return nil
}

func (op *windowOp) lookup(row types.Row) *wPart {
	var key types.Row
	if op.spec.Partition != nil {
		key = op.spec.Partition(row)
	}
	return groupOf(op.index, &op.parts, key, func(pos int32) *wPart {
		part := &wPart{pos: pos}
		part.s.trackStarts = op.groupCounts
		return part
	})
}

// groupChanges sorts the changes by partition (counting sort), then each
// partition's changes by key, merging changes of the same row.
func (op *windowOp) groupChanges() {
	op.sorted = bucketChanges(op.changes, func(c *wChange) int { return c.part }, op.touched, op.sorted)
	for _, part := range op.touched {
		cs := op.sorted[part.start:part.end]
		slices.SortStableFunc(cs, func(a, b wChange) int { return strings.Compare(a.key, b.key) })
		n := 0
		for i := 0; i < len(cs); {
			j, d := i+1, cs[i].diff
			for j < len(cs) && cs[j].key == cs[i].key {
				d += cs[j].diff
				j++
			}
			if d != 0 {
				cs[n] = cs[i]
				cs[n].diff = d
				n++
			}
			i = j
		}
		part.end = part.start + n
	}
}

// stepPartition evaluates the affected rows of a partition before and
// after its changes and emits the difference. It goes range by range:
// the changes' ranges (see affected) are merged while they overlap, and
// each merged range is evaluated, given its changes and evaluated again
// as soon as the next change's range is found not to overlap it, so that
// the range's entries are still in the caches for the second pass and
// the changes. That the later ranges are computed and evaluated on a
// partition whose earlier ranges have already changed does not matter:
// a range's rows depend on no change outside it, a change's reach in the
// old state never extends before the start of the range before it
// (ranges start in key order), and the changes before a range shift its
// positions all alike; functions that depend on absolute positions or
// on the partition's size reach to its end, so that all their changes
// make one range.
//
// A final step's partition may hold all of a query's rows (row_number()
// OVER () over a billion rows): ctx is checked every cancelCheckRows
// changes and units evaluated, so that a canceled query stops within
// its one partition. The partition is then left half changed, which
// only a failing step does.
func (op *windowOp) stepPartition(ctx context.Context, part *wPart, changes []wChange) error {
	if len(changes) == 0 {
		return nil
	}
	s := &part.s
	cur := op.affected(s, &changes[0])
	first := 0
	for i := 1; i < len(changes); i++ {
		// The range of change i is found before the current range
		// changes: it is the old state's.
		sp := op.affected(s, &changes[i])
		if cur.merge(sp) {
			continue
		}
		if err := op.stepRange(ctx, s, cur, changes[first:i]); err != nil {
			return err
		}
		cur, first = sp, i
	}
	return op.stepRange(ctx, s, cur, changes[first:])
}

// stepRange evaluates the range sp, applies its changes, evaluates it
// again and emits the difference.
func (op *windowOp) stepRange(ctx context.Context, s *seq, sp span, changes []wChange) error {
	var err error
	if op.olds, err = op.eval(ctx, s, sp, op.olds[:0]); err != nil {
		return err
	}
	for i := range changes {
		if i%cancelCheckRows == cancelCheckRows-1 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		c := &changes[i]
		s.add(c.key, c.sk, c.row, c.diff)
	}
	s.fix()
	if op.news, err = op.eval(ctx, s, sp, op.news[:0]); err != nil {
		return err
	}
	if err := op.emitDiff(ctx); err != nil {
		return err
	}
	clear(op.olds)
	clear(op.news)
	return nil
}

// emitDiff emits news − olds, both ordered by (entry key, copy), leaving
// out outputs that did not change. A final step's output is flushed as
// it fills, so that a partition of a billion rows does not pile up.
func (op *windowOp) emitDiff(ctx context.Context) error {
	i, j := 0, 0
	for i < len(op.olds) || j < len(op.news) {
		if err := op.out.flushIfFull(ctx); err != nil {
			return err
		}
		var c int
		switch {
		case j == len(op.news):
			c = -1
		case i == len(op.olds):
			c = 1
		default:
			c = strings.Compare(op.olds[i].key, op.news[j].key)
			if c == 0 {
				c = int(op.olds[i].k - op.news[j].k)
			}
		}
		switch {
		case c < 0:
			op.emit(op.olds[i], -1)
			i++
		case c > 0:
			op.emit(op.news[j], +1)
			j++
		default:
			if !sameOut(op.olds[i], op.news[j]) {
				op.emit(op.olds[i], -1)
				op.emit(op.news[j], +1)
			}
			i++
			j++
		}
	}
	return nil
}

func (op *windowOp) emit(o wOut, diff int64) {
	if o.err != nil {
		op.out.errs = append(op.out.errs, ErrorUpdate{Err: o.err, Diff: diff})
		return
	}
	op.out.delta = append(op.out.delta, Update{Row: o.row, Diff: diff})
	op.out.built(o.row)
}

func sameOut(a, b wOut) bool {
	if a.err != nil || b.err != nil {
		return a.err != nil && b.err != nil && compareErrors(a.err, b.err) == 0
	}
	return sameResults(a.row, nil, b.row, nil) && len(a.row) == len(b.row)
}

func (op *windowOp) StateBytes() int64 {
	return op.index.size() + int64(cap(op.parts))*sizePointer + op.bytes + op.changeBytes +
		int64(cap(op.changes)+cap(op.sorted))*sizeWChange
}

// sizeWChange is the bytes of a wChange beside its key.
const sizeWChange = int64(unsafe.Sizeof(wChange{}))

// unbounded is a reach that extends to the edge of the partition.
const unbounded = math.MaxInt64 / 4
