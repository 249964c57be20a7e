package dataflow

import "context"

// Collect returns a sink that keeps only the consolidated delta of the last
// Step: the cheap way to read a one-tick batch query (whose single delta
// is its whole result) or to forward a collection's changes elsewhere
// without maintaining it.
func (g *Graph) Collect(src Node) *Collector {
	c := &Collector{in: g.input(src)}
	g.add(&collectOp{c: c}, new(stream))
	return c
}

// CollectRows is Collect for a one-tick query, whose result is read as a
// bag of rows: a delta without negative updates has nothing to cancel, so
// it is kept as it is, unconsolidated (equal rows may stay separate
// updates, in the order they arrived). Consolidating encodes and sorts
// every row, half the work of reading a large view.
func (g *Graph) CollectRows(src Node) *Collector {
	c := &Collector{in: g.input(src), bag: true}
	g.add(&collectOp{c: c}, new(stream))
	return c
}

// Collector holds the last Step's consolidated delta of a collection. It
// belongs to the graph's goroutine.
type Collector struct {
	in    *stream
	bag   bool // CollectRows: positive deltas stay unconsolidated
	cons  consolidator
	delta Batch
	errs  []ErrorUpdate
}

// Delta returns the consolidated delta of the last Step (for CollectRows,
// possibly unconsolidated but without negative updates), valid until the
// next Step.
func (c *Collector) Delta() Batch { return c.delta }

// Errors returns the consolidated error delta of the last Step.
func (c *Collector) Errors() []ErrorUpdate { return c.errs }

// Err returns the first error of the last Step's error delta, nil if none:
// the error a one-tick query fails with.
func (c *Collector) Err() error {
	if len(c.errs) == 0 {
		return nil
	}
	return c.errs[0].Err
}

type collectOp struct {
	c *Collector
	// held and heldErrs gather a final step's chunks.
	held     Batch
	heldErrs []ErrorUpdate
}

var _ operator = (*collectOp)(nil)

func (op *collectOp) Name() string { return "Collect" }

func (op *collectOp) Step(context.Context) error {
	op.collect(op.c.in.delta, op.c.in.errs)
	return nil
}

// absorb gathers a chunk of a final step; the result is the whole
// collection, which finish keeps.
func (op *collectOp) absorb(context.Context, int) error {
	op.held = append(op.held, op.c.in.delta...)
	op.heldErrs = append(op.heldErrs, op.c.in.errs...)
	return nil
}

func (op *collectOp) finish(context.Context) error {
	if op.c.in.streaming() {
		op.collect(op.held, op.heldErrs)
		op.held, op.heldErrs = nil, nil
	}
	return nil
}

// collect keeps a tick's delta.
func (op *collectOp) collect(delta Batch, errs []ErrorUpdate) {
	c := op.c
	clear(c.delta)
	if c.bag && positive(delta) {
		c.delta = append(c.delta[:0], delta...)
	} else {
		c.delta = c.cons.into(c.delta[:0], delta)
	}
	clear(c.errs)
	c.errs = ConsolidateErrors(append(c.errs[:0], errs...))
}

func (op *collectOp) StateBytes() int64 { return 0 }

// positive reports whether every update of b inserts.
func positive(b Batch) bool {
	for i := range b {
		if b[i].Diff < 0 {
			return false
		}
	}
	return true
}
