package postgres

import (
	"encoding/binary"
	"fmt"
	"maps"
	"slices"

	"github.com/jackc/pglogrepl"
	"github.com/streamdb/streamdb/pgerr"
)

// The partitions of a PostgreSQL source's resume position. "lsn" is the
// stream's position as 8 big-endian bytes (so the progress relation
// shows it as a number): the end LSN of the last applied upstream commit,
// or before the first one the slot's consistent point. "state" holds the
// rest, rewritten only when it changes: the upstream's system identifier
// and, per table (by Table.ID), the LSN its snapshot was taken at and why
// it stalled, if it did.
const (
	partLSN   = "lsn"
	partState = "state"
)

const stateVersion = 1

// position is a decoded resume position.
type position struct {
	// lsn is where the stream resumes; zero before the first commit of
	// the source's life.
	lsn   pglogrepl.LSN
	sysid uint64
	// tables is the state of each table that has been snapshotted.
	tables map[uint64]tableState
}

// tableState is one table's entry in the position.
type tableState struct {
	// snapshot is the consistent point of the snapshot the table's rows
	// come from: transactions that committed before it are in the
	// snapshot, and the stream applies only those at or after it.
	snapshot pglogrepl.LSN
	// stalled says why the table's output no longer follows upstream.
	stalled string
}

// empty reports whether nothing was ever committed.
func (p *position) empty() bool { return p.lsn == 0 && len(p.tables) == 0 && p.sysid == 0 }

func (p *position) clone() position {
	c := *p
	c.tables = maps.Clone(p.tables)
	if c.tables == nil {
		c.tables = make(map[uint64]tableState)
	}
	return c
}

func encodeLSN(lsn pglogrepl.LSN) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(lsn))
}

// encodeState encodes everything but the LSN.
func (p *position) encodeState() []byte {
	b := []byte{stateVersion}
	b = binary.BigEndian.AppendUint64(b, p.sysid)
	b = binary.AppendUvarint(b, uint64(len(p.tables)))
	for _, id := range slices.Sorted(maps.Keys(p.tables)) {
		st := p.tables[id]
		b = binary.BigEndian.AppendUint64(b, id)
		b = binary.BigEndian.AppendUint64(b, uint64(st.snapshot))
		b = binary.AppendUvarint(b, uint64(len(st.stalled)))
		b = append(b, st.stalled...)
	}
	return b
}

// decodePosition reads the positions the engine committed last.
func decodePosition(resume map[string][]byte) (position, error) {
	p := position{tables: make(map[uint64]tableState)}
	if lsn, ok := resume[partLSN]; ok {
		if len(lsn) != 8 {
			return p, corrupt("lsn of %d bytes", len(lsn))
		}
		p.lsn = pglogrepl.LSN(binary.BigEndian.Uint64(lsn))
	}
	st, ok := resume[partState]
	if !ok {
		if p.lsn != 0 {
			return p, corrupt("an lsn without state")
		}
		return p, nil
	}
	if len(st) < 9 || st[0] != stateVersion {
		return p, corrupt("state of version %d", firstByte(st))
	}
	p.sysid = binary.BigEndian.Uint64(st[1:])
	b := st[9:]
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)) {
		return p, corrupt("table count")
	}
	b = b[w:]
	for range n {
		if len(b) < 16 {
			return p, corrupt("truncated table entry")
		}
		id := binary.BigEndian.Uint64(b)
		lsn := pglogrepl.LSN(binary.BigEndian.Uint64(b[8:]))
		b = b[16:]
		l, w := binary.Uvarint(b)
		if w <= 0 || l > uint64(len(b)-w) {
			return p, corrupt("truncated stall reason")
		}
		p.tables[id] = tableState{snapshot: lsn, stalled: string(b[w : w+int(l)])}
		b = b[w+int(l):]
	}
	if len(b) != 0 {
		return p, corrupt("%d trailing bytes", len(b))
	}
	return p, nil
}

func firstByte(b []byte) int {
	if len(b) == 0 {
		return -1
	}
	return int(b[0])
}

func corrupt(format string, args ...any) error {
	return pgerr.New(pgerr.DataCorrupted, "corrupt PostgreSQL source position: %s", fmt.Sprintf(format, args...))
}
