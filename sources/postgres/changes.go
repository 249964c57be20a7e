package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// relation takes note of a table's layout. It is reconciled with the
// output's only when a change of the table is applied: a transaction the
// table's snapshot already holds may show an older layout, which must not
// count as a change.
func (st *streamer) relation(rel relation) {
	t := st.byRel[rel.relid]
	if t == nil {
		// A table of the source's name under another OID was dropped
		// and created again: the snapshot is of a table that is gone.
		for _, t := range st.r.tables {
			if t.def.Schema == rel.namespace && t.def.Name == rel.name && st.cur.next.tables[t.def.ID].stalled == "" {
				st.r.stall(st.cur, t, fmt.Sprintf("upstream table %s was dropped and created again; recreate the subsource (ALTER SOURCE … DROP SUBSOURCE %s, then ADD SUBSOURCE %s)",
					t.qname, maybeQuote(t.def.Output.Name), t.qname))
			}
		}
		return
	}
	t.rel = &rel
	t.relCols = 0
}

// layout makes sure t's latest Relation message is reconciled with its
// output, adding columns upstream added. It reports false when t stalls.
func (st *streamer) layout(ctx context.Context, t *table) (bool, error) {
	if t.relCols != 0 {
		return true, nil
	}
	if t.rel == nil {
		return false, pgerr.New(pgerr.ProtocolViolation, "a change of table %s before its relation message", t.qname)
	}
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	// Reconciling reads the upstream catalog, which must show what the
	// transaction being applied did (an ADD COLUMN, a CREATE TYPE).
	if err := waitVisible(ctx, st.meta, st.txnXid); err != nil {
		return false, err
	}
	sc, err := t.reconcile(ctx, st.meta, st.tr, t.rel)
	if err != nil {
		return false, err
	}
	if sc.stall != "" {
		st.r.stall(st.cur, t, sc.stall)
		return false, nil
	}
	changes := st.cur.batch.Changes[t.out]
	for i, c := range sc.added {
		st.cur.batch.AddColumns = append(st.cur.batch.AddColumns, sources.AddedColumn{Output: t.out, Column: c, Fill: sc.fills[i]})
		t.cols = append(t.cols, c)
		st.r.s.log.Info("upstream column added", "table", t.qname, "column", c.Name, "type", c.Type.String())
		// Rows of this batch were read before the column existed.
		for j := range changes {
			if row := changes[j].Row; row != nil && len(row) < len(t.cols) {
				changes[j].Row = append(row, sc.fills[i])
			}
		}
	}
	t.relCols = len(t.rel.cols)
	return true, nil
}

// change applies an insert, update or delete of t.
func (st *streamer) change(ctx context.Context, t *table, lsn pglogrepl.LSN, data []byte) error {
	ok, err := st.layout(ctx, t)
	if err != nil || !ok {
		return err
	}
	m := &st.m
	if len(m.new) != t.relCols && m.kind != msgDelete || m.oldKind != 0 && len(m.old) != t.relCols {
		return pgerr.New(pgerr.ProtocolViolation, "a change of table %s does not match its relation message", t.qname)
	}
	// One copy of the message: the rows' strings are slices of it.
	s := string(data)
	p := st.cur
	out := &p.batch.Changes[t.out]
	n0 := len(*out)
	switch m.kind {
	case msgInsert:
		row, key, _, bad := t.decodeRow(s, m.new, nil)
		if bad != nil {
			st.deadLetter(t, lsn, s, m.new, bad)
		} else if t.key != nil {
			*out = append(*out, sources.Change{Row: row, Key: key})
		} else {
			*out = append(*out, sources.Change{Row: row, Diff: 1})
		}
	case msgUpdate:
		if t.key == nil {
			err = st.updateAppend(t, lsn, s)
		} else {
			st.updateUpsert(t, lsn, s)
		}
	case msgDelete:
		if t.key != nil && m.oldKind == 'K' && !t.keyComplete(m.old) {
			return pgerr.New(pgerr.ProtocolViolation, "a delete of table %s lacks its key", t.qname)
		}
		if t.key == nil && m.oldKind != 'O' {
			st.r.stall(p, t, fmt.Sprintf("a delete of upstream table %s did not carry the old row (REPLICA IDENTITY FULL)", t.qname))
			return nil
		}
		old, key, _, bad := t.decodeRow(s, m.old, nil)
		switch {
		case bad != nil && (t.key == nil || slices.Contains(t.key, bad.col)):
			st.deadLetter(t, lsn, s, m.old, bad)
		case t.key != nil:
			*out = append(*out, sources.Change{Key: key})
		default:
			*out = append(*out, sources.Change{Row: old, Diff: -1})
		}
	}
	p.changes += len(*out) - n0
	return err
}

