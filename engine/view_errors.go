package engine

import (
	"context"
	"time"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// Errors that can be found. A materialized view keeps evaluation errors
// as data (see package dataflow): while an input row fails — a cast of
// "two" to integer — the view reads as the error, and it reads normally
// again once the row is gone. Knowing that a view is in error is not
// enough to fix it: a user needs the row. So the engine keeps, for each
// view and each distinct error it is in, when the error appeared and one
// input row that fails so: a row of a table, source or view the view
// reads, with the partition and offset of the record it came from when
// that was a source's, in the tick the error appeared.
//
// The row is found by asking the view's own plan: the rows that reached
// the view's inputs in the tick the error appeared (all of its inputs'
// rows, when it appeared as the view was built) are fed to a fresh
// one-tick dataflow of the plan, and halved while the error still comes
// out of one half, down to one row. Errors that one row does not cause
// by itself (a sum that overflows over many rows, a join with rows that
// did not change in that tick, when the other inputs are large) get no
// example. An error a view inherits from a view it reads takes that
// view's example. The search is bounded in rows and time, so a tick
// that brings a new error is delayed by little.

// ViewError is one distinct error a materialized view is in.
type ViewError struct {
	Err *pgerr.Error
	// Count is the number of rows in error (their weight).
	Count int64
	// Since is when the engine first saw the view in this error (since
	// it started).
	Since time.Time
	// Example is an input row that fails so, nil when none was found.
	Example *ErrorExample
}

// ErrorExample is an input row that a view fails on.
type ErrorExample struct {
	// Input is the object the row is a row of.
	Input uint64
	Row   types.Row
	// Located says Partition and Offset tell where the row came from:
	// the record of a source's topic that carried it.
	Located   bool
	Partition string
	Offset    int64
}

// viewErrorState is what the engine keeps of one error of a view.
type viewErrorState struct {
	since   time.Time
	example *ErrorExample
}

const (
	// exampleRows bounds the rows a search for an example feeds.
	exampleRows = 100_000
	// exampleOthers bounds the rows of the inputs that did not change
	// which a search may feed whole beside the ones that did.
	exampleOthers = 20_000
	// exampleTime bounds the searches after one tick.
	exampleTime = 200 * time.Millisecond
)

// errorKey identifies an error as dataflow does: by SQLSTATE, message,
// detail and hint.
func errorKey(e *pgerr.Error) string {
	return string(e.Code) + "\x00" + e.Message + "\x00" + e.Detail + "\x00" + e.Hint
}

// ViewErrors returns the errors the materialized view id is in as of
// snap, with what the engine found of each. It does not block: the
// counts are the snapshot's, the examples those published last.
func (e *Engine) ViewErrors(snap *Snapshot, id uint64) []ViewError {
	vs, ok := snap.View(id)
	if !ok {
		return nil
	}
	errs := vs.Errors()
	if len(errs) == 0 {
		return nil
	}
	var states map[string]*viewErrorState
	if p := e.errInfo.Load(); p != nil {
		states = (*p)[id]
	}
	out := make([]ViewError, len(errs))
	for i, u := range errs {
		out[i] = ViewError{Err: u.Err, Count: u.Diff}
		if st := states[errorKey(u.Err)]; st != nil {
			out[i].Since, out[i].Example = st.since, st.example
		}
	}
	return out
}

// publishErrorInfo makes the record of views' errors visible to
// ViewErrors: a copy, since the coordinator goes on changing its own.
func (e *Engine) publishErrorInfo() {
	m := make(map[uint64]map[string]*viewErrorState, len(e.viewErrs))
	for id, states := range e.viewErrs {
		c := make(map[string]*viewErrorState, len(states))
		for k, st := range states {
			cp := *st
			c[k] = &cp
		}
		m[id] = c
	}
	e.errInfo.Store(&m)
}

// trackViewErrors brings the engine's record of the errors of the flows
// stepped in a tick up to date: errors that went are forgotten, new ones
// are given an example row from the tick's deltas, and an example that
// the tick deleted is dropped.
func (e *Engine) trackViewErrors(ctx context.Context, flows []*flow, deltas map[uint64]dataflow.Batch, reqs []*coordReq) {
	ctx, cancel := context.WithTimeout(ctx, exampleTime)
	defer cancel()
	for _, f := range flows {
		e.syncViewErrors(f, func(target *pgerr.Error) *ErrorExample {
			return e.exampleFromTick(ctx, f, target, deltas, reqs)
		})
		for _, st := range e.viewErrs[f.obj.ID] {
			if st.example != nil && deletes(deltas[st.example.Input], st.example.Row) {
				st.example = nil
			}
		}
	}
	e.publishErrorInfo()
}

// trackHydratedErrors records the errors a view is in once it is built:
// their examples are found among all the rows of its inputs.
func (e *Engine) trackHydratedErrors(ctx context.Context, f *flow) {
	if f.out == nil || f.sub != nil || len(f.out.Errors()) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, exampleTime)
	defer cancel()
	var cands []candidate
	e.syncViewErrors(f, func(target *pgerr.Error) *ErrorExample {
		if ex := e.inheritedExample(f, target); ex != nil {
			return ex
		}
		if cands == nil {
			var ok bool
			if cands, ok = e.inputRows(f, nil, exampleRows); !ok {
				return nil
			}
		}
		return e.search(ctx, f, target, cands, nil)
	})
	e.publishErrorInfo()
}

