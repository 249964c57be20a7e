package dataflow

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"unsafe"

	"github.com/streamdb/streamdb/types"
)

// KeyFunc extracts a join key from a row. It returns false when the key
// holds a NULL: under SQL equality such a row matches nothing. A nil
// KeyFunc stands for the empty key, which every row has. The key is
// encoded before the next call, so it may be a slice of the row or a
// buffer the KeyFunc reuses.
type KeyFunc func(types.Row) (types.Row, bool)

// JoinSpec describes an inner equi-join. Rows match when their keys have
// the same memcomparable encoding: equal under types.Compare column by
// column and of the same family, so the planner casts both sides' key
// columns to one type (int4 against int8 does not match as is). When both
// keys are empty (or nil) every pair matches: a cross join. Output builds
// the result row of a matching pair; it must not modify l or r, and may
// return them or share their Datums.
type JoinSpec struct {
	LeftKey, RightKey KeyFunc
	Output            func(l, r types.Row) types.Row
	// LeftKeep and RightKeep, when set, are the only columns of each
	// side's rows that Output reads: the arrangements store the others
	// as NULL. The state of a join is every row of both inputs, and its
	// consumers often read a few narrow columns of wide rows (an
	// auction's category and times, not its description), so storing,
	// and decoding at every match, only those shrinks both.
	LeftKeep, RightKeep []int
	// LeftExpire and RightExpire, when set, forget the rows of a side
	// that can match no row still to come (see RowExpiry).
	LeftExpire, RightExpire *RowExpiry
}

// Join returns the inner equi-join of left and right.
//
// Join is bilinear, and both sides are arranged by key (state: every row
// of both inputs, encoded, in hash tables). Per tick,
//
//	Δ(A ⋈ B) = ΔA ⋈ B + A ⋈ ΔB + ΔA ⋈ ΔB = ΔA ⋈ B_old + A_new ⋈ ΔB
//
// so the cost of a tick is the size of the deltas plus the number of
// matches they produce, independent of the size of A and B. A match's
// weight is the product of the weights.
//
//	left:   +(1, a)                 +(2, c)
//	right:  +(1, x) +(1, y)         -(1, x) +(2, z)
//	output: +(1,a,1,x) +(1,a,1,y)   -(1,a,1,x) +(2,c,2,z)
func (g *Graph) Join(left, right Node, spec JoinSpec) Node {
	out := new(stream)
	seed := maphash.MakeSeed()
	op := &joinOp{
		g: g, left: g.input(left), right: g.input(right), out: out, spec: spec,
		la: newArrangement(seed), ra: newArrangement(seed), built: -1, sk: g.stateKeys(),
	}
	op.la.persistAs(op.sk, 0)
	op.ra.persistAs(op.sk, 1)
	return g.add(op, out)
}

type joinOp struct {
	g                *Graph
	left, right, out *stream
	spec             JoinSpec
	la, ra           *arrangement
	keys             keyBatch
	vbuf             []byte
	kept             types.Row
	decoded          [2]decodeCache // of the left and the right rows; see decodeArranged
	slab             rowSlab
	build            deltaIndex
	// held keeps each side's chunks in a final step until one side is
	// complete, built is that side (-1 before), and heldBytes estimates
	// what held's rows hold; held counts by its capacity, which a
	// growing side's next append takes again while the old array is
	// still live.
	held      [2]Batch
	built     int
	heldBytes [2]int64
	sk        *stateKeys
	// expiring holds the rows of each side (left, right) that expire,
	// when the side has a RowExpiry.
	expiring [2]expiringRows
	// derived marks the sides whose arrangement is derived state (see
	// derive.go): not persisted, rebuilt at restore.
	derived [2]bool
}

var _ operator = (*joinOp)(nil)

func (op *joinOp) Name() string { return "Join" }

// Step processes all of the left delta against B_old, then the right
// delta against A_new, which yields exactly the three terms of the
// bilinear delta; or, when the right delta is the smaller, the right
// delta against A_old, then the left against B_new, which yields them as
// well. The pairs of two rows arriving in one tick (ΔA ⋈ ΔB) are then
// found by the larger delta's rows, and decode the smaller delta's, now
// arranged: of a tick's new auctions and their bids (Nexmark q20), the
// few auctions, decoded once each, not every bid. Each delta goes in
// chunks: the keys of a chunk are
// encoded and hashed first and their table slots touched, so that the
// cache misses of a chunk overlap instead of queueing.
//
// When both arrangements are empty (the first tick of a view's
// hydration) the delta is ΔA ⋈ ΔB alone, and a hash join of the two
// deltas computes it without encoding or decoding a row; the deltas are
// then arranged for later ticks.
func (op *joinOp) Step(ctx context.Context) error {
	op.out.passErrors(op.left, op.right)
	if err := op.step(ctx); err != nil {
		return err
	}
	op.expire()
	return nil
}

