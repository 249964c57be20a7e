package dataflow

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/streamdb/streamdb/types"
)

// PersistentState is an AggState that a persisted Reduce can write out
// and read back (see Graph.Persist): AppendState encodes the state, and
// LoadState, called on a fresh state, makes it the encoded one. A state
// that holds a collection of the group's values (min and max under
// retraction, DISTINCT, ordered aggregates) implements ElementState too,
// so that a tick writes the elements it changed rather than the whole
// collection; AppendState then encodes the rest of the state alone.
type PersistentState interface {
	AggState
	AppendState(dst []byte) []byte
	LoadState(src []byte) error
}

// ElementState is a PersistentState holding a collection of elements,
// each identified by a key and counted. Once TrackElements was called,
// the state records which elements its Updates change; DrainElements
// reports each changed element with its count (0 when it left) and its
// payload, and forgets them. LoadElement puts an element back into a
// state being restored, after LoadState.
type ElementState interface {
	PersistentState
	TrackElements()
	DrainElements(fn func(key []byte, n int64, payload []byte))
	LoadElement(key []byte, n int64, payload []byte) error
}

// A Reduce persists each group as structure 0, under its key encoding:
//
//	row count (varint), the flat aggregates' words (varints), the key's
//	columns (a length-prefixed row), each AggState (length-prefixed)
//
// and the elements of its ElementStates as structure 1, under the
// group's key encoding (length-prefixed), the aggregate's index and the
// element's key: count (varint), payload. Both are in the bucket of the
// group's key. Restore rebuilds each group, then finishes them all as
// groups new in one tick, which gives each its output row (and a grouped
// Output its contents) without recomputing an aggregate from its rows.

func (op *reduceOp) persists() error {
	for i, a := range op.spec.Aggs {
		if op.aggs[i].flat != nil {
			continue
		}
		if _, ok := a.NewState().(PersistentState); !ok {
			return fmt.Errorf("the state of aggregate %d (%T) cannot be persisted", i, a.NewState())
		}
	}
	return nil
}

func (op *reduceOp) stateShape() string {
	return fmt.Sprintf("groups/1 keys %d words %d states %d", len(op.spec.KeyCols), op.stride, op.nstates)
}

// persistTouched writes the state of every group the tick's delta
// touched, before finish drops those left without rows.
func (op *reduceOp) persistTouched() {
	if op.wordsMode {
		for i := range op.wchanges {
			op.persistGroup(op.wchanges[i].pos)
		}
		return
	}
	for i := range op.touched {
		op.persistGroup(op.touched[i].pos)
	}
}

// keyEnc returns the key encoding of the group at pos, valid until the
// next call.
func (op *reduceOp) keyEnc(pos int32) []byte {
	if op.keyed {
		return stored(op.groups.at(pos).kenc)
	}
	op.kbuf = types.AppendKeyRow(op.kbuf[:0], op.index.keys[pos])
	return op.kbuf
}

// persistGroup writes the group at pos, or deletes it when it is gone.
func (op *reduceOp) persistGroup(pos int32) {
	grp := op.groups.at(pos)
	kenc := op.keyEnc(pos)
	sk := op.sk
	k := append(sk.start(0, kenc), kenc...)
	sk.key = k
	states := grp.states(op.nstates)
	if grp.n == 0 && !op.exists(pos) {
		sk.del(k)
		if op.elements {
			for _, st := range states {
				if es, ok := st.(ElementState); ok {
					es.DrainElements(func([]byte, int64, []byte) {})
				}
			}
			sk.delPrefix(appendLen(sk.start(1, kenc), kenc))
		}
		return
	}
	v := binary.AppendVarint(sk.val[:0], grp.n)
	if op.stride > 0 {
		for _, w := range op.words(pos) {
			v = binary.AppendVarint(v, w)
		}
	}
	op.rbuf = types.AppendRow(op.rbuf[:0], op.index.keys[pos])
	v = appendLen(v, op.rbuf)
	for _, st := range states {
		op.rbuf = st.(PersistentState).AppendState(op.rbuf[:0])
		v = appendLen(v, op.rbuf)
	}
	sk.val = v
	sk.set(k, v)
	if !op.elements {
		return
	}
	for i, st := range states {
		es, ok := st.(ElementState)
		if !ok {
			continue
		}
		es.DrainElements(func(key []byte, n int64, payload []byte) {
			ek := append(append(appendLen(sk.start(1, kenc), kenc), byte(i)), key...)
			sk.key = ek
			if n == 0 {
				sk.del(ek)
				return
			}
			sk.val = append(binary.AppendVarint(sk.val[:0], n), payload...)
			sk.set(ek, sk.val)
		})
	}
}

