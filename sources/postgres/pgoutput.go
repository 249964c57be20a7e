package postgres

import (
	"encoding/binary"
	"fmt"

	"github.com/jackc/pglogrepl"
)

// This file decodes pgoutput's logical replication messages (protocol
// version 1, text values). pglogrepl's own decoders allocate every column
// of every tuple and index past the end of truncated input; this one
// checks every length, reuses its slices from message to message, and
// leaves column values where they are: a column is a span of the
// message's bytes, which the caller copies once per row.

// Message kinds, the first byte of a pgoutput message.
const (
	msgBegin    = 'B'
	msgCommit   = 'C'
	msgOrigin   = 'O'
	msgRelation = 'R'
	msgType     = 'Y'
	msgInsert   = 'I'
	msgUpdate   = 'U'
	msgDelete   = 'D'
	msgTruncate = 'T'
	msgMessage  = 'M'
)

// Tuple column kinds.
const (
	colNull      = 'n'
	colUnchanged = 'u' // an unchanged TOASTed value, not sent
	colText      = 't'
	colBinary    = 'b'
)

// relColumn is one column of a relation, as a Relation message or the
// upstream catalog describes it.
type relColumn struct {
	name   string
	oid    uint32
	typmod int32
	// key marks the replica identity's columns (all of them under
	// REPLICA IDENTITY FULL).
	key bool
}

// relation is a Relation message: the layout of the tuples that follow
// for one table.
type relation struct {
	relid     uint32
	namespace string
	name      string
	// identity is pg_class.relreplident: 'd' default (the primary key),
	// 'f' full, 'i' an index, 'n' nothing.
	identity byte
	cols     []relColumn
}

// tupleCol is one column of a tuple: its kind, and for text and binary
// values the span [off, off+n) of the message holding it.
type tupleCol struct {
	kind byte
	off  int32
	n    int32
}

// message is a decoded pgoutput message; only the fields of its kind are
// meaningful. A message is reused from one decode to the next.
type message struct {
	kind byte
	// Begin: finalLSN is the transaction's commit LSN. Commit: commitLSN
	// and endLSN, the end of the commit record. Both carry the commit
	// time (microseconds since 2000-01-01) and Begin the xid.
	finalLSN   pglogrepl.LSN
	commitLSN  pglogrepl.LSN
	endLSN     pglogrepl.LSN
	commitTime int64
	xid        uint32

	rel relation

	// Insert, Update, Delete: the table, the old tuple's kind ('K' its
	// replica identity key, 'O' the whole old row, 0 none) and the
	// tuples.
	relid   uint32
	oldKind byte
	old     []tupleCol
	new     []tupleCol

	// Truncate.
	truncCascade bool
	truncRelids  []uint32
}

// errMalformed reports a message that does not follow the protocol.
type errMalformed struct{ what string }

func (e *errMalformed) Error() string { return "malformed pgoutput message: " + e.what }

// reader walks a message's bytes; the first read past the end sets bad
// and every later read returns zeros.
type reader struct {
	b   []byte
	off int
	bad bool
}

func (r *reader) need(n int) bool {
	if r.bad || n < 0 || len(r.b)-r.off < n {
		r.bad = true
		return false
	}
	return true
}

