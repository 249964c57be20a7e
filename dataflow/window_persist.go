package dataflow

import (
	"context"
	"encoding/binary"

	"github.com/streamdb/streamdb/types"
)

// A Window persists its input, every row of every partition, as
// structure 0, in the bucket of the partition's key:
//
//	[partition key encoding, length-prefixed][the row's window key]
//	    → multiplicity (varint), the sort key's length (uvarint), the
//	      row's stored form
//
// A partition's rows follow one another in window order, as its sequence
// holds them; restore appends them so, and nothing is evaluated.

func (op *windowOp) persists() error { return nil }

func (op *windowOp) stateShape() string { return "rows/1" }

// persistChanges records the multiplicities a partition's applied changes
// left (none at 0).
func (op *windowOp) persistChanges(part *wPart, changes []wChange) {
	kenc := stored(part.kenc)
	for i := range changes {
		c := &changes[i]
		k := append(appendLen(op.sk.start(0, kenc), kenc), c.key...)
		op.sk.key = k
		if c.n == 0 {
			op.sk.del(k)
			continue
		}
		v := binary.AppendUvarint(binary.AppendVarint(op.sk.val[:0], c.n), uint64(c.sk))
		op.sk.val = appendRowValue(v, c.row)
		op.sk.set(k, op.sk.val)
	}
}

func (op *windowOp) restore(_ context.Context, r StateReader) error {
	var touched []*wPart
	err := op.sk.scan(r, 0, true, func(k, v []byte) error {
		_, key, err := readLen(k)
		if err != nil {
			return err
		}
		n, rest, err := readVarint(v)
		if err != nil {
			return err
		}
		sk, m := binary.Uvarint(rest)
		if m <= 0 || sk > uint64(len(key)) {
			return errCorruptState
		}
		row, err := types.DecodeRow(rest[m:], nil)
		if err != nil {
			return err
		}
		part := op.lookup(row)
		if part.tick != op.g.tick {
			part.tick = op.g.tick
			touched = append(touched, part)
		}
		part.s.add(string(key), int(sk), row, n)
		return nil
	})
	if err != nil {
		return err
	}
	for _, part := range touched {
		part.s.fix()
		part.bytes = part.s.size()
		op.bytes += part.bytes
	}
	return nil
}
