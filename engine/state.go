package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/streamdb/streamdb/storage"
)

// stateFormat is the version of the persisted view state's layout: the
// dataflow operators' encodings (dataflow/persist.go) and the header
// below. A store whose state has another format is not read: its views
// are rebuilt from their inputs, and the log says why.
const stateFormat = "2"

// stateFormatKey is the metadata key holding the store's state format.
const stateFormatKey = "state_format"

// stateHeader is what a flow's header says: the format, and a digest of
// the flow's dataflow shape (its operators and their state layouts) and
// of the plan it was lowered from, so that a build whose planner lowers
// the view differently rebuilds it instead of misreading its state.
func stateHeader(shape, plan string) []byte {
	sum := sha256.Sum256([]byte(shape + "\n" + plan))
	return []byte(stateFormat + " " + hex.EncodeToString(sum[:]))
}

// persistFlow makes a new flow persist its state, unless views are
// recomputed or one of its operators cannot persist (the flow is then
// rebuilt from its inputs on every start, as all were before).
func (e *Engine) persistFlow(f *flow, plan string) {
	if e.recompute {
		return
	}
	if err := f.graph.Persistable(); err != nil {
		e.log.Info("view state not persisted; it is rebuilt on start", "object", f.obj.Name, "reason", err.Error())
		return
	}
	for id, in := range f.inputs {
		if t, ok := e.tables[id]; ok && !t.notStored() {
			in.Replayable()
		}
	}
	f.state = &flowState{e: e, id: f.obj.ID}
	f.graph.Persist(f.state)
	f.header = stateHeader(f.graph.StateShape(), plan)
}

// flowState is a flow's dataflow.StateWriter: the state changes of a
// tick go into the tick's batch (Engine.state), those of a hydration
// into batches of their own (spill), committed as they fill.
type flowState struct {
	e     *Engine
	id    uint64
	spill *spillBatch
}

func (w *flowState) batch() *storage.Batch {
	if w.spill != nil {
		return w.spill.batch()
	}
	if w.e.state == nil {
		panic(fmt.Sprintf("engine: flow %d changed its state outside a tick", w.id))
	}
	return w.e.state
}

func (w *flowState) Set(key, value []byte) {
	w.batch().PutState(w.id, key, value)
	w.spill.filled()
}

func (w *flowState) Delete(key []byte) {
	w.batch().DeleteState(w.id, key)
	w.spill.filled()
}

func (w *flowState) DeleteRange(start, end []byte) {
	w.batch().DeleteStateRange(w.id, start, end)
	w.spill.filled()
}

// spillBytes is the size at which a hydration's batch is committed.
const spillBytes = 32 << 20

// spillBatch writes the state a hydration builds, which can be far
// larger than a tick's, in batches committed as they fill: memory holds
// one batch at a time. The state is not a flow's until its header is
// committed (see install), so the batches need not be atomic; a crash
// in between leaves state without header, which the next start drops.
type spillBatch struct {
	store *storage.DB
	b     *storage.Batch
	err   error
}

func (s *spillBatch) batch() *storage.Batch {
	if s.b == nil {
		s.b = s.store.NewBatch()
	}
	return s.b
}

// filled commits the batch once it is full; nil does nothing.
func (s *spillBatch) filled() {
	if s == nil || s.b == nil || s.b.Len() < spillBytes {
		return
	}
	if err := s.b.CommitUnsynced(); err != nil && s.err == nil {
		s.err = err
	}
	s.b = nil
}

// flush commits what is left and returns the first error.
func (s *spillBatch) flush() error {
	if s.b != nil {
		if err := s.b.CommitUnsynced(); err != nil && s.err == nil {
			s.err = err
		}
		s.b = nil
	}
	return s.err
}

// spillTo starts writing f's state to batches of its own, dropping any
// state left under its id (a rebuild's, or an id reused after a failed
// change).
func (f *flow) spillTo(store *storage.DB) *spillBatch {
	s := &spillBatch{store: store}
	s.batch().DropState(f.obj.ID)
	f.state.spill = s
	return s
}

// stateReader reads a flow's persisted state for dataflow.Restore,
// telling job how far it has read every progressEvery entries, and
// stopping there once done is closed (the engine stops).
type stateReader struct {
	store *storage.DB
	job   *hydrationJob
	n     *int
	done  <-chan struct{}
}

var errRestoreStopped = errors.New("restore stopped: the engine is stopping")

// progressEvery is how many entries a restore reads between estimates
// of its progress.
const progressEvery = 1 << 16

func (r stateReader) Scan(prefix []byte, fn func(key, value []byte) error) error {
	id := r.job.f.obj.ID
	return r.store.ScanState(id, prefix, func(k, v []byte) error {
		if *r.n++; *r.n%progressEvery == 0 {
			r.job.setProgress(r.job.stateShare * r.store.StateProgress(id, k))
			select {
			case <-r.done:
				return errRestoreStopped
			default:
			}
		}
		return fn(k, v)
	})
}
