package engine

import (
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/sources"
)

// releaseBatches hands the memory of the tick's source batches back to
// their sources (sources.Batch.Release) where nothing the tick gave
// their rows to can still refer to them: a saturated generator then
// builds its next batches in the same memory, instead of allocating
// (and the collector scanning) a few hundred bytes per event. It runs
// at the very end of a tick that committed, after maintenance, the
// subscriptions' pushes and the search for view errors' examples; a
// tick that found view errors releases nothing (the caller's check): an
// error's example row is an input row, kept.
//
// It answers conservatively, per batch: every relation the batch
// changed must be not stored, or cold (its rows encoded into the store,
// its history only their ids; an in-memory relation's history keeps its
// changes by reference), have no change feed of its own nor a sink, and
// every flow reading it must let go of its rows within the Step
// (dataflow.Input.KeepsRows).
//
// The deltas built from a released batch are kept by the source's
// runtime for the next tick's (runningSource.spare): nothing refers to
// them either.
func (e *Engine) releaseBatches(reqs []*coordReq, deltas map[uint64]dataflow.Batch) {
	for _, r := range reqs {
		if r.source == nil || r.batch == nil || r.batch.Release == nil || r.err != nil {
			continue
		}
		rs := r.source
		if e.keepsRows(rs, r.batch) {
			continue
		}
		for i, changes := range r.batch.Changes {
			if i >= len(rs.outputs) || rs.outputs[i] == 0 || len(changes) == 0 {
				continue
			}
			if rs.spare == nil {
				rs.spare = map[uint64]dataflow.Batch{}
			}
			rs.spare[rs.outputs[i]] = deltas[rs.outputs[i]]
		}
		release := r.batch.Release
		r.batch.Release = nil
		release()
	}
}

// keepsRows reports whether anything may still refer to the rows of a
// source batch the tick applied.
func (e *Engine) keepsRows(rs *runningSource, b *sources.Batch) bool {
	for i, changes := range b.Changes {
		if len(changes) == 0 {
			continue
		}
		if i >= len(rs.outputs) || rs.outputs[i] == 0 {
			continue
		}
		id := rs.outputs[i]
		t := e.tables[id]
		if t == nil || !t.notStored() && t.store == nil || len(e.directSubs[id]) > 0 || e.sinkRels[id] > 0 {
			return true
		}
		for _, f := range e.readers[id] {
			if in := f.inputs[id]; in == nil || in.KeepsRows() {
				return true
			}
		}
	}
	return false
}