func (op *joinOp) step(ctx context.Context) error {
	if op.la.tab.live == 0 && op.ra.tab.live == 0 {
		if err := op.hashJoin(ctx, op.left.delta, op.right.delta); err != nil {
			return err
		}
		op.arrange(op.left.delta, op.spec.LeftKey, op.la, false)
		op.arrange(op.right.delta, op.spec.RightKey, op.ra, true)
		return nil
	}
	if len(op.right.delta) < len(op.left.delta) {
		if err := op.side(ctx, op.right.delta, op.spec.RightKey, op.ra, op.la, true); err != nil {
			return err
		}
		return op.side(ctx, op.left.delta, op.spec.LeftKey, op.la, op.ra, false)
	}
	if err := op.side(ctx, op.left.delta, op.spec.LeftKey, op.la, op.ra, false); err != nil {
		return err
	}
	return op.side(ctx, op.right.delta, op.spec.RightKey, op.ra, op.la, true)
}

// absorb takes a chunk of one side in a final step, where the join is a
// hash join of its two inputs and arranges neither. Until one side is
// complete, chunks are kept; once one is (see inputDone), it is the
// hash table's, and each chunk of the other probes it as it comes, so
// that a join streams its larger input when that one is read last.
func (op *joinOp) absorb(ctx context.Context, slot int) error {
	in := op.left
	if slot == 1 {
		in = op.right
	}
	op.out.passErrors(in)
	if op.built >= 0 {
		if op.built == slot {
			return errAfterDone
		}
		return op.probe(ctx, in.delta, op.held[op.built], op.built == 0)
	}
	op.held[slot] = append(op.held[slot], in.delta...)
	for _, u := range in.delta {
		op.heldBytes[slot] += rowBytes(u.Row)
	}
	return nil
}

// inputDone builds the hash table of the first side complete and probes
// it with the chunks of the other side kept so far. A side that is
// complete and empty matches nothing: the other side is dropped as it
// comes.
func (op *joinOp) inputDone(ctx context.Context, slot int) error {
	if op.built >= 0 {
		return nil
	}
	op.built = slot
	other := 1 - slot
	op.buildIndex(op.held[slot], slot == 0)
	err := op.probe(ctx, op.held[other], op.held[slot], slot == 0)
	op.held[other], op.heldBytes[other] = nil, 0
	return err
}

// finish ends a final step's join: everything was matched as it came.
func (op *joinOp) finish(context.Context) error {
	if op.g.fin.running {
		op.build.reset()
		op.held, op.heldBytes = [2]Batch{}, [2]int64{}
	}
	return nil
}

// errAfterDone reports a chunk on an input that said it was complete.
var errAfterDone = errors.New("chunk after the input's end")

// maxDecoded bounds the rows a decodeCache remembers: enough for the
// keys a few ticks match, not a copy of a hydration's state.
const maxDecoded = 4096

// decodeCache holds decoded rows of one side's arrangement by the address
// of their stored form, as of the table generation gen; bytes estimates
// the rows' memory and their entries.
type decodeCache struct {
	rows  map[*byte]types.Row
	gen   uint64
	bytes int64
}

// sizeDecodedEntry estimates a decodeCache entry beside its row (see
// rowBytes): the key and the map's share per entry.
const sizeDecodedEntry = 8 + 16

// decodeArranged decodes a stored row of the other side once while it
// stays where it is: a hot key's row (the auction that half of Nexmark's
// bids go to) matches many rows of one delta, an auction is matched by
// bids of many ticks (q20: 186k matches of 12k auctions, 12k decodes
// with this cache), and decoding it again for each (its strings copied
// each time) cost more than the rest of the join. A stored row's bytes
// never change in place, and its address is not reused for another row
// until its table reclaims a segment, which changes the table's
// generation (see side); a row that moved is a miss, and the entry of
// its old address, which the map's key keeps from being freed, is never
// asked for again.
func (op *joinOp) decodeArranged(c *decodeCache, stored []byte) (types.Row, error) {
	p := unsafe.SliceData(stored)
	if r, ok := c.rows[p]; ok {
		return r, nil
	}
	r, err := op.slab.decode(stored)
	if err != nil {
		return nil, err
	}
	if c.rows == nil {
		c.rows = map[*byte]types.Row{}
	}
	if len(c.rows) < maxDecoded {
		c.rows[p] = r
		c.bytes += sizeDecodedEntry + rowBytes(r)
	}
	return r, nil
}

