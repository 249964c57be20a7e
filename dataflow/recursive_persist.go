package dataflow

import (
	"bytes"
	"context"
	"encoding/binary"
	"slices"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// A Recursive persists what it keeps (see persist.go): the accumulated
// inputs and result it starts new copies from, its errors, whether it
// overflowed, and the state of every copy of the step's graph. Each copy
// is a graph of its own and persists in its own layout, under a prefix
// of the copy's number, so that a restart restores the copies as they
// were instead of iterating the recursion again from its inputs.
//
//	0  base      row → multiplicity (varint), the row's stored form
//	1  external  collection number (2 bytes), row → the same
//	2  result    row → the same
//	3  errors    the copies' errors emitted so far, as an Output's
//	4  meta      (no key) → overflowed (0 or 1), number of copies
//	5  copies    copy number (4 bytes), then the copy's own keys
//
// The rows of 0–2 are bucketed by the hash of their key encoding, and
// each copy's keys after its prefix are bucketed as its graph lays them
// out, so that a worker owning a range of buckets finds its part of a
// copy under each copy's prefix. While the recursion overflows its
// copies are stale, and none is persisted: the next tick after a
// restart recomputes it from the accumulated inputs, as it would have.

// Structures of a Recursive's persisted state.
const (
	recBase byte = iota
	recExt
	recResult
	recErrors
	recMeta
	recCopies
)

func (op *recursiveOp) persists() error { return op.copyPersists }

func (op *recursiveOp) stateShape() string {
	return "acc/1 copies(" + op.copyShape + ")"
}

// persistAcc records the multiplicities that adding b changed in a,
// structure sub (for the external collections, number i).
func (op *recursiveOp) persistAcc(sub byte, i int, a *accumulator, b Batch) {
	if !op.sk.on() {
		return
	}
	for _, u := range b {
		op.kbuf = types.AppendKeyRow(op.kbuf[:0], u.Row)
		k := op.sk.start(sub, op.kbuf)
		if sub == recExt {
			k = binary.BigEndian.AppendUint16(k, uint16(i))
		}
		k = append(k, op.kbuf...)
		op.sk.key = k
		e, ok := a.rows[string(op.kbuf)]
		if !ok {
			op.sk.del(k)
			continue
		}
		op.sk.val = appendRowValue(binary.AppendVarint(op.sk.val[:0], e.Diff), e.Row)
		op.sk.set(k, op.sk.val)
	}
}

// persistResultCleared records that the accumulated result is empty.
func (op *recursiveOp) persistResultCleared() {
	if op.sk.on() {
		op.sk.delPrefix(op.sk.prefix(recResult))
	}
}

// persistTick records the tick's changes of the errors emitted so far
// (changed: the errors the tick emitted), whether the recursion
// overflowed, and how many copies it has. While it overflows its
// copies, stale, are not persisted, nor errors besides the overflow's.
func (op *recursiveOp) persistTick(changed []ErrorUpdate) {
	if !op.sk.on() {
		return
	}
	copies := len(op.copies)
	if op.overflow {
		if !op.meta.overflow {
			op.sk.delPrefix(op.sk.prefix(recErrors))
		}
		// A recomputation that overflowed again wrote copies too.
		op.sk.delPrefix(op.sk.prefix(recCopies))
		copies = 0
	} else {
		op.sk.persistErrors(recErrors, changed, func(err *pgerr.Error) int64 {
			i := slices.IndexFunc(op.errAcc, func(e ErrorUpdate) bool { return compareErrors(e.Err, err) == 0 })
			if i < 0 {
				return 0
			}
			return op.errAcc[i].Diff
		})
	}
	m := recMetaState{overflow: op.overflow, copies: copies, written: true}
	if m == op.meta {
		return
	}
	op.meta = m
	overflow := uint64(0)
	if m.overflow {
		overflow = 1
	}
	op.sk.val = binary.AppendUvarint(binary.AppendUvarint(op.sk.val[:0], overflow), uint64(copies))
	op.sk.set(op.sk.startOrdered(recMeta), op.sk.val)
}

// recMetaState is what a Recursive's meta entry holds, as last written.
type recMetaState struct {
	overflow bool
	copies   int
	written  bool
}

// persistCopy makes a copy, before its first step, persist its state
// under its number k when the operator's graph persists.
func (op *recursiveOp) persistCopy(c *recCopy, k int) {
	if op.g.ps == nil || c.g.ps != nil {
		return
	}
	c.g.Persist(op.copyState(k, nil))
}

// copyState is copy k's part of the operator's persisted state.
func (op *recursiveOp) copyState(k int, r StateReader) *prefixedState {
	p := binary.BigEndian.AppendUint32(op.sk.prefix(recCopies), uint32(k))
	return &prefixedState{w: op.g.ps, r: r, prefix: p}
}

func (op *recursiveOp) restore(ctx context.Context, r StateReader) error {
	accs := []*accumulator{&op.baseAcc, &op.outAcc}
	for i, sub := range []byte{recBase, recResult} {
		if err := op.sk.scan(r, sub, true, func(k, v []byte) error { return restoreAcc(accs[i], k, v) }); err != nil {
			return err
		}
	}
	err := op.sk.scan(r, recExt, true, func(k, v []byte) error {
		if len(k) < 2 || int(binary.BigEndian.Uint16(k)) >= len(op.extAcc) {
			return errCorruptState
		}
		return restoreAcc(&op.extAcc[binary.BigEndian.Uint16(k)], k[2:], v)
	})
	if err != nil {
		return err
	}
	var errs []ErrorUpdate
	err = op.sk.scan(r, recErrors, false, func(k, v []byte) error {
		e, err := readErrorKey(k)
		if err != nil {
			return err
		}
		n, _, err := readVarint(v)
		errs = append(errs, ErrorUpdate{Err: e, Diff: n})
		return err
	})
	if err != nil {
		return err
	}
	op.errAcc = ConsolidateErrors(errs)
	var overflow, copies uint64
	err = op.sk.scan(r, recMeta, false, func(k, v []byte) error {
		var n, m int
		overflow, n = binary.Uvarint(v)
		if n > 0 {
			copies, m = binary.Uvarint(v[n:])
		}
		if len(k) != 0 || n <= 0 || m <= 0 {
			return errCorruptState
		}
		return nil
	})
	if err != nil {
		return err
	}
	op.meta = recMetaState{overflow: overflow == 1, copies: int(copies), written: true}
	if overflow == 1 {
		op.overflow, op.copies = true, nil
		return nil
	}
	if copies == 0 {
		return nil // never stepped: copy 0 starts fresh
	}
	restored := make([]*recCopy, copies)
	for k := range restored {
		c := op.copies[0]
		if k > 0 {
			if c, err = op.newCopy(); err != nil {
				return err
			}
		}
		op.persistCopy(c, k)
		if err := c.g.Restore(ctx, op.copyState(k, r)); err != nil {
			return err
		}
		c.fresh = false
		restored[k] = c
	}
	op.copies = restored
	return nil
}

// restoreAcc loads one persisted row of an accumulator: k is its key
// encoding, v its multiplicity and stored form.
func restoreAcc(a *accumulator, k, v []byte) error {
	n, rest, err := readVarint(v)
	if err != nil {
		return err
	}
	row, err := decodeRowValue(rest, nil)
	if err != nil {
		return err
	}
	if a.rows == nil {
		a.rows = map[string]*Update{}
	}
	a.rows[string(k)] = &Update{Row: row, Diff: n}
	a.bytes += int64(len(k)) + int64(len(row))*sizeDatum
	return nil
}

// prefixedState is the part of a graph's persisted state under prefix,
// seen as the whole persisted state of another graph: a Recursive's
// copy.
type prefixedState struct {
	w      StateWriter
	r      StateReader
	prefix []byte
	buf    []byte
	end    []byte
}

func (p *prefixedState) key(k []byte) []byte {
	p.buf = append(append(p.buf[:0], p.prefix...), k...)
	return p.buf
}

func (p *prefixedState) Set(key, value []byte) { p.w.Set(p.key(key), value) }

func (p *prefixedState) Delete(key []byte) { p.w.Delete(p.key(key)) }

func (p *prefixedState) DeleteRange(start, end []byte) {
	p.end = append(append(p.end[:0], p.prefix...), end...)
	p.w.DeleteRange(p.key(start), p.end)
}

func (p *prefixedState) Scan(prefix []byte, fn func(key, value []byte) error) error {
	return p.r.Scan(append(append([]byte(nil), p.prefix...), prefix...), func(key, value []byte) error {
		if !bytes.HasPrefix(key, p.prefix) {
			return errCorruptState
		}
		return fn(key[len(p.prefix):], value)
	})
}
