package dataflow

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"

	"github.com/streamdb/streamdb/pgerr"
)

// # Persisted state
//
// A graph can write every change of its operators' state to a
// StateWriter as it steps (Persist), and a graph built again from the
// same plan can load that state back (Restore) instead of recomputing
// it from its inputs: a restart then costs the size of the state, not
// the history that made it. The engine writes each tick's state changes
// in the tick's own store batch, so the persisted state is always that
// of the last durable tick.
//
// What an operator persists is the smallest description of its state
// that it can rebuild from, in a layout of its own, each entry keyed
//
//	[operator 2 bytes][structure 1 byte][bucket 2 bytes][…]
//
// operator being the operator's position in the graph and structure one
// of its state's parts (a join's two arrangements). bucket is the top 16
// bits of the CRC-32C of the part's key: a join key, a group key, a
// partition key, a distinct row. Entries of one key share a bucket, so
// a worker that owns a range of buckets finds every entry it needs in
// one key range of each structure; data-parallel workers can split the
// persisted state by key hash without rewriting it. An Output's rows
// are the one exception: they are kept in key order without a bucket, a
// view being read whole and loaded fastest in order; split among
// workers, an Output is cut into key ranges instead.
//
//	Join, SemiJoin left   arrangement rows: (key, row) → multiplicity
//	                      (see arrangement.persist)
//	SemiJoin right        key → count of right rows
//	Threshold, Distinct   row → its two counts and stored form
//	Reduce                group → row count, flat words, aggregate
//	                      states (PersistentState); elements of
//	                      collection states (ElementState) apart
//	TopK, Window          (group, row) → multiplicity: the input
//	MonotonicTopK         group → its kept window
//	Output, Index         row → multiplicity (and its stored form, unless
//	                      its key determines it), and the error collection
//	Recursive             accumulated inputs and result, and each copy
//	                      of its step's graph (recursive_persist.go)
//
// A join side or an Output that only accumulates stored tables persists
// nothing: its state is derived from the tables at restore (derive.go).
//
// Every value is varints and value-encoded rows (types.AppendRow), so a
// layout does not depend on the machine. A graph's StateShape names the
// operators and their layouts; the engine stores it with the state and
// rebuilds a view whose plan no longer builds the same shape.

// StateWriter receives the changes of a graph's persisted state. key and
// value are only valid during the call.
type StateWriter interface {
	Set(key, value []byte)
	Delete(key []byte)
	// DeleteRange deletes every key in [start, end).
	DeleteRange(start, end []byte)
}

// StateReader reads a graph's persisted state back for Restore.
type StateReader interface {
	// Scan calls fn, in key order, for every entry whose key starts with
	// prefix; key (whole, prefix included) and value are only valid
	// during the call.
	Scan(prefix []byte, fn func(key, value []byte) error) error
}

// Persist makes the graph write every change of its operators' state to
// w. It must be called before the graph's first Step (or Restore), so
// that every change is written. Only a graph whose every stateful
// operator persists may persist (see Persistable).
func (g *Graph) Persist(w StateWriter) {
	if g.tick != 0 {
		panic("dataflow: Persist after the graph's first step")
	}
	g.ps, g.derive = w, nil
	if w != nil {
		g.planDerived()
	}
}

// persistent is an operator that keeps state across ticks and can
// persist it; stateless operators do not implement it.
type persistent interface {
	operator
	// persists returns nil when the operator can persist its state, or
	// the reason it cannot.
	persists() error
	// stateShape names the layout of the operator's persisted state.
	stateShape() string
	// restore loads the operator's persisted state. It emits nothing
	// downstream, except what a grouped Output needs of its Reduce.
	restore(ctx context.Context, r StateReader) error
}

// stateless marks the operators that keep nothing between ticks.
type stateless interface {
	operator
	stateless()
}

func (*inputOp) stateless()   {}
func (*filterOp) stateless()  {}
func (*mapOp) stateless()     {}
func (*flatMapOp) stateless() {}
func (*unionOp) stateless()   {}
func (*negateOp) stateless()  {}
func (*collectOp) stateless() {}

// Persistable returns nil when every stateful operator of the graph can
// persist its state, or the reason one cannot.
func (g *Graph) Persistable() error {
	for _, op := range g.ops {
		switch p := op.(type) {
		case stateless:
		case persistent:
			if err := p.persists(); err != nil {
				return fmt.Errorf("%s: %w", op.Name(), err)
			}
		default:
			return fmt.Errorf("%s keeps state that is not persisted", op.Name())
		}
	}
	return nil
}

// StateShape describes the graph's persisted state: its operators in
// order with their layouts. Two graphs of the same shape read each
// other's state.
func (g *Graph) StateShape() string {
	var b strings.Builder
	for i, op := range g.ops {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(op.Name())
		if p, ok := op.(persistent); ok {
			b.WriteByte('(')
			b.WriteString(p.stateShape())
			b.WriteByte(')')
		}
	}
	return b.String()
}