// updateUpsert applies an update of a keyed table. The new row's TOASTed
// values that did not change come from the old row when pgoutput sent
// it (REPLICA IDENTITY FULL), else the engine takes them from its stored
// row (Change.Unchanged). A new key moves the row (Change.OldKey). A new
// row streamdb cannot represent deletes the row, so that no stale value
// stays behind, and becomes a dead letter.
func (st *streamer) updateUpsert(t *table, lsn pglogrepl.LSN, s string) {
	m := &st.m
	out := &st.cur.batch.Changes[t.out]
	var (
		old, oldKey types.Row
		oldBad      *badValue
	)
	if m.oldKind != 0 {
		old, oldKey, _, oldBad = t.decodeRow(s, m.old, nil)
		if oldBad != nil && slices.Contains(t.key, oldBad.col) {
			oldKey = nil
		}
	}
	var base types.Row
	if m.oldKind == 'O' && oldBad == nil {
		base = old
	}
	row, key, unchanged, bad := t.decodeRow(s, m.new, base)
	for i, k := range t.key {
		if m.new[k].kind == colUnchanged {
			// A key stored out of line: pgoutput sends the old key.
			if oldKey == nil {
				bad = &badValue{col: k, err: fmt.Errorf("the update carries no value for key column %q", t.cols[k].Name)}
				continue
			}
			row[k], key[i] = oldKey[i], oldKey[i]
			unchanged = slices.DeleteFunc(unchanged, func(c int) bool { return c == k })
		}
	}
	var moved types.Row
	if oldKey != nil && types.CompareRows(oldKey, key) != 0 {
		moved = oldKey
	}
	if bad != nil {
		st.deadLetter(t, lsn, s, m.new, bad)
		if moved != nil {
			*out = append(*out, sources.Change{Key: moved})
		}
		if !slices.Contains(t.key, bad.col) {
			*out = append(*out, sources.Change{Key: key})
		} else if moved == nil && oldKey != nil {
			*out = append(*out, sources.Change{Key: oldKey})
		}
		return
	}
	if len(unchanged) == 0 {
		unchanged = nil
	}
	*out = append(*out, sources.Change{Key: key, Row: row, OldKey: moved, Unchanged: unchanged})
}

// updateAppend applies an update of a table without a key (REPLICA
// IDENTITY FULL): a retraction of the old row and an insertion of the new,
// whose unchanged TOASTed values come from the old. Each half that
// streamdb cannot represent becomes a dead letter on its own, matching
// what happened to the row before: a row whose insertion was a dead
// letter is never retracted.
func (st *streamer) updateAppend(t *table, lsn pglogrepl.LSN, s string) error {
	m := &st.m
	out := &st.cur.batch.Changes[t.out]
	if m.oldKind != 'O' {
		st.r.stall(st.cur, t, fmt.Sprintf("an update of upstream table %s did not carry the old row (REPLICA IDENTITY FULL)", t.qname))
		return nil
	}
	old, _, _, oldBad := t.decodeRow(s, m.old, nil)
	if oldBad != nil {
		st.deadLetter(t, lsn, s, m.old, oldBad)
	} else {
		*out = append(*out, sources.Change{Row: old, Diff: -1})
	}
	row, _, _, bad := t.decodeRow(s, m.new, old)
	if bad == nil && oldBad != nil && m.new[oldBad.col].kind == colUnchanged {
		bad = oldBad
	}
	if bad != nil {
		st.deadLetter(t, lsn, s, m.new, bad)
		return nil
	}
	*out = append(*out, sources.Change{Row: row, Diff: 1})
	return nil
}

// truncate empties t: the batch truncates its output, and its changes of
// the batch so far (earlier in the transaction, or in earlier
// transactions of the batch) are dropped, since the truncation follows
// them.
func (st *streamer) truncate(t *table) {
	b := st.cur.batch
	st.cur.changes -= len(b.Changes[t.out])
	b.Changes[t.out] = nil
	if !slices.Contains(b.Truncate, t.out) {
		b.Truncate = append(b.Truncate, t.out)
	}
}

// deadLetter records a row streamdb cannot represent.
func (st *streamer) deadLetter(t *table, lsn pglogrepl.LSN, s string, cols []tupleCol, bad *badValue) {
	b := st.cur.batch
	dl := sources.DeadLetter{Partition: t.def.Output.Name, Offset: int64(lsn), Value: rawRecord(s, cols, nil), Err: bad.message(t), Time: st.txnTime}
	if t.key != nil {
		dl.Key = rawRecord(s, cols, t.key)
	}
	b.DeadLetters = append(b.DeadLetters, dl)
	st.cur.changes++
}

// waitVisible waits until transaction xid, which the stream has decoded,
// is visible to a new snapshot upstream. A transaction is decoded once
// its commit record is in the WAL, a moment before other sessions see it
// committed, so a catalog query made at once could miss what it did.
// Transactions it waited for on locks (an ALTER TABLE before it) are
// visible by then too.
func waitVisible(ctx context.Context, q *pgx.Conn, xid uint32) error {
	for {
		var visible bool
		// The decoded xid has 32 bits; its epoch is the snapshot's, or
		// the one before when it is above the snapshot's xmax.
		err := q.QueryRow(ctx, `WITH s AS (SELECT txid_current_snapshot() AS snap)
			SELECT txid_visible_in_snapshot(CASE WHEN $1::int8 < txid_snapshot_xmax(snap) & 4294967295
				THEN txid_snapshot_xmax(snap) >> 32 << 32 | $1::int8
				ELSE ((txid_snapshot_xmax(snap) >> 32) - 1) << 32 | $1::int8 END, snap) FROM s`, int64(xid)).Scan(&visible)
		if err != nil {
			return upstreamError("reading the upstream catalog", err)
		}
		if visible {
			return nil
		}
		select {
		case <-ctx.Done():
			return upstreamError("waiting for an upstream transaction to become visible", ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}