// persistExpired deletes the persisted state of the group at pos, which
// expire forgets: a restart must not bring a closed group back.
func (op *reduceOp) persistExpired(pos int32) {
	kenc := op.keyEnc(pos)
	sk := op.sk
	k := append(sk.start(0, kenc), kenc...)
	sk.key = k
	sk.del(k)
	if op.elements {
		sk.delPrefix(appendLen(sk.start(1, kenc), kenc))
	}
}

// trackElements starts the change tracking of a new group's states when
// the graph persists.
func (op *reduceOp) trackElements(states []AggState) {
	if !op.elements || op.g.ps == nil {
		return
	}
	for _, st := range states {
		if es, ok := st.(ElementState); ok {
			es.TrackElements()
		}
	}
}

func (op *reduceOp) restore(_ context.Context, r StateReader) error {
	op.started = true
	op.wordsMode = op.keyed && op.nstates == 0 && op.stride <= 2*groupWords && op.g.readers[op.node] == 1
	var byKey map[string]int32
	if op.elements {
		byKey = map[string]int32{}
	}
	global := false
	err := op.sk.scan(r, 0, true, func(kenc, v []byte) error {
		n, v, err := readVarint(v)
		if err != nil {
			return err
		}
		words := make([]int64, op.stride)
		for i := range words {
			if words[i], v, err = readVarint(v); err != nil {
				return err
			}
		}
		enc, v, err := readLen(v)
		if err != nil {
			return err
		}
		key, err := types.DecodeRow(enc, nil)
		if err != nil {
			return err
		}
		if len(key) == 0 {
			key = nil
			global = true
		}
		pos := op.lookup(key, op.index.hash(key))
		grp := op.groups.at(pos)
		grp.n = n
		copy(op.words(pos), words)
		states := grp.states(op.nstates)
		before := statesBytes(states)
		for _, st := range states {
			var b []byte
			if b, v, err = readLen(v); err != nil {
				return err
			}
			if err := st.(PersistentState).LoadState(b); err != nil {
				return err
			}
		}
		if byKey != nil {
			// restoreElements counts the states once their elements
			// are in.
			op.bytes -= before
			byKey[string(kenc)] = pos
		} else {
			op.bytes += statesBytes(states) - before
		}
		op.touch(pos, false)
		return nil
	})
	if err != nil {
		return err
	}
	if op.elements {
		if err := op.restoreElements(r, byKey); err != nil {
			return err
		}
	}
	if op.spec.Global && !global {
		op.touch(op.lookup(nil, op.index.hash(nil)), false)
	}
	if op.keyed && !op.wordsMode {
		op.sortTouched()
	}
	if op.wordsMode {
		op.finishWords()
	}
	for i := range op.touched {
		op.finishTouched(&op.touched[i])
	}
	clear(op.touched)
	op.touched = op.touched[:0]
	clear(op.news)
	return nil
}

// restoreElements loads the elements of the groups' ElementStates,
// finding each group by its key encoding in byKey.
func (op *reduceOp) restoreElements(r StateReader, byKey map[string]int32) error {
	err := op.sk.scan(r, 1, true, func(k, v []byte) error {
		kenc, rest, err := readLen(k)
		if err != nil || len(rest) == 0 {
			return errCorruptState
		}
		pos, ok := byKey[string(kenc)]
		if !ok || int(rest[0]) >= op.nstates {
			return errCorruptState
		}
		es, ok := op.groups.at(pos).states(op.nstates)[rest[0]].(ElementState)
		if !ok {
			return errCorruptState
		}
		n, payload, err := readVarint(v)
		if err != nil {
			return err
		}
		return es.LoadElement(rest[1:], n, payload)
	})
	if err != nil {
		return err
	}
	for _, pos := range byKey {
		states := op.groups.at(pos).states(op.nstates)
		op.bytes += statesBytes(states)
	}
	return nil
}
