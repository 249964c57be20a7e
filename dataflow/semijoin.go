package dataflow

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
)

// SemiJoin returns the rows of left whose key appears in right: some right
// row has an equal key (EXISTS, IN). Right multiplicities are ignored: a
// key is present while the total weight of the right rows with that key is
// positive. Left rows with a NULL in their key (leftKey returns false)
// never match.
//
// State: left arranged by key (its rows, encoded) and, for right, only a
// count per key. Per tick, with p(k) the presence of key k,
//
//	Δout(k) = ([p_new(k)] − [p_old(k)]) · L_old(k) + [p_new(k)] · ΔL(k)
//
// so a tick costs its deltas plus the left rows of the keys whose presence
// flipped.
//
//	left:   +(1, a) +(2, b)
//	right:  +(1)              +(2)       -(1)
//	output: +(1, a)           +(2, b)    -(1, a)
func (g *Graph) SemiJoin(left, right Node, leftKey, rightKey KeyFunc) Node {
	return g.semiJoin(left, right, leftKey, rightKey, false)
}

// AntiJoin returns the rows of left whose key does not appear in right
// (NOT EXISTS, and the unmatched side of outer joins); it is SemiJoin's
// complement within left, with the same state and cost. Left rows with a
// NULL in their key match nothing and are therefore always kept: the
// planner adds NOT IN's extra NULL rules itself.
//
//	left:   +(1, a) +(2, b)
//	right:  +(1)              +(2)       -(1)
//	output: +(2, b)           -(2, b)    +(1, a)
func (g *Graph) AntiJoin(left, right Node, leftKey, rightKey KeyFunc) Node {
	return g.semiJoin(left, right, leftKey, rightKey, true)
}

func (g *Graph) semiJoin(left, right Node, leftKey, rightKey KeyFunc, anti bool) Node {
	out := new(stream)
	seed := maphash.MakeSeed()
	op := &semiJoinOp{
		g: g, left: g.input(left), right: g.input(right), out: out,
		leftKey: leftKey, rightKey: rightKey, anti: anti,
		la: newArrangement(seed), rc: newTable(seed), sk: g.stateKeys(),
	}
	op.la.persistAs(op.sk, 0)
	return g.add(op, out)
}

type semiJoinOp struct {
	g                 *Graph
	left, right, out  *stream
	leftKey, rightKey KeyFunc
	anti              bool
	la                *arrangement
	// rc counts the right rows per key: [n][old][tick], where old and
	// tick remember the count at the start of the tick that last touched
	// the key. touched holds the keys touched in this tick.
	rc      *table
	touched keyList
	keys    keyBatch
	vbuf    []byte
	slab    rowSlab
	// held keeps a final step's left chunks until its right side is
	// complete (rightDone).
	held      Batch
	rightDone bool
	sk        *stateKeys
}

var _ operator = (*semiJoinOp)(nil)

func (op *semiJoinOp) Name() string {
	if op.anti {
		return "AntiJoin"
	}
	return "SemiJoin"
}

func (op *semiJoinOp) Step(ctx context.Context) error {
	op.out.passErrors(op.left, op.right)
	op.countRight(op.right.delta)
	if err := op.emitFlips(ctx); err != nil {
		return err
	}
	if err := op.probeLeft(ctx, op.left.delta); err != nil {
		return err
	}
	op.dropZeros()
	return nil
}

// absorb takes a chunk of a final step: a right chunk is counted at
// once, a left chunk kept until the right side is complete (see
// inputDone), after which left chunks pass or stop as they come.
func (op *semiJoinOp) absorb(ctx context.Context, slot int) error {
	if slot == 1 {
		op.out.passErrors(op.right)
		op.countRight(op.right.delta)
		return nil
	}
	op.out.passErrors(op.left)
	if op.rightDone {
		return op.probeLeft(ctx, op.left.delta)
	}
	op.held = append(op.held, op.left.delta...)
	return nil
}

// inputDone probes the left chunks kept so far once the right side is
// complete.
func (op *semiJoinOp) inputDone(ctx context.Context, slot int) error {
	if slot != 1 || op.rightDone {
		return nil
	}
	op.rightDone = true
	err := op.probeLeft(ctx, op.held)
	op.held = nil
	return err
}

// finish ends a final step. Its left side was probed as it came, and
// nothing was arranged before, so no key's presence flip emits a row.
func (op *semiJoinOp) finish(ctx context.Context) error {
	if !op.g.fin.running {
		return nil
	}
	if err := op.emitFlips(ctx); err != nil {
		return err
	}
	err := op.probeLeft(ctx, op.held)
	op.held = nil
	op.dropZeros()
	return err
}