// appendKept appends the stored form of a row of one side: the columns
// of the side's Keep, the others NULL.
func (op *joinOp) appendKept(dst []byte, r types.Row, right bool) []byte {
	keep := op.spec.LeftKeep
	if right {
		keep = op.spec.RightKeep
	}
	if keep == nil {
		return appendRowValue(dst, r)
	}
	op.kept = append(op.kept[:0], make(types.Row, len(r))...)
	for _, c := range keep {
		op.kept[c] = r[c]
	}
	return appendRowValue(dst, op.kept)
}

func (op *joinOp) side(ctx context.Context, delta Batch, keyFn KeyFunc, own, other *arrangement, fromRight bool) error {
	c, keep := &op.decoded[0], op.spec.RightKeep
	if !fromRight {
		c, keep = &op.decoded[1], op.spec.LeftKeep
	}
	if gen := other.tab.gen; c.gen != gen || len(c.rows) >= maxDecoded {
		// Clearing a map costs its capacity: skip it when it is
		// empty.
		if len(c.rows) > 0 {
			clear(c.rows)
		}
		c.gen, c.bytes = gen, 0
	}
	for start := 0; start < len(delta); start += keyBatchSize {
		// A join's output can dwarf its input (a cross join): let a
		// canceled query stop here rather than at the end of the tick.
		if err := ctx.Err(); err != nil {
			return err
		}
		chunk := delta[start:min(start+keyBatchSize, len(delta))]
		op.keys.load(chunk, keyFn, own.tab)
		op.keys.touch(own.tab, other.tab)
		op.keys.touchStrings(chunk, keep)
		for j, u := range chunk {
			key, h, ok := op.keys.get(j)
			if !ok {
				continue
			}
			for it := other.get(key, h); it.next(); {
				r, err := op.decodeArranged(c, it.row)
				if err != nil {
					return fmt.Errorf("corrupt arranged row: %w", err)
				}
				var res types.Row
				if fromRight {
					res = op.spec.Output(r, u.Row)
				} else {
					res = op.spec.Output(u.Row, r)
				}
				if res == nil {
					continue
				}
				op.out.delta = append(op.out.delta, Update{Row: res, Diff: u.Diff * it.n})
			}
			op.vbuf = op.appendKept(op.vbuf[:0], u.Row, fromRight)
			own.update(key, h, op.vbuf, u.Diff)
			op.track(u, key, h, fromRight)
		}
	}
	return nil
}

func (op *joinOp) StateBytes() int64 {
	n := op.la.size() + op.ra.size() + op.decoded[0].bytes + op.decoded[1].bytes + op.heldBytes[0] + op.heldBytes[1] +
		int64(cap(op.held[0])+cap(op.held[1]))*sizeUpdate + op.expiring[0].bytes + op.expiring[1].bytes
	if op.built >= 0 {
		n += op.build.size()
	}
	return n
}

// A join persists its two arrangements, the left as structure 0 and the
// right as 1, but for a side whose arrangement is derived.

func (op *joinOp) persists() error { return nil }

func (op *joinOp) stateShape() string {
	s := fmt.Sprintf("arranged/1 keep %v %v", op.spec.LeftKeep, op.spec.RightKeep)
	if op.derived != [2]bool{} {
		s += fmt.Sprintf(" derived %v %v", op.derived[0], op.derived[1])
	}
	return s
}

func (op *joinOp) restore(_ context.Context, r StateReader) error {
	if !op.derived[0] {
		if err := op.la.restore(r); err != nil {
			return err
		}
	}
	if !op.derived[1] {
		if err := op.ra.restore(r); err != nil {
			return err
		}
	}
	return op.rebuildExpiry()
}

// evalKey applies a KeyFunc, nil meaning the empty key.
func evalKey(fn KeyFunc, r types.Row) (types.Row, bool) {
	if fn == nil {
		return nil, true
	}
	return fn(r)
}
