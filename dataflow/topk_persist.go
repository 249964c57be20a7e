package dataflow

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/streamdb/streamdb/types"
)

// A TopK persists its input, every row of every group, as structure 0,
// in the bucket of the group's key:
//
//	[group key encoding, length-prefixed][row key encoding]
//	    → multiplicity (varint), the row's stored form
//
// Which rows are in a group's head and which in its rest is not
// persisted: restore adds the rows as one tick of changes would, and
// the head and rest settle as they do after any tick.

func (op *topKOp) persists() error { return nil }

func (op *topKOp) stateShape() string {
	return fmt.Sprintf("rows/1 offset %d limit %d", op.spec.Offset, op.spec.Limit)
}

// persistRow records that row has multiplicity n in grp (none at 0).
func (op *topKOp) persistRow(grp *topKGroup, row types.Row, n int64) {
	kenc := stored(grp.kenc)
	k := appendLen(op.sk.start(0, kenc), kenc)
	k = types.AppendKeyRow(k, row)
	op.sk.key = k
	if n == 0 {
		op.sk.del(k)
		return
	}
	op.sk.val = appendRowValue(binary.AppendVarint(op.sk.val[:0], n), row)
	op.sk.set(k, op.sk.val)
}

func (op *topKOp) restore(_ context.Context, r StateReader) error {
	m := op.window()
	var slab rowSlab
	var touched []*topKGroup
	err := op.sk.scan(r, 0, true, func(_, v []byte) error {
		n, enc, err := readVarint(v)
		if err != nil {
			return err
		}
		row, err := slab.decode(enc)
		if err != nil {
			return err
		}
		grp := op.lookup(row)
		if grp.tick != op.g.tick {
			grp.tick = op.g.tick
			touched = append(touched, grp)
		}
		op.apply(grp, []topKChange{{item: op.item(row, n), diff: n}}, m)
		return nil
	})
	if err != nil {
		return err
	}
	for _, grp := range touched {
		op.balance(grp, m)
	}
	return nil
}

// A MonotonicTopK persists each group's window as structure 0, in the
// bucket of the group's key: the group key's encoding → each kept row
// in window order, as its multiplicity in the window (varint) and its
// stored form (length-prefixed). A tick rewrites the windows it
// touched, at most m rows each.

func (op *monoTopKOp) persists() error { return nil }

func (op *monoTopKOp) stateShape() string {
	return fmt.Sprintf("windows/1 offset %d limit %d", op.spec.Offset, op.spec.Limit)
}

// persistWindow records a touched group's window.
func (op *monoTopKOp) persistWindow(grp *monoTopKGroup) {
	kenc := stored(grp.kenc)
	k := append(op.sk.start(0, kenc), kenc...)
	op.sk.key = k
	if len(grp.rows) == 0 {
		op.sk.del(k)
		return
	}
	v := op.sk.val[:0]
	for i := range grp.rows {
		r := &grp.rows[i]
		v = binary.AppendVarint(v, r.n)
		op.abuf = appendRowValue(op.abuf[:0], op.keptRow(r.item))
		v = appendLen(v, op.abuf)
	}
	op.sk.val = v
	op.sk.set(k, v)
}

func (op *monoTopKOp) restore(_ context.Context, r StateReader) error {
	return op.sk.scan(r, 0, true, func(_, v []byte) error {
		var grp *monoTopKGroup
		for len(v) > 0 {
			n, rest, err := readVarint(v)
			if err != nil {
				return err
			}
			enc, rest, err := readLen(rest)
			if err != nil {
				return err
			}
			v = rest
			row, err := types.DecodeRow(enc, nil)
			if err != nil {
				return err
			}
			if grp == nil {
				grp = op.lookup(row)
			}
			it := topKItem{row: row, e: &topKEntry{}}
			if op.spec.SortKey != nil {
				op.kbuf = op.spec.SortKey(op.kbuf[:0], row)
				it.head = headOf(op.kbuf)
				sk := len(op.kbuf)
				op.kbuf = append(op.kbuf, enc...)
				it.e = &topKEntry{key: string(op.kbuf), n: int64(len(op.kbuf) - sk)}
			}
			grp.rows = append(grp.rows, run{item: it, n: n})
			grp.units += n
		}
		if grp != nil {
			op.account(grp)
		}
		return nil
	})
}