// emitFlips emits the arranged left rows of the keys whose presence the
// tick flipped.
func (op *semiJoinOp) emitFlips(ctx context.Context) error {
	for t := range op.touched.len() {
		key := op.touched.get(t)
		h := op.rc.hash(key)
		n, old, _ := counts3(op.rc.value(op.rc.find(key, h)))
		if was, is := old > 0, n > 0; was != is {
			diff := int64(1)
			if is == op.anti {
				diff = -1
			}
			if err := op.emitLeft(key, h, diff); err != nil {
				return err
			}
			if err := op.out.flushIfFull(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// probeLeft passes the rows of a left delta whose key is present (absent
// for an anti-join) and arranges them, unless the step is the graph's
// last.
func (op *semiJoinOp) probeLeft(ctx context.Context, delta Batch) error {
	for start := 0; start < len(delta); start += keyBatchSize {
		chunk := delta[start:min(start+keyBatchSize, len(delta))]
		op.keys.load(chunk, op.leftKey, op.rc)
		op.keys.touch(op.rc, op.la.tab)
		if !op.g.final {
			op.keys.touchStrings(chunk, nil)
		}
		for j, u := range chunk {
			key, h, ok := op.keys.get(j)
			if !ok {
				if op.anti {
					op.out.delta = append(op.out.delta, u)
				}
				continue
			}
			present := false
			if i := op.rc.find(key, h); i >= 0 {
				n, _, _ := counts3(op.rc.value(i))
				present = n > 0
			}
			if present != op.anti {
				op.out.delta = append(op.out.delta, u)
			}
			if op.g.final {
				continue
			}
			op.vbuf = appendRowValue(op.vbuf[:0], u.Row)
			op.la.update(key, h, op.vbuf, u.Diff)
		}
		if err := op.out.flushIfFull(ctx); err != nil {
			return err
		}
	}
	return nil
}

// dropZeros ends a tick: the touched keys without right rows go, and
// each touched key's count is persisted.
func (op *semiJoinOp) dropZeros() {
	persist := op.sk.on()
	for t := range op.touched.len() {
		key := op.touched.get(t)
		i := op.rc.find(key, op.rc.hash(key))
		n, _, _ := counts3(op.rc.value(i))
		if persist {
			op.persistCount(key, n)
		}
		if n == 0 {
			op.rc.delete(i)
		}
	}
	op.touched.reset()
}

// countRight applies the right delta to the per-key counts.
func (op *semiJoinOp) countRight(delta Batch) {
	var zero [24]byte
	for start := 0; start < len(delta); start += keyBatchSize {
		chunk := delta[start:min(start+keyBatchSize, len(delta))]
		op.keys.load(chunk, op.rightKey, op.rc)
		op.keys.touch(op.rc)
		for j, u := range chunk {
			key, h, ok := op.keys.get(j)
			if !ok {
				continue
			}
			i := op.rc.find(key, h)
			if i < 0 {
				i = op.rc.insert(key, h, zero[:])
			}
			v := op.rc.value(i)
			n, old, tick := counts3(v)
			if tick != op.g.tick {
				old, tick = n, op.g.tick
				op.touched.add(key)
			}
			putCounts3(v, n+u.Diff, old, tick)
		}
	}
}

// emitLeft emits the left rows stored under key with their multiplicity
// times diff: the rows that enter or leave the result when the key's
// presence flips.
func (op *semiJoinOp) emitLeft(key []byte, h uint64, diff int64) error {
	for it := op.la.get(key, h); it.next(); {
		r, err := op.slab.decode(it.row)
		if err != nil {
			return fmt.Errorf("corrupt arranged row: %w", err)
		}
		op.out.delta = append(op.out.delta, Update{Row: r, Diff: diff * it.n})
	}
	return nil
}

func (op *semiJoinOp) StateBytes() int64 {
	return op.la.size() + op.rc.size() + int64(cap(op.held))*sizeUpdate
}

// A semi-join persists its left arrangement as structure 0 and the
// right side's count per key as structure 1: key → count (varint).

func (op *semiJoinOp) persists() error { return nil }

func (op *semiJoinOp) stateShape() string { return "arranged/1 counts/1" }

// persistCount records the right side's count n of key.
func (op *semiJoinOp) persistCount(key []byte, n int64) {
	k := append(op.sk.start(1, key), key...)
	op.sk.key = k
	op.sk.setCount(k, n)
}

func (op *semiJoinOp) restore(_ context.Context, r StateReader) error {
	if err := op.la.restore(r); err != nil {
		return err
	}
	var v [24]byte
	return op.sk.scan(r, 1, true, func(key, val []byte) error {
		n, _, err := readVarint(val)
		if err != nil {
			return err
		}
		putCounts3(v[:], n, n, 0)
		op.rc.insert(key, op.rc.hash(key), v[:])
		return nil
	})
}

func counts3(v []byte) (int64, int64, uint64) {
	return int64(binary.LittleEndian.Uint64(v)), int64(binary.LittleEndian.Uint64(v[8:])), binary.LittleEndian.Uint64(v[16:])
}

func putCounts3(v []byte, n, old int64, tick uint64) {
	binary.LittleEndian.PutUint64(v, uint64(n))
	binary.LittleEndian.PutUint64(v[8:], uint64(old))
	binary.LittleEndian.PutUint64(v[16:], tick)
}

// keyList is a list of byte strings in one buffer, for the keys an
// operator touched in a tick.
type keyList struct {
	buf  []byte
	ends []int
}

func (l *keyList) add(k []byte) {
	l.buf = append(l.buf, k...)
	l.ends = append(l.ends, len(l.buf))
}

func (l *keyList) len() int { return len(l.ends) }

func (l *keyList) get(i int) []byte {
	start := 0
	if i > 0 {
		start = l.ends[i-1]
	}
	return l.buf[start:l.ends[i]]
}

func (l *keyList) reset() {
	l.buf = l.buf[:0]
	l.ends = l.ends[:0]
}
