package engine

import (
	"encoding/binary"
	"sync"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
)

// seqLogAhead is how many values nextval hands out between durable
// writes, like PostgreSQL's SEQ_LOG_VALS: after a crash the sequence
// resumes past the last logged value, leaving a gap but never repeating
// a value.
const seqLogAhead = 32

// seqState is a sequence's current value. Sequences are not
// transactional: nextval takes a value at once, for every session, and a
// rolled-back transaction does not give it back.
type seqState struct {
	mu     sync.Mutex
	def    catalog.SequenceDef
	last   int64 // the last value returned, or the first to return when !called
	called bool
	logged int64 // values up to here may be returned without a durable write
	hasLog bool
}

// sequences holds the state of every sequence, shared by all sessions.
type sequences struct {
	mu sync.Mutex
	m  map[uint64]*seqState
}

func (s *sequences) get(id uint64) *seqState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[id]
}

func (s *sequences) set(id uint64, st *seqState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[uint64]*seqState{}
	}
	if st == nil {
		delete(s.m, id)
		return
	}
	s.m[id] = st
}

// seqPosition is the durable form of a sequence's state: the value it
// last returned (or logged ahead) and whether it was called.
func seqPosition(v int64, called bool) []byte {
	b := binary.BigEndian.AppendUint64(nil, uint64(v))
	if called {
		return append(b, 1)
	}
	return append(b, 0)
}

// recoverSequence restores a sequence's state from its durable position.
func (e *Engine) recoverSequence(o *catalog.Object) error {
	st := &seqState{def: *o.Sequence, last: o.Sequence.Start}
	err := e.store.Positions(o.ID, func(_ string, pos []byte) error {
		if len(pos) != 9 {
			return pgerr.New(pgerr.DataCorrupted, "sequence %q: bad stored position", o.Name)
		}
		st.last, st.called = int64(binary.BigEndian.Uint64(pos)), pos[8] == 1
		return nil
	})
	if err != nil {
		return err
	}
	if st.called {
		st.logged, st.hasLog = st.last, true
	}
	e.seqs.set(o.ID, st)
	return nil
}

// persist writes a sequence's position durably.
func (e *Engine) persistSequence(id uint64, v int64, called bool) error {
	b := e.store.NewBatch()
	b.SetPosition(id, "", seqPosition(v, called))
	return b.Commit()
}

// saveSequences writes every sequence's exact state, so that after a
// clean shutdown sequences resume where they stopped; after a crash they
// resume past the value logged ahead.
func (e *Engine) saveSequences() error {
	e.seqs.mu.Lock()
	defer e.seqs.mu.Unlock()
	b := e.store.NewBatch()
	for id, st := range e.seqs.m {
		st.mu.Lock()
		b.SetPosition(id, "", seqPosition(st.last, st.called))
		st.mu.Unlock()
	}
	return b.Commit()
}

// Nextval advances a sequence and returns its new value.
func (e *Engine) Nextval(o *catalog.Object) (int64, error) {
	st := e.seqs.get(o.ID)
	if st == nil {
		return 0, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", o.Name)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	d := st.def
	v := st.last
	if st.called {
		var ok bool
		v, ok = addBounded(st.last, d.Increment, d.Min, d.Max)
		if !ok {
			if !d.Cycle {
				limit, which := d.Max, "maximum"
				if d.Increment < 0 {
					limit, which = d.Min, "minimum"
				}
				return 0, pgerr.New(pgerr.SequenceGeneratorLimitExceeded, "nextval: reached %s value of sequence %q (%d)", which, o.Name, limit)
			}
			v = d.Min
			if d.Increment < 0 {
				v = d.Max
			}
		}
	}
	if !st.hasLog || !withinLog(v, st.logged, d.Increment) {
		ahead, ok := addBounded(v, d.Increment*(seqLogAhead-1), d.Min, d.Max)
		if !ok {
			ahead = v
		}
		if err := e.persistSequence(o.ID, ahead, true); err != nil {
			return 0, err
		}
		st.logged, st.hasLog = ahead, true
	}
	st.last, st.called = v, true
	return v, nil
}

// withinLog reports whether v lies before or at the logged value in the
// sequence's direction.
func withinLog(v, logged, inc int64) bool {
	if inc > 0 {
		return v <= logged
	}
	return v >= logged
}

// addBounded returns v+inc when it stays within [lo, hi].
func addBounded(v, inc, lo, hi int64) (int64, bool) {
	if inc > 0 && v > hi-inc || inc < 0 && v < lo-inc {
		return 0, false
	}
	r := v + inc
	return r, r >= lo && r <= hi
}

// Setval sets a sequence's value: the next nextval returns v+increment
// when called, v itself otherwise.
func (e *Engine) Setval(o *catalog.Object, v int64, called bool) error {
	st := e.seqs.get(o.ID)
	if st == nil {
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", o.Name)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if v < st.def.Min || v > st.def.Max {
		return pgerr.New(pgerr.NumericValueOutOfRange, "setval: value %d is out of bounds for sequence %q (%d..%d)", v, o.Name, st.def.Min, st.def.Max)
	}
	if err := e.persistSequence(o.ID, v, called); err != nil {
		return err
	}
	st.last, st.called = v, called
	st.logged, st.hasLog = v, called
	return nil
}