func (r *reader) u8() byte {
	if !r.need(1) {
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

func (r *reader) u16() uint16 {
	if !r.need(2) {
		return 0
	}
	r.off += 2
	return binary.BigEndian.Uint16(r.b[r.off-2:])
}

func (r *reader) u32() uint32 {
	if !r.need(4) {
		return 0
	}
	r.off += 4
	return binary.BigEndian.Uint32(r.b[r.off-4:])
}

func (r *reader) u64() uint64 {
	if !r.need(8) {
		return 0
	}
	r.off += 8
	return binary.BigEndian.Uint64(r.b[r.off-8:])
}

// cstring reads a NUL-terminated string.
func (r *reader) cstring() string {
	if r.bad {
		return ""
	}
	for i := r.off; i < len(r.b); i++ {
		if r.b[i] == 0 {
			s := string(r.b[r.off:i])
			r.off = i + 1
			return s
		}
	}
	r.bad = true
	return ""
}

// tuple reads a TupleData into cols, reusing its storage.
func (r *reader) tuple(cols []tupleCol) []tupleCol {
	n := int(r.u16())
	if !r.need(n) { // every column takes at least its kind byte
		return cols[:0]
	}
	cols = cols[:0]
	for range n {
		c := tupleCol{kind: r.u8()}
		switch c.kind {
		case colNull, colUnchanged:
		case colText, colBinary:
			l := r.u32()
			if l > 1<<30 || !r.need(int(l)) {
				r.bad = true
				return cols
			}
			c.off, c.n = int32(r.off), int32(l)
			r.off += int(l)
		default:
			r.bad = true
			return cols
		}
		cols = append(cols, c)
	}
	return cols
}

// decode parses one pgoutput message into m. Kinds streamdb has no use
// for (Origin, Type, logical decoding messages) decode to their kind
// only. Column spans refer to data, which the caller must keep until it
// has read them.
func decode(data []byte, m *message) error {
	if len(data) == 0 {
		return &errMalformed{"empty message"}
	}
	r := reader{b: data, off: 1}
	m.kind = data[0]
	switch m.kind {
	case msgBegin:
		m.finalLSN = pglogrepl.LSN(r.u64())
		m.commitTime = int64(r.u64())
		m.xid = r.u32()
	case msgCommit:
		r.u8() // flags, unused
		m.commitLSN = pglogrepl.LSN(r.u64())
		m.endLSN = pglogrepl.LSN(r.u64())
		m.commitTime = int64(r.u64())
	case msgRelation:
		m.rel.relid = r.u32()
		m.rel.namespace = r.cstring()
		m.rel.name = r.cstring()
		m.rel.identity = r.u8()
		n := int(r.u16())
		if !r.need(n * 10) { // flags, an empty name, oid and typmod
			break
		}
		m.rel.cols = make([]relColumn, 0, n)
		for range n {
			flags := r.u8()
			c := relColumn{name: r.cstring(), key: flags&1 != 0}
			c.oid = r.u32()
			c.typmod = int32(r.u32())
			m.rel.cols = append(m.rel.cols, c)
		}
	case msgInsert:
		m.relid = r.u32()
		m.oldKind = 0
		if k := r.u8(); k != 'N' && !r.bad {
			return &errMalformed{fmt.Sprintf("insert tuple kind %q", k)}
		}
		m.new = r.tuple(m.new)
	case msgUpdate:
		m.relid = r.u32()
		m.oldKind = 0
		k := r.u8()
		if k == 'K' || k == 'O' {
			m.oldKind = k
			m.old = r.tuple(m.old)
			k = r.u8()
		}
		if k != 'N' && !r.bad {
			return &errMalformed{fmt.Sprintf("update tuple kind %q", k)}
		}
		m.new = r.tuple(m.new)
	case msgDelete:
		m.relid = r.u32()
		m.oldKind = r.u8()
		if m.oldKind != 'K' && m.oldKind != 'O' && !r.bad {
			return &errMalformed{fmt.Sprintf("delete tuple kind %q", m.oldKind)}
		}
		m.old = r.tuple(m.old)
	case msgTruncate:
		n := int(r.u32())
		m.truncCascade = r.u8()&1 != 0
		if !r.need(4 * n) {
			break
		}
		m.truncRelids = m.truncRelids[:0]
		for range n {
			m.truncRelids = append(m.truncRelids, r.u32())
		}
	case msgOrigin, msgType, msgMessage:
		return nil
	default:
		return &errMalformed{fmt.Sprintf("unknown message kind %q", m.kind)}
	}
	if r.bad {
		return &errMalformed{fmt.Sprintf("truncated %q message", m.kind)}
	}
	if r.off != len(data) {
		return &errMalformed{fmt.Sprintf("%d bytes after %q message", len(data)-r.off, m.kind)}
	}
	return nil
}
