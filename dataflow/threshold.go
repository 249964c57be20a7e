package dataflow

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/streamdb/streamdb/sql/types"
)

// Threshold returns, for every distinct row (equal under types.Compare),
// that row with multiplicity f(lc, rc), where lc and rc are its counts in l
// and r. This is the set algebra of SQL:
//
//	INTERSECT ALL  min(lc, rc)         INTERSECT  1 if lc > 0 && rc > 0
//	EXCEPT ALL     max(lc − rc, 0)     EXCEPT     1 if lc > 0 && rc == 0
//
// f(0, 0) must be 0. Counts are negative only if an input is not a valid
// collection.
//
// State: each distinct row of either input, encoded, with its two counts,
// in a hash map on the row's memcomparable encoding. Per tick, each row
// the deltas touch emits f(new counts) − f(old counts) when non-zero; the
// emitted row is the representative first stored, so retractions match
// earlier insertions exactly.
//
//	l:      +(1) +(1) +(2)   -(2)
//	r:      +(1)             +(2)
//	f:      EXCEPT ALL
//	output: +(1) +(2)        -(2)
func (g *Graph) Threshold(l, r Node, f func(lc, rc int64) int64) Node {
	out := new(stream)
	op := &thresholdOp{g: g, l: g.input(l), r: g.input(r), out: out, f: f, rows: make(map[string]*counted)}
	return g.add(op, out)
}

type thresholdOp struct {
	g       *Graph
	l, r    *stream // r is nil for Distinct
	out     *stream
	f       func(lc, rc int64) int64
	name    string
	rows    map[string]*counted
	bytes   int64
	touched []*counted
	kbuf    []byte
	vbuf    []byte
}

// counted is one distinct row: its key encoding (the map key), value
// encoding, and counts in both inputs; old* and tick remember the counts
// at the start of the tick in which the row was last touched.
type counted struct {
	key, val   string
	lc, rc     int64
	oldL, oldR int64
	tick       uint64
}

const sizeCounted = int64(unsafe.Sizeof(counted{})) + sizeString + sizePointer + sizeMapEntry

var _ operator = (*thresholdOp)(nil)

func (op *thresholdOp) Name() string {
	if op.name != "" {
		return op.name
	}
	return "Threshold"
}

func (op *thresholdOp) Step(context.Context) error {
	if op.r == nil {
		op.out.passErrors(op.l)
	} else {
		op.out.passErrors(op.l, op.r)
		op.count(op.r.delta, true)
	}
	op.count(op.l.delta, false)
	for _, c := range op.touched {
		d := op.f(c.lc, c.rc) - op.f(c.oldL, c.oldR)
		if d != 0 {
			row, err := decodeRowValue(stored(c.val), nil)
			if err != nil {
				return fmt.Errorf("corrupt stored row: %w", err)
			}
			op.out.delta = append(op.out.delta, Update{Row: row, Diff: d})
		}
		if c.lc == 0 && c.rc == 0 {
			delete(op.rows, c.key)
			op.bytes -= sizeCounted + int64(len(c.key)+len(c.val))
		}
	}
	clear(op.touched)
	op.touched = op.touched[:0]
	return nil
}

// count applies one input's delta to the per-row counts.
func (op *thresholdOp) count(delta Batch, right bool) {
	for _, u := range delta {
		op.kbuf = types.AppendKeyRow(op.kbuf[:0], u.Row)
		c := op.rows[string(op.kbuf)]
		if c == nil {
			op.vbuf = appendRowValue(op.vbuf[:0], u.Row)
			c = &counted{key: string(op.kbuf), val: string(op.vbuf)}
			op.rows[c.key] = c
			op.bytes += sizeCounted + int64(len(c.key)+len(c.val))
		}
		if c.tick != op.g.tick {
			c.tick = op.g.tick
			c.oldL, c.oldR = c.lc, c.rc
			op.touched = append(op.touched, c)
		}
		if right {
			c.rc += u.Diff
		} else {
			c.lc += u.Diff
		}
	}
}

func (op *thresholdOp) StateBytes() int64 { return op.bytes }
