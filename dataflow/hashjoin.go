package dataflow

import (
	"bytes"
	"context"
	"math/bits"

	"github.com/streamdb/streamdb/types"
)

// deltaIndex is a hash index over the join keys of one batch, built and
// dropped within a tick: the keys encoded in one buffer and chained by
// hash into heads. A Join whose state is empty uses it to match its two
// deltas directly, with the rows as they are, where the arrangements would
// encode every row of both sides and decode every match.
type deltaIndex struct {
	keys  keyBatch
	heads []int32 // first position per hash bucket, -1 when none
	next  []int32 // next position of the same bucket
}

// build indexes the rows of b by key; NULL keys and zero weights are left
// out, since they match nothing.
func (x *deltaIndex) build(b Batch, keyFn KeyFunc, tab *table) {
	x.keys.load(b, keyFn, tab)
	size := 1 << bits.Len(uint(2*len(b)))
	if cap(x.heads) < size {
		x.heads = make([]int32, size)
	}
	x.heads = x.heads[:size]
	for i := range x.heads {
		x.heads[i] = -1
	}
	if cap(x.next) < len(b) {
		x.next = make([]int32, len(b))
	}
	x.next = x.next[:len(b)]
	mask := uint64(size - 1)
	// In reverse, so that each chain lists its rows in batch order.
	for j := len(b) - 1; j >= 0; j-- {
		if x.keys.ends[j] < 0 || b[j].Diff == 0 {
			continue
		}
		slot := x.keys.hs[j] & mask
		x.next[j] = x.heads[slot]
		x.heads[slot] = int32(j)
	}
}

// first returns the first indexed position whose key may equal key (hash
// h); advance with next and confirm with matches.
func (x *deltaIndex) first(h uint64) int32 { return x.heads[h&uint64(len(x.heads)-1)] }

// matches reports whether position j has key (hash h).
func (x *deltaIndex) matches(j int32, key []byte, h uint64) bool {
	return x.keys.hs[j] == h && bytes.Equal(x.keys.buf[x.keys.starts[j]:x.keys.ends[j]], key)
}

// size returns the bytes the index holds.
func (x *deltaIndex) size() int64 {
	return int64(cap(x.keys.buf)) + int64(cap(x.keys.starts)+cap(x.keys.ends)+cap(x.heads)+cap(x.next))*4 + int64(cap(x.keys.hs))*8
}

// reset drops the index's references to keys so that they do not outlive
// the tick in a long-lived graph.
func (x *deltaIndex) reset() {
	x.keys.buf = x.keys.buf[:0]
	x.keys.starts, x.keys.ends, x.keys.hs = x.keys.starts[:0], x.keys.ends[:0], x.keys.hs[:0]
}

// hashJoin emits ΔA ⋈ ΔB: the smaller delta is indexed by key, the other
// probes the index. Each match's weight is the product of the weights.
func (op *joinOp) hashJoin(ctx context.Context, left, right Batch) error {
	if len(left) == 0 || len(right) == 0 {
		return nil
	}
	buildLeft := len(left) <= len(right)
	build, probe := left, right
	if !buildLeft {
		build, probe = right, left
	}
	op.buildIndex(build, buildLeft)
	defer op.build.reset()
	return op.probe(ctx, probe, build, buildLeft)
}

// buildIndex indexes the rows of one side, the left when buildLeft.
func (op *joinOp) buildIndex(build Batch, buildLeft bool) {
	keyFn := op.spec.RightKey
	if buildLeft {
		keyFn = op.spec.LeftKey
	}
	op.build.build(build, keyFn, op.la.tab)
}

// probe emits the matches of the rows of probe, of the side opposite to
// build, in the index of build. A join's output can dwarf its input (a
// cross join, where each probe row matches thousands): the output is
// flushed as it fills in a final step, and a canceled query stops here,
// every few thousand probe rows or output rows, rather than at the end
// of the tick. The output is never sized from a count of the matches.
func (op *joinOp) probe(ctx context.Context, probe, build Batch, buildLeft bool) error {
	probeKey := op.spec.LeftKey
	if buildLeft {
		probeKey = op.spec.RightKey
	}
	x := &op.build
	flushAt := op.g.chunkSize()
	for start := 0; start < len(probe); start += keyBatchSize {
		chunk := probe[start:min(start+keyBatchSize, len(probe))]
		pk := &op.keys
		pk.load(chunk, probeKey, op.la.tab)
		check := len(op.out.delta) + cancelCheckRows
		if err := ctx.Err(); err != nil {
			return err
		}
		for i := range chunk {
			u := &chunk[i]
			key, h, ok := pk.get(i)
			if !ok || u.Diff == 0 {
				continue
			}
			for j := x.first(h); j >= 0; j = x.next[j] {
				if !x.matches(j, key, h) {
					continue
				}
				b := &build[j]
				var res types.Row
				if buildLeft {
					res = op.spec.Output(b.Row, u.Row)
				} else {
					res = op.spec.Output(u.Row, b.Row)
				}
				if res == nil {
					continue
				}
				op.out.delta = append(op.out.delta, Update{Row: res, Diff: u.Diff * b.Diff})
				if len(op.out.delta) < flushAt {
					continue
				}
				if err := op.out.flushIfFull(ctx); err != nil {
					return err
				}
				if len(op.out.delta) >= check {
					if err := ctx.Err(); err != nil {
						return err
					}
					check = len(op.out.delta) + cancelCheckRows
				}
			}
		}
	}
	return nil
}

// arrange adds a delta of one side to its arrangement without matching
// it.
func (op *joinOp) arrange(delta Batch, keyFn KeyFunc, a *arrangement, right bool) {
	for start := 0; start < len(delta); start += keyBatchSize {
		chunk := delta[start:min(start+keyBatchSize, len(delta))]
		op.keys.load(chunk, keyFn, a.tab)
		op.keys.touch(a.tab)
		for j, u := range chunk {
			key, h, ok := op.keys.get(j)
			if !ok {
				continue
			}
			op.vbuf = op.appendKept(op.vbuf[:0], u.Row, right)
			a.update(key, h, op.vbuf, u.Diff)
		}
	}
}