// Restore loads the graph's state from r, as an earlier graph of the
// same shape persisted it, in place of the ticks that built it: the
// graph must be new (never stepped). Nothing is written to the graph's
// StateWriter meanwhile, but a graph that is to persist its later
// changes must Persist before it restores. A failed Restore poisons the
// graph.
func (g *Graph) Restore(ctx context.Context, r StateReader) error {
	if g.err != nil {
		return g.err
	}
	if g.tick != 0 {
		return errors.New("dataflow: Restore of a graph already stepped")
	}
	if err := g.Persistable(); err != nil {
		return err
	}
	g.tick++
	g.restoring = true
	defer func() { g.restoring = false }()
	for i, op := range g.ops {
		if err := ctx.Err(); err != nil {
			g.err = fmt.Errorf("dataflow: restore canceled: %w", err)
			return g.err
		}
		g.streams[i].reset()
		if in, ok := op.(*inputOp); ok {
			// What was staged before the restore (a VALUES list's rows,
			// pushed when the plan was lowered) is in the restored state
			// already.
			in.in.pending, in.in.pendingErrs, in.in.borrowed = nil, nil, nil
		}
		p, ok := op.(persistent)
		if !ok {
			continue
		}
		if err := p.restore(ctx, r); err != nil {
			g.err = fmt.Errorf("dataflow: restore %s: %w", op.Name(), err)
			return g.err
		}
	}
	for _, s := range g.streams {
		s.reset()
	}
	g.restored = true
	return nil
}

// flushState persists what operators gather during a Step and persist at
// its end.
func (g *Graph) flushState() {
	for _, a := range g.appending {
		a.flushAppends()
	}
	clear(g.appending)
	g.appending = g.appending[:0]
}

// stateKeys is an operator's access to its graph's persisted state: it
// builds the operator's keys and hands changes to the graph's writer.
type stateKeys struct {
	g   *Graph
	op  uint16
	key []byte
	val []byte
	end []byte
}

// stateKeys returns the keys of the operator about to be added.
func (g *Graph) stateKeys() *stateKeys { return &stateKeys{g: g, op: uint16(len(g.ops))} }

// on reports whether the graph persists its state changes now: it does
// not write what Restore loads.
func (k *stateKeys) on() bool { return k != nil && k.g.ps != nil && !k.g.restoring }

// prefix returns the prefix of structure sub's keys.
func (k *stateKeys) prefix(sub byte) []byte {
	return []byte{byte(k.op >> 8), byte(k.op), sub}
}

// start begins a key of structure sub in the bucket of part, in k.key.
func (k *stateKeys) start(sub byte, part []byte) []byte {
	b := bucketOf(part)
	k.key = append(k.key[:0], byte(k.op>>8), byte(k.op), sub, byte(b>>8), byte(b))
	return k.key
}

// startOrdered begins a key of structure sub without a bucket.
func (k *stateKeys) startOrdered(sub byte) []byte {
	k.key = append(k.key[:0], byte(k.op>>8), byte(k.op), sub)
	return k.key
}

func (k *stateKeys) set(key, val []byte) { k.g.ps.Set(key, val) }

func (k *stateKeys) del(key []byte) { k.g.ps.Delete(key) }

// setCount persists the multiplicity n under key (a varint), or deletes
// the key at 0.
func (k *stateKeys) setCount(key []byte, n int64) {
	if n == 0 {
		k.del(key)
		return
	}
	k.val = binary.AppendVarint(k.val[:0], n)
	k.set(key, k.val)
}

// persistErrors persists, under structure sub in error order, the count
// of each error a Step changed as count gives it (0 once it is gone).
func (k *stateKeys) persistErrors(sub byte, changed []ErrorUpdate, count func(*pgerr.Error) int64) {
	for _, d := range changed {
		key := appendErrorKey(k.startOrdered(sub), d.Err)
		k.key = key
		k.setCount(key, count(d.Err))
	}
}

// delPrefix deletes every key starting with p.
func (k *stateKeys) delPrefix(p []byte) {
	k.end = append(k.end[:0], p...)
	for i := len(k.end) - 1; i >= 0; i-- {
		if k.end[i]++; k.end[i] != 0 {
			k.g.ps.DeleteRange(p, k.end[:i+1])
			return
		}
	}
	k.g.ps.DeleteRange(p, []byte{0xff, 0xff, 0xff})
}

// scan calls fn for every entry of structure sub with the key past its
// bucket (or, for an ordered structure, past sub).
func (k *stateKeys) scan(r StateReader, sub byte, bucketed bool, fn func(key, val []byte) error) error {
	p := k.prefix(sub)
	skip := len(p)
	if bucketed {
		skip += 2
	}
	return r.Scan(p, func(key, val []byte) error {
		if len(key) < skip {
			return errCorruptState
		}
		return fn(key[skip:], val)
	})
}

var errCorruptState = errors.New("corrupt persisted state")

// bucketCRC is the CRC-32C table: Castagnoli is computed in hardware.
var bucketCRC = crc32.MakeTable(crc32.Castagnoli)

// bucketOf returns the bucket of a key: its CRC's top 16 bits, a hash
// fixed for good (unlike the seeded hashes of in-memory tables), since
// the persisted layout depends on it.
func bucketOf(key []byte) uint16 { return uint16(crc32.Checksum(key, bucketCRC) >> 16) }

// appendLen appends b with its length before it.
func appendLen(dst, b []byte) []byte {
	return append(binary.AppendUvarint(dst, uint64(len(b))), b...)
}

// readLen reads a length-prefixed byte string, returning it and the rest.
func readLen(src []byte) ([]byte, []byte, error) {
	n, k := binary.Uvarint(src)
	if k <= 0 || n > uint64(len(src)-k) {
		return nil, nil, errCorruptState
	}
	return src[k : k+int(n)], src[k+int(n):], nil
}

// readVarint reads a varint, returning it and the rest.
func readVarint(src []byte) (int64, []byte, error) {
	v, k := binary.Varint(src)
	if k <= 0 {
		return 0, nil, errCorruptState
	}
	return v, src[k:], nil
}
