package postgres

import (
	"context"
	"encoding/binary"
	"testing"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/streamdb/streamdb/sources"
)

// slotConfirmed reads the slot's confirmed_flush_lsn upstream.
func (u *upstream) slotConfirmed(slot string) pglogrepl.LSN {
	u.t.Helper()
	var s string
	if err := u.conn.QueryRow(context.Background(), "SELECT coalesce(confirmed_flush_lsn::text, '0/0') FROM pg_replication_slots WHERE slot_name = $1", slot).Scan(&s); err != nil {
		u.t.Fatal(err)
	}
	lsn, err := pglogrepl.ParseLSN(s)
	if err != nil {
		u.t.Fatal(err)
	}
	return lsn
}

func committedLSN(m *model) pglogrepl.LSN {
	p := m.committed()[partLSN]
	if len(p) != 8 {
		return 0
	}
	return pglogrepl.LSN(binary.BigEndian.Uint64(p))
}

// TestConfirmsOnlyCommitted checks, while upstream writes and the engine
// commits slowly, that the slot is never confirmed past what the engine
// committed; and that once writes stop, the confirmation catches up, the
// position follows upstream's WAL past changes of other tables, and the
// status shows no lag.
func TestConfirmsOnlyCommitted(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(ledgerSchema, `CREATE TABLE unpublished (v int)`, `CREATE PUBLICATION pub2 FOR TABLE acct, ledger`)
	src := open(t, u.config("confirm", "pub2"))
	m := newModel(src.Outputs())
	m.delay = 30 * time.Millisecond
	start(t, src, m, nil)
	m.waitState(t, sources.Running)
	w := startWriter(t, u)
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); {
		confirmed := u.slotConfirmed("confirm")
		if committed := committedLSN(m); confirmed > committed {
			t.Fatalf("slot confirmed at %s, engine committed %s", confirmed, committed)
		}
		time.Sleep(10 * time.Millisecond)
	}
	w.halt(t)
	waitEqual(t, m, u, ledgerQueries)

	// Only other tables change now: the position moves past their WAL.
	last := committedLSN(m)
	u.exec(`INSERT INTO unpublished SELECT generate_series(1, 1000)`)
	var end pglogrepl.LSN
	if err := u.conn.QueryRow(context.Background(), "SELECT pg_current_wal_lsn()::text").Scan((*lsnText)(&end)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := src.Status()
		if committedLSN(m) >= end && u.slotConfirmed("confirm") >= end && st.ConfirmedLSN >= end && st.Lag == 0 {
			if st.LagBytes > 1<<20 {
				t.Errorf("lag %d bytes while idle", st.LagBytes)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("position %s (was %s), slot %s, status %+v; upstream at %s", committedLSN(m), last, u.slotConfirmed("confirm"), st, end)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// lsnText scans a pg_lsn's text.
type lsnText pglogrepl.LSN

func (l *lsnText) Scan(src any) error {
	s, _ := src.(string)
	v, err := pglogrepl.ParseLSN(s)
	*l = lsnText(v)
	return err
}
