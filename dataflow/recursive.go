package dataflow

import (
	"context"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// RecursiveSpec describes a recursive query (WITH RECURSIVE) for
// Recursive.
type RecursiveSpec struct {
	// Step builds the recursive term in a graph of its own: one
	// iteration, which reads the working table work (the rows the
	// previous iteration produced) and the external collections ext,
	// Inputs that receive the changes of Recursive's ext nodes, and
	// returns the rows of the next iteration. It is called once per
	// iteration the recursion reaches.
	Step func(g *Graph, work Node, ext []Node) (Node, error)
	// Distinct is UNION's semantics: the result is a set, and an
	// iteration passes on only the rows of its step not yet in the
	// result. Without it (UNION ALL) the result is every iteration's
	// rows.
	Distinct bool
	// MaxIterations bounds the iterations a maintained result may need:
	// while its inputs need more, the result reads as an error. 0 means
	// no bound, for a one-tick query, which like PostgreSQL iterates
	// until an iteration produces nothing (or the query is canceled).
	MaxIterations int
}

// Recursive computes the fixpoint of a recursive query incrementally.
// PostgreSQL evaluates WITH RECURSIVE by iteration: W0 is the
// non-recursive term (base), W(k+1) = step(W(k)), and the result is the
// union of every W(k); the step sees only the previous iteration's rows.
//
// The operator keeps one copy of the step's graph per iteration k, whose
// input is W(k) and whose output is W(k+1), each an ordinary incremental
// dataflow over the ticks. A tick's change of W0 feeds copy 0, whose
// output change feeds copy 1, and so on: every copy also receives the
// tick's changes of the external collections, so a change anywhere
// reaches every iteration it affects, and the result's change is the sum
// of the copies' output changes. This is the nested iteration of
// differential dataflow and DBSP (timestamps (tick, iteration), iterated
// to a fixpoint per tick over the delta) with one copy of state per
// iteration instead of arrangements indexed by iteration. Copies are
// added when a change reaches an iteration that had no rows; a new copy
// starts from the external collections' contents (and, for UNION, the
// result's), kept for that purpose.
//
//	base:   +1               (then, next tick, −1)
//	step:   n+1 WHERE n < 3
//	copies: 0: +2   1: +3   2: (nothing)
//	output: +1 +2 +3         (next tick: −1 −2 −3)
//
// For UNION, copy k's graph ends in Distinct and a Threshold against the
// result so far, U(k) = W0 ∪ … ∪ W(k), fed to it as a third input: W(k+1)
// = distinct(step(W(k))) \ U(k), as PostgreSQL discards the rows already
// in the result. base must then be distinct already.
//
// A result whose inputs need more than MaxIterations iterations (where
// PostgreSQL would iterate on, or forever) is the overflow's error alone,
// without rows; a maintained one stays so, its copies stale, while at
// each later tick the operator recomputes the recursion from the
// accumulated inputs, and once that needs few enough iterations it takes
// the new copies, emits the new result and retracts the error.
//
// A one-tick query steps each copy once and drops it, so its memory
// follows one iteration; a maintained view keeps every copy, with state
// of the size of its iteration's rows (and arrangements of the external
// collections the step joins with, one per copy). Errors of any copy
// flow to the output as data.
func (g *Graph) Recursive(base Node, ext []Node, spec RecursiveSpec) (Node, error) {
	out := new(stream)
	op := &recursiveOp{g: g, base: g.input(base), out: out, spec: spec, sk: g.stateKeys()}
	for _, e := range ext {
		op.ext = append(op.ext, g.input(e))
	}
	op.extAcc = make([]accumulator, len(ext))
	// The first copy is built now, so that the step's errors (it is
	// planned on every copy) surface when the graph is built.
	c, err := op.newCopy()
	if err != nil {
		return Node{}, err
	}
	op.copies = append(op.copies, c)
	op.copyShape, op.copyPersists = c.g.StateShape(), c.g.Persistable()
	return g.add(op, out), nil
}

type recursiveOp struct {
	g      *Graph
	base   *stream
	ext    []*stream
	out    *stream
	spec   RecursiveSpec
	copies []*recCopy
	// baseAcc, extAcc and outAcc accumulate the inputs and the result,
	// to start new copies from and to recompute after an overflow; a
	// one-tick query needs none of them.
	baseAcc accumulator
	extAcc  []accumulator
	outAcc  accumulator
	// errAcc is the copies' consolidated errors emitted so far.
	errAcc []ErrorUpdate
	// overflow is set while the inputs need more than MaxIterations
	// iterations: the result reads as an error and the copies are stale.
	overflow bool
	// held keeps a final step's chunks of each input until its finish,
	// heldBytes their size.
	held      []Batch
	heldBytes int64
	// sk persists the state (recursive_persist.go); copyShape and
	// copyPersists are a copy's StateShape and Persistable.
	sk           *stateKeys
	kbuf         []byte
	copyShape    string
	copyPersists error
	meta         recMetaState
}

// recCopy is the graph of one iteration.
type recCopy struct {
	g    *Graph
	work *Input
	seen *Input // UNION: the result so far
	ext  []*Input
	out  *Collector
	// fresh is set until the copy's first step, which also takes the
	// contents the copy starts from.
	fresh bool
}

var _ operator = (*recursiveOp)(nil)

func (op *recursiveOp) Name() string { return "Recursive" }

func (op *recursiveOp) newCopy() (*recCopy, error) {
	g := NewGraph()
	c := &recCopy{g: g, work: g.Input(), fresh: true}
	ext := make([]Node, len(op.ext))
	for i := range op.ext {
		in := g.Input()
		c.ext = append(c.ext, in)
		ext[i] = in.Node()
	}
	next, err := op.spec.Step(g, c.work.Node(), ext)
	if err != nil {
		return nil, err
	}
	if op.spec.Distinct {
		c.seen = g.Input()
		next = g.Threshold(g.Distinct(next), c.seen.Node(), func(lc, rc int64) int64 {
			if lc > 0 && rc <= 0 {
				return 1
			}
			return 0
		})
	}
	c.out = g.Collect(next)
	return c, nil
}

func (op *recursiveOp) Step(ctx context.Context) error {
	op.out.passErrors(op.base)
	op.out.passErrors(op.ext...)
	return op.run(ctx, op.base.delta, op.extDeltas())
}

// absorb keeps a final step's chunk of one input (slot 0 the base, then
// the external collections): the recursion runs on the whole of each at
// its finish, as in a Step.
func (op *recursiveOp) absorb(_ context.Context, slot int) error {
	in := op.base
	if slot > 0 {
		in = op.ext[slot-1]
	}
	op.out.passErrors(in)
	if op.held == nil {
		op.held = make([]Batch, 1+len(op.ext))
	}
	op.held[slot] = append(op.held[slot], in.delta...)
	op.heldBytes += int64(len(in.delta)) * sizeUpdate
	for _, u := range in.delta {
		op.heldBytes += int64(len(u.Row)) * sizeDatum
	}
	return nil
}

// finish runs the recursion of a final step on the inputs absorb kept.
func (op *recursiveOp) finish(ctx context.Context) error {
	held := op.held
	if held == nil {
		held = make([]Batch, 1+len(op.ext))
	}
	op.held, op.heldBytes = nil, 0
	return op.run(ctx, held[0], held[1:])
}

// run is a tick of the recursion, given its change of the base and of the
// external collections.
func (op *recursiveOp) run(ctx context.Context, base Batch, ext []Batch) error {
	mark := len(op.out.errs) // the copies' errors follow
	if op.overflow {
		op.accumulate(base, ext)
		err := op.recompute(ctx)
		op.persistTick(op.out.errs[mark:])
		return err
	}
	final := op.g.final
	overflow, err := op.iterate(ctx, op.copies, base, ext, final)
	if err != nil {
		return err
	}
	if !final {
		op.accumulate(base, ext)
	}
	if !overflow {
		op.outAcc.add(op.out.delta)
		op.persistAcc(recResult, 0, &op.outAcc, op.out.delta)
		op.errAcc = ConsolidateErrors(append(op.errAcc, op.out.errs[mark:]...))
		op.persistTick(op.out.errs[mark:])
		return nil
	}
	// The copies are stale now. The result reads as the overflow's error
	// alone, as a recomputation from scratch gives it, until a later
	// recomputation succeeds.
	op.overflow = true
	clear(op.out.delta)
	op.out.delta = op.out.delta[:0]
	for _, u := range op.outAcc.batch() {
		op.out.delta = append(op.out.delta, Update{Row: u.Row, Diff: -u.Diff})
	}
	op.outAcc = accumulator{}
	op.persistResultCleared()
	op.out.errs = op.out.errs[:mark]
	for _, e := range op.errAcc {
		op.out.errs = append(op.out.errs, ErrorUpdate{Err: e.Err, Diff: -e.Diff})
	}
	op.errAcc = nil
	op.out.errs = append(op.out.errs, ErrorUpdate{Err: op.errOverflow(), Diff: 1})
	op.persistTick(nil)
	return nil
}

// accumulate adds the tick's changes of the inputs to their accumulated
// contents.
func (op *recursiveOp) accumulate(base Batch, ext []Batch) {
	op.baseAcc.add(base)
	op.persistAcc(recBase, 0, &op.baseAcc, base)
	for i, d := range ext {
		op.extAcc[i].add(d)
		op.persistAcc(recExt, i, &op.extAcc[i], d)
	}
}

func (op *recursiveOp) extDeltas() []Batch {
	ds := make([]Batch, len(op.ext))
	for i, e := range op.ext {
		ds[i] = e.delta
	}
	return ds
}

func (op *recursiveOp) errOverflow() *pgerr.Error {
	return pgerr.New(pgerr.ProgramLimitExceeded, "recursive query needed more than %d iterations", op.spec.MaxIterations).
		WithHint("A materialized view maintains at most %d iterations of WITH RECURSIVE; the query itself has no such limit.", op.spec.MaxIterations)
}

// iterate runs one tick through the copies, given the tick's change of
// W0 and of the external collections: every existing copy, then new ones
// while changes reach further. It appends the result's change to the
// output and reports whether the recursion went past MaxIterations. A
// final tick drops each copy once stepped.
func (op *recursiveOp) iterate(ctx context.Context, copies []*recCopy, delta Batch, ext []Batch, final bool) (overflow bool, err error) {
	op.out.delta = append(op.out.delta, delta...)
	var seen Batch // UNION: the change of the result so far
	if op.spec.Distinct {
		seen = append(seen, delta...)
	}
	for k := 0; ; k++ {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		if k == len(copies) || copies[k] == nil {
			if len(delta) == 0 {
				break
			}
			if op.spec.MaxIterations > 0 && k >= op.spec.MaxIterations {
				return true, nil
			}
			c, err := op.newCopy()
			if err != nil {
				return false, err
			}
			if k == len(copies) {
				copies = append(copies, c)
			} else {
				copies[k] = c
			}
		}
		c := copies[k]
		if !final {
			op.persistCopy(c, k)
		}
		if c.fresh {
			for i, in := range c.ext {
				in.Push(op.extAcc[i].batch())
			}
			if c.seen != nil {
				c.seen.Push(op.outAcc.batch())
			}
			c.fresh = false
		}
		c.work.Push(delta)
		for i, in := range c.ext {
			in.Push(ext[i])
		}
		if c.seen != nil {
			c.seen.Push(seen)
		}
		if final {
			err = c.g.StepFinal(ctx)
			copies[k] = nil // a one-tick query's copy is done
		} else {
			err = c.g.Step(ctx)
		}
		if err != nil {
			return false, err
		}
		delta = append(Batch(nil), c.out.Delta()...)
		op.out.errs = append(op.out.errs, c.out.Errors()...)
		op.out.delta = append(op.out.delta, delta...)
		if c.seen != nil {
			seen = append(seen, delta...)
		}
	}
	op.copies = copies
	return false, nil
}

// recompute evaluates the recursion afresh from the accumulated inputs,
// after an overflow. If it needs few enough iterations its copies replace
// the stale ones, the output takes the new result and its errors, and
// the overflow's error is retracted.
func (op *recursiveOp) recompute(ctx context.Context) error {
	mark := len(op.out.errs)
	extAcc := op.extAcc
	op.extAcc = make([]accumulator, len(op.ext)) // new copies start empty
	ext := make([]Batch, len(op.ext))
	for i := range ext {
		ext[i] = extAcc[i].batch()
	}
	overflow, err := op.iterate(ctx, nil, op.baseAcc.batch(), ext, false)
	op.extAcc = extAcc
	if err != nil {
		return err
	}
	if overflow {
		// Still too deep: nothing changes.
		clear(op.out.delta)
		op.out.delta = op.out.delta[:0]
		op.out.errs = op.out.errs[:mark]
		return nil
	}
	op.outAcc.add(op.out.delta)
	op.persistAcc(recResult, 0, &op.outAcc, op.out.delta)
	op.errAcc = ConsolidateErrors(append([]ErrorUpdate(nil), op.out.errs[mark:]...))
	op.overflow = false
	op.out.errs = append(op.out.errs, ErrorUpdate{Err: op.errOverflow(), Diff: -1})
	return nil
}

func (op *recursiveOp) StateBytes() int64 {
	n := op.baseAcc.bytes + op.outAcc.bytes + op.heldBytes
	for _, a := range op.extAcc {
		n += a.bytes
	}
	for _, c := range op.copies {
		if c != nil {
			n += c.g.StateBytes()
		}
	}
	return n
}

// accumulator is a consolidated collection kept to start new copies
// from: each distinct row with its multiplicity.
type accumulator struct {
	rows  map[string]*Update
	kbuf  []byte
	bytes int64
}

func (a *accumulator) add(b Batch) {
	if len(b) == 0 {
		return
	}
	if a.rows == nil {
		a.rows = map[string]*Update{}
	}
	for _, u := range b {
		a.kbuf = types.AppendKeyRow(a.kbuf[:0], u.Row)
		if e, ok := a.rows[string(a.kbuf)]; ok {
			if e.Diff += u.Diff; e.Diff == 0 {
				delete(a.rows, string(a.kbuf))
				a.bytes -= int64(len(a.kbuf)) + int64(len(u.Row))*sizeDatum
			}
			continue
		}
		a.rows[string(a.kbuf)] = &Update{Row: u.Row, Diff: u.Diff}
		a.bytes += int64(len(a.kbuf)) + int64(len(u.Row))*sizeDatum
	}
}

// batch returns the accumulated collection.
func (a *accumulator) batch() Batch {
	b := make(Batch, 0, len(a.rows))
	for _, u := range a.rows {
		b = append(b, *u)
	}
	return b
}