// syncViewErrors makes the record of f's errors match its error
// collection, calling find for each error that is new.
func (e *Engine) syncViewErrors(f *flow, find func(*pgerr.Error) *ErrorExample) {
	errs := f.out.Errors()
	id := f.obj.ID
	if len(errs) == 0 {
		delete(e.viewErrs, id)
		return
	}
	old := e.viewErrs[id]
	states := make(map[string]*viewErrorState, len(errs))
	for _, u := range errs {
		k := errorKey(u.Err)
		st := old[k]
		if st == nil {
			st = &viewErrorState{since: time.Now(), example: find(u.Err)}
		}
		states[k] = st
	}
	e.viewErrs[id] = states
}

// candidate is an input row a search may feed: the object it is a row
// of and the row.
type candidate struct {
	input uint64
	row   types.Row
}

// exampleFromTick finds an example of a new error among the rows the
// tick added to f's inputs, and where the row came from.
func (e *Engine) exampleFromTick(ctx context.Context, f *flow, target *pgerr.Error, deltas map[uint64]dataflow.Batch, reqs []*coordReq) *ErrorExample {
	if ex := e.inheritedExample(f, target); ex != nil {
		return ex
	}
	var cands []candidate
	for id := range f.inputs {
		for _, u := range deltas[id] {
			if u.Diff > 0 && len(cands) < exampleRows {
				cands = append(cands, candidate{id, u.Row})
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	ex := e.search(ctx, f, target, cands, nil)
	if ex == nil {
		// The rows may fail only with rows of the inputs the tick did
		// not change (a join's other side): feed those whole when they
		// are few.
		changed := map[uint64]bool{}
		for _, c := range cands {
			changed[c.input] = true
		}
		if others, ok := e.inputRows(f, changed, exampleOthers); ok && len(others) > 0 {
			ex = e.search(ctx, f, target, cands, others)
		}
	}
	if ex != nil {
		locate(ex, reqs)
	}
	return ex
}

// inheritedExample is the example of target in a view f reads, if that
// view is in the same error.
func (e *Engine) inheritedExample(f *flow, target *pgerr.Error) *ErrorExample {
	k := errorKey(target)
	for id := range f.inputs {
		if st := e.viewErrs[id][k]; st != nil && st.example != nil {
			return st.example
		}
	}
	return nil
}

// inputRows reads the rows of f's inputs, except those in skip, up to
// limit rows; ok is false past the limit.
func (e *Engine) inputRows(f *flow, skip map[uint64]bool, limit int) ([]candidate, bool) {
	var out []candidate
	for id := range f.inputs {
		if skip[id] {
			continue
		}
		if t, ok := e.tables[id]; ok {
			snap := t.snapshot()
			if len(out)+snap.SizeHint() > limit {
				return nil, false
			}
			err := snap.Scan(func(_ string, row types.Row) bool {
				out = append(out, candidate{id, row})
				return len(out) <= limit
			})
			if err != nil || len(out) > limit {
				return nil, false
			}
			continue
		}
		src := e.flowByID(id)
		if src == nil || src.out == nil {
			return nil, false
		}
		snap := src.out.Snapshot()
		if len(out)+snap.Len() > limit {
			return nil, false
		}
		err := snapshotRows(snap, func(row types.Row, n int64) {
			for ; n > 0; n-- {
				out = append(out, candidate{id, row})
			}
		})
		if err != nil || len(out) > limit {
			return nil, false
		}
	}
	return out, true
}

// search finds one of cands that, with others, makes f's plan fail with
// target, halving cands while one half still does; nil when none does
// by itself, or the search ran out of time.
func (e *Engine) search(ctx context.Context, f *flow, target *pgerr.Error, cands, others []candidate) *ErrorExample {
	// An error that no input row causes (a global aggregate over no
	// rows, a constant) has no example.
	if f.plan == nil || len(cands) == 0 || !e.fails(ctx, f, target, cands, others) {
		return nil
	}
	for len(cands) > 1 {
		half, rest := cands[:len(cands)/2], cands[len(cands)/2:]
		switch {
		case e.fails(ctx, f, target, half, others):
			cands = half
		case e.fails(ctx, f, target, rest, others):
			cands = rest
		default:
			return nil
		}
	}
	return &ErrorExample{Input: cands[0].input, Row: ownRow(cands[0].row)}
}

// fails reports whether a one-tick dataflow of f's plan over rows fails
// with target.
func (e *Engine) fails(ctx context.Context, f *flow, target *pgerr.Error, rows, others []candidate) bool {
	if ctx.Err() != nil {
		return false
	}
	t := &flow{obj: f.obj, graph: dataflow.NewGraph(), inputs: map[uint64]*dataflow.Input{}}
	out, err := e.lowerView(t, f.plan)
	if err != nil {
		return false
	}
	batches := map[uint64]dataflow.Batch{}
	for _, set := range [][]candidate{rows, others} {
		for _, c := range set {
			batches[c.input] = append(batches[c.input], dataflow.Update{Row: c.row, Diff: 1})
		}
	}
	for id, b := range batches {
		if in, ok := t.inputs[id]; ok {
			in.Push(b)
		}
	}
	if err := t.graph.Step(ctx); err != nil {
		return false
	}
	k := errorKey(target)
	for _, u := range out.Errors() {
		if u.Diff > 0 && errorKey(u.Err) == k {
			return true
		}
	}
	return false
}

// deletes reports whether a delta deletes row.
func deletes(d dataflow.Batch, row types.Row) bool {
	for _, u := range d {
		if u.Diff < 0 && types.CompareRows(u.Row, row) == 0 {
			return true
		}
	}
	return false
}

// locate finds where an example row came from: the source batch of the
// tick that carried it, if its source tells (sources.Batch.Origins).
func locate(ex *ErrorExample, reqs []*coordReq) {
	for _, r := range reqs {
		if r.source == nil {
			continue
		}
		for i, out := range r.source.outputs {
			if out != ex.Input || i >= len(r.batch.Changes) || i >= len(r.batch.Origins) {
				continue
			}
			origins := r.batch.Origins[i]
			for j, c := range r.batch.Changes[i] {
				if j < len(origins) && c.Row != nil && types.CompareRows(c.Row, ex.Row) == 0 {
					ex.Located, ex.Partition, ex.Offset = true, origins[j].Partition, origins[j].Offset
					return
				}
			}
		}
	}
}

// ownRow copies a row out of the memory it shares with a batch, so that
// keeping it keeps nothing else alive.
func ownRow(r types.Row) types.Row {
	out, err := types.DecodeRow(types.AppendRow(nil, r), nil)
	if err != nil {
		return r.Copy()
	}
	return out
}
