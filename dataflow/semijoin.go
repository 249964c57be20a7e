package dataflow

import (
	"context"
	"fmt"

	"github.com/streamdb/streamdb/sql/types"
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
	op := &semiJoinOp{
		g: g, left: g.input(left), right: g.input(right), out: out,
		leftKey: leftKey, rightKey: rightKey, anti: anti,
		la: newArrangement(), rc: make(map[string]*keyCount),
	}
	return g.add(op, out)
}

type semiJoinOp struct {
	g                 *Graph
	left, right, out  *stream
	leftKey, rightKey KeyFunc
	anti              bool
	la                *arrangement
	// rc counts the right rows per key; touched lists the keys whose
	// count changed in this tick, each with its count before the tick.
	rc      map[string]*keyCount
	rcBytes int64
	touched []*keyCount
	kbuf    []byte
	vbuf    []byte
}

// keyCount is a key's total right weight. old and tick remember the count
// at the start of the tick in which the key was last touched.
type keyCount struct {
	key    string
	n, old int64
	tick   uint64
}

const sizeKeyCount = sizeString + 3*8 + sizePointer + sizeMapEntry + sizeString

var _ operator = (*semiJoinOp)(nil)

func (op *semiJoinOp) Name() string {
	if op.anti {
		return "AntiJoin"
	}
	return "SemiJoin"
}

func (op *semiJoinOp) Step(context.Context) error {
	op.out.passErrors(op.left, op.right)
	op.countRight()
	for _, c := range op.touched {
		was, is := c.old > 0, c.n > 0
		if was == is {
			continue
		}
		diff := int64(1)
		if is == op.anti {
			diff = -1
		}
		if err := op.emitLeft(c.key, diff); err != nil {
			return err
		}
	}
	for _, u := range op.left.delta {
		key, ok := evalKey(op.leftKey, u.Row)
		if !ok {
			if op.anti {
				op.out.delta = append(op.out.delta, u)
			}
			continue
		}
		op.kbuf = types.AppendKeyRow(op.kbuf[:0], key)
		present := false
		if c := op.rc[string(op.kbuf)]; c != nil {
			present = c.n > 0
		}
		if present != op.anti {
			op.out.delta = append(op.out.delta, u)
		}
		op.vbuf = appendRowValue(op.vbuf[:0], u.Row)
		op.la.update(op.kbuf, op.vbuf, u.Diff)
	}
	for _, c := range op.touched {
		if c.n == 0 {
			delete(op.rc, c.key)
			op.rcBytes -= sizeKeyCount + int64(len(c.key))
		}
	}
	clear(op.touched)
	op.touched = op.touched[:0]
	return nil
}

// countRight applies the right delta to the per-key counts.
func (op *semiJoinOp) countRight() {
	for _, u := range op.right.delta {
		key, ok := evalKey(op.rightKey, u.Row)
		if !ok {
			continue
		}
		op.kbuf = types.AppendKeyRow(op.kbuf[:0], key)
		c := op.rc[string(op.kbuf)]
		if c == nil {
			c = &keyCount{key: string(op.kbuf)}
			op.rc[c.key] = c
			op.rcBytes += sizeKeyCount + int64(len(c.key))
		}
		if c.tick != op.g.tick {
			c.tick = op.g.tick
			c.old = c.n
			op.touched = append(op.touched, c)
		}
		c.n += u.Diff
	}
}

// emitLeft emits the left rows stored under key with their multiplicity
// times diff: the rows that enter or leave the result when the key's
// presence flips.
func (op *semiJoinOp) emitLeft(key string, diff int64) error {
	b := op.la.get(stored(key))
	if b == nil {
		return nil
	}
	for _, e := range b.rows {
		r, err := decodeRowValue(stored(e.row), nil)
		if err != nil {
			return fmt.Errorf("corrupt arranged row: %w", err)
		}
		op.out.delta = append(op.out.delta, Update{Row: r, Diff: diff * e.n})
	}
	return nil
}

func (op *semiJoinOp) StateBytes() int64 { return op.la.bytes + op.rcBytes }
