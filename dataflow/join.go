package dataflow

import (
	"context"
	"fmt"

	"github.com/streamdb/streamdb/sql/types"
)

// KeyFunc extracts a join key from a row. It returns false when the key
// holds a NULL: under SQL equality such a row matches nothing. A nil
// KeyFunc stands for the empty key, which every row has.
type KeyFunc func(types.Row) (types.Row, bool)

// JoinSpec describes an inner equi-join. Rows match when their keys are
// equal under types.Compare (column by column, same families); when both
// keys are empty (or nil) every pair matches: a cross join. Output builds
// the result row of a matching pair; it must not modify or retain l and r
// beyond the rows it returns.
type JoinSpec struct {
	LeftKey, RightKey KeyFunc
	Output            func(l, r types.Row) types.Row
}

// Join returns the inner equi-join of left and right.
//
// Join is bilinear, and both sides are arranged by key (state: every row
// of both inputs, encoded, in hash buckets). Per tick,
//
//	Δ(A ⋈ B) = ΔA ⋈ B + A ⋈ ΔB + ΔA ⋈ ΔB = ΔA ⋈ B_old + A_new ⋈ ΔB
//
// so the cost of a tick is the size of the deltas plus the number of
// matches they produce, independent of the size of A and B. A match's
// weight is the product of the weights.
//
//	left:   +(1, a)                 +(2, c)
//	right:  +(1, x) +(1, y)         -(1, x) +(2, z)
//	output: +(1,a,1,x) +(1,a,1,y)   -(1,a,1,x) +(2,c,2,z)
func (g *Graph) Join(left, right Node, spec JoinSpec) Node {
	out := new(stream)
	op := &joinOp{
		left: g.input(left), right: g.input(right), out: out, spec: spec,
		la: newArrangement(), ra: newArrangement(),
	}
	return g.add(op, out)
}

type joinOp struct {
	left, right, out *stream
	spec             JoinSpec
	la, ra           *arrangement
	// Scratch buffers for key and row encodings and decoded rows.
	kbuf, vbuf []byte
}

var _ operator = (*joinOp)(nil)

func (op *joinOp) Name() string { return "Join" }

func (op *joinOp) Step(context.Context) error {
	op.out.passErrors(op.left, op.right)
	for _, u := range op.left.delta {
		if err := op.apply(u, op.spec.LeftKey, op.la, op.ra, false); err != nil {
			return err
		}
	}
	for _, u := range op.right.delta {
		if err := op.apply(u, op.spec.RightKey, op.ra, op.la, true); err != nil {
			return err
		}
	}
	return nil
}

// apply joins one update of a side with the current state of the other
// side, then adds it to its own side's arrangement. Processing all of the
// left delta first (against B_old) and then the right delta (against
// A_new) yields exactly the three terms of the bilinear delta.
func (op *joinOp) apply(u Update, keyFn KeyFunc, own, other *arrangement, fromRight bool) error {
	key, ok := evalKey(keyFn, u.Row)
	if !ok {
		return nil
	}
	op.kbuf = types.AppendKeyRow(op.kbuf[:0], key)
	if b := other.get(op.kbuf); b != nil {
		for _, e := range b.rows {
			r, err := decodeRowValue(stored(e.row), nil)
			if err != nil {
				return fmt.Errorf("corrupt arranged row: %w", err)
			}
			var res types.Row
			if fromRight {
				res = op.spec.Output(r, u.Row)
			} else {
				res = op.spec.Output(u.Row, r)
			}
			op.out.delta = append(op.out.delta, Update{Row: res, Diff: u.Diff * e.n})
		}
	}
	op.vbuf = appendRowValue(op.vbuf[:0], u.Row)
	own.update(op.kbuf, op.vbuf, u.Diff)
	return nil
}

func (op *joinOp) StateBytes() int64 { return op.la.bytes + op.ra.bytes }

// evalKey applies a KeyFunc, nil meaning the empty key.
func evalKey(fn KeyFunc, r types.Row) (types.Row, bool) {
	if fn == nil {
		return nil, true
	}
	return fn(r)
}
