package dataflow

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// # Derived state
//
// Some state repeats what the store holds already. A join's arrangement
// of a stored table, reached through projections only, is a function of
// the table's rows, and so is a view that projects a stored table:
// persisted, each such row was written twice in every tick (the
// table's row, then its arranged or projected copy), and Pebble paid for
// the copy in its log, memtable, flush and every compaction — Nexmark q9
// and q20 wrote more bytes of arranged bids than of bids, and spent 40%
// of their CPU in Pebble. Such state is derived instead: not persisted,
// and rebuilt at restore by feeding the table's rows, as of the restored
// tick, through the same stateless operators into the structure (Derive).
// What is restored and what is derived are of the same tick, since a
// tick writes the table's rows and the other state in one batch.
//
// A structure is derived when every path into it comes from a
// replayable Input (see Replayable) through stateless operators that
// keep nothing, depend on nothing but their input rows and drop none of
// them (Map, Union, Negate; views call no volatile or stable function):
//
//	Join side     its arrangement, unless rows of the side expire (the
//	              expiry depends on watermarks, not on the rows alone)
//	Output, Index its rows and errors, unless it keeps a Reduce's groups
//
// Every other operator persists its state as before; a join whose sides
// are both derived persists nothing, and its output downstream (a view
// of the joined rows) is persisted: recomputing it would be the join's
// whole work. Restoring a derived structure reads as many rows as the
// table holds, so that a restart still follows the size of the state
// (the table is the state), not the history that made it. That is why a
// Filter (or a FlatMap, which may yield nothing) ends derivation: a view
// of the few rows of a large table that pass its WHERE would be rebuilt
// by reading all of them, where its persisted state is those few.

// Replayable marks an input fed from a relation whose whole contents, as
// of the last tick the graph persisted, can be fed again at restore (a
// stored table or source): state that only accumulates the input is then
// derived from it instead of persisted. It must be called before
// Persist.
func (in *Input) Replayable() {
	if in.node.g.ps != nil {
		panic("dataflow: Replayable after Persist")
	}
	in.replayable = true
}

// Derives reports whether a restore of the graph feeds in: whether Derive
// rebuilds state from it.
func (in *Input) Derives() bool {
	g := in.node.g
	return g.derive != nil && g.derive[in.node.id]
}

// deriver is an operator with state derived from replayable inputs.
type deriver interface {
	operator
	// derive adds the tick's input on its derived parts to its state,
	// emitting nothing and persisting nothing.
	derive(ctx context.Context) error
}

// planDerived decides which structures are derived, when the graph starts
// to persist, and the operators a Derive runs: those structures and the
// stateless operators upstream of them.
func (g *Graph) planDerived() {
	replayed := make([]bool, len(g.ops))
	from := func(i int) bool {
		for _, s := range g.inputs[i] {
			if !replayed[s] {
				return false
			}
		}
		return len(g.inputs[i]) > 0
	}
	for i, op := range g.ops {
		switch op := op.(type) {
		case *inputOp:
			replayed[i] = op.in.replayable
		case *mapOp, *unionOp, *negateOp:
			replayed[i] = from(i)
		case *joinOp:
			op.derived = [2]bool{replayed[g.inputs[i][0]] && op.spec.LeftExpire == nil,
				replayed[g.inputs[i][1]] && op.spec.RightExpire == nil}
			if op.derived[0] {
				op.la.persistAs(nil, 0)
			}
			if op.derived[1] {
				op.ra.persistAs(nil, 1)
			}
		case *outputOp:
			if op.o.red == nil && from(i) {
				op.derived = true
				op.o.persistAs(nil)
			}
		}
	}
	// Backwards from the derived structures, through what feeds them:
	// replayed operators, all of whose inputs are replayed too.
	need := make([]bool, len(g.ops))
	for i := len(g.ops) - 1; i >= 0; i-- {
		ins := g.inputs[i]
		switch op := g.ops[i].(type) {
		case *joinOp:
			for side, d := range op.derived {
				if d {
					need[i], need[ins[side]] = true, true
				}
			}
		case *outputOp:
			if op.derived {
				need[i], need[ins[0]] = true, true
			}
		default:
			if need[i] {
				for _, s := range ins {
					need[s] = true
				}
			}
		}
	}
	if slices.Contains(need, true) {
		g.derive = need
	}
}

// Derive rebuilds the derived state (see above) from the inputs that
// Derives, fed with the rows of their relations as of the restored tick,
// in as many calls as the engine likes: every pushed batch is added to
// the derived structures, and nothing is emitted or persisted. It runs
// between Restore and the first Step.
func (g *Graph) Derive(ctx context.Context) error {
	if g.err != nil {
		return g.err
	}
	if !g.restored {
		return errors.New("dataflow: Derive outside a restore")
	}
	if g.derive == nil {
		return nil
	}
	for i, op := range g.ops {
		if !g.derive[i] {
			continue
		}
		if err := ctx.Err(); err != nil {
			g.err = fmt.Errorf("dataflow: restore canceled: %w", err)
			return g.err
		}
		g.streams[i].reset()
		var err error
		if d, ok := op.(deriver); ok {
			err = d.derive(ctx)
		} else {
			err = op.Step(ctx)
		}
		if err != nil {
			g.err = fmt.Errorf("dataflow: derive %s: %w", op.Name(), err)
			return g.err
		}
	}
	return nil
}

// derive arranges the tick's rows of the join's derived sides.
func (op *joinOp) derive(context.Context) error {
	if op.derived[0] {
		op.arrange(op.left.delta, op.spec.LeftKey, op.la, false)
	}
	if op.derived[1] {
		op.arrange(op.right.delta, op.spec.RightKey, op.ra, true)
	}
	return nil
}

// derive takes the tick's rows and errors into the Output as a Step
// does; its delta is not a change anybody reads.
func (op *outputOp) derive(context.Context) error {
	o := op.o
	o.step()
	clear(o.delta)
	o.delta = o.delta[:0]
	clear(o.deltaErrs)
	o.deltaErrs = o.deltaErrs[:0]
	return nil
}
