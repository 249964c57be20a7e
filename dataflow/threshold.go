package dataflow

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
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
// in a table keyed by the row's memcomparable encoding. Per tick, each row
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
	op := &thresholdOp{g: g, l: g.input(l), r: g.input(r), out: out, f: f, rows: newTable(maphash.MakeSeed())}
	return g.add(op, out)
}

type thresholdOp struct {
	g    *Graph
	l, r *stream // r is nil for Distinct
	out  *stream
	f    func(lc, rc int64) int64
	name string
	// rows maps a row's key encoding to its counters (see counters) and
	// its value encoding.
	rows    *table
	touched keyList
	keys    keyBatch
	vbuf    []byte
	slab    rowSlab
}

// counters is the fixed head of a thresholdOp table value: the counts in
// both inputs, the counts at the start of the tick that last touched the
// row, and that tick. The row's value encoding follows.
type counters struct {
	lc, rc, oldL, oldR int64
	tick               uint64
}

const countersLen = 40

func readCounters(v []byte) counters {
	return counters{
		lc: int64(binary.LittleEndian.Uint64(v)), rc: int64(binary.LittleEndian.Uint64(v[8:])),
		oldL: int64(binary.LittleEndian.Uint64(v[16:])), oldR: int64(binary.LittleEndian.Uint64(v[24:])),
		tick: binary.LittleEndian.Uint64(v[32:]),
	}
}

func (c counters) put(v []byte) {
	binary.LittleEndian.PutUint64(v, uint64(c.lc))
	binary.LittleEndian.PutUint64(v[8:], uint64(c.rc))
	binary.LittleEndian.PutUint64(v[16:], uint64(c.oldL))
	binary.LittleEndian.PutUint64(v[24:], uint64(c.oldR))
	binary.LittleEndian.PutUint64(v[32:], c.tick)
}

var _ operator = (*thresholdOp)(nil)

func (op *thresholdOp) Name() string {
	if op.name != "" {
		return op.name
	}
	return "Threshold"
}

func (op *thresholdOp) Step(ctx context.Context) error {
	if op.r != nil {
		if err := op.absorb(ctx, 1); err != nil {
			return err
		}
	}
	if err := op.absorb(ctx, 0); err != nil {
		return err
	}
	return op.finish(ctx)
}

// absorb counts a delta, or a final step's chunk, of one side. Counts
// add up in any order, so chunks are counted as they come.
func (op *thresholdOp) absorb(_ context.Context, slot int) error {
	in := op.l
	if slot == 1 {
		in = op.r
	}
	op.out.passErrors(in)
	op.count(in.delta, slot == 1)
	return nil
}

// finish emits the change of every row whose counts the tick touched.
func (op *thresholdOp) finish(ctx context.Context) error {
	defer op.touched.reset()
	for t := range op.touched.len() {
		key := op.touched.get(t)
		i := op.rows.find(key, op.rows.hash(key))
		v := op.rows.value(i)
		c := readCounters(v)
		if d := op.f(c.lc, c.rc) - op.f(c.oldL, c.oldR); d != 0 {
			row, err := op.slab.decode(v[countersLen:])
			if err != nil {
				return fmt.Errorf("corrupt stored row: %w", err)
			}
			op.out.delta = append(op.out.delta, Update{Row: row, Diff: d})
		}
		if c.lc == 0 && c.rc == 0 {
			op.rows.delete(i)
		}
		if err := op.out.flushIfFull(ctx); err != nil {
			return err
		}
	}
	return nil
}

// count applies one input's delta to the per-row counts.
func (op *thresholdOp) count(delta Batch, right bool) {
	for start := 0; start < len(delta); start += keyBatchSize {
		chunk := delta[start:min(start+keyBatchSize, len(delta))]
		op.keys.load(chunk, wholeRow, op.rows)
		op.keys.touch(op.rows)
		for j, u := range chunk {
			key, h, _ := op.keys.get(j)
			i := op.rows.find(key, h)
			if i < 0 {
				op.vbuf = appendRowValue(append(op.vbuf[:0], make([]byte, countersLen)...), u.Row)
				i = op.rows.insert(key, h, op.vbuf)
			}
			v := op.rows.value(i)
			c := readCounters(v)
			if c.tick != op.g.tick {
				c.oldL, c.oldR, c.tick = c.lc, c.rc, op.g.tick
				op.touched.add(key)
			}
			if right {
				c.rc += u.Diff
			} else {
				c.lc += u.Diff
			}
			c.put(v)
		}
	}
}

func (op *thresholdOp) StateBytes() int64 { return op.rows.size() }
