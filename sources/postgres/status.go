package postgres

import (
	"sync"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/streamdb/streamdb/sources"
)

// Status is what SHOW SOURCES reports about a PostgreSQL source.
type Status struct {
	State  sources.State
	Reason string
	// ConfirmedLSN is the upstream position the engine has committed
	// everything up to, which the source confirms to the slot.
	ConfirmedLSN pglogrepl.LSN
	// LagBytes is how much WAL upstream has written past ConfirmedLSN
	// (as of the source's last look, every StatusInterval at most):
	// what the slot keeps upstream on the source's behalf.
	LagBytes int64
	// Lag is how long ago the oldest upstream commit the source has
	// received but the engine not yet committed was made; zero when
	// everything received is committed.
	Lag    time.Duration
	Tables []TableStatus
}

// TableStatus is one table's part of Status.
type TableStatus struct {
	Output string
	// Snapshotting is set while the table's snapshot is read, with the
	// rows read so far and upstream's estimate of the total (-1 when
	// upstream has none: the table was never analyzed).
	Snapshotting bool
	RowsDone     int64
	RowsTotal    int64
	// Stalled says why the table no longer follows upstream.
	Stalled string
}

// statusBoard is the source's status, written by Run and read by Status
// from other goroutines.
type statusBoard struct {
	mu        sync.Mutex
	state     sources.State
	reason    string
	confirmed pglogrepl.LSN
	serverLSN pglogrepl.LSN
	// pendingSince is the commit time of the oldest transaction received
	// but not committed by the engine.
	pendingSince time.Time
	tables       []TableStatus
}

func (b *statusBoard) init(tables []Table) {
	b.state = sources.Starting
	b.tables = make([]TableStatus, len(tables))
	for i, t := range tables {
		b.tables[i] = TableStatus{Output: t.Output.Name, RowsTotal: -1}
	}
}

// Status returns the source's status now.
func (s *Source) Status() Status {
	b := &s.status
	b.mu.Lock()
	defer b.mu.Unlock()
	st := Status{State: b.state, Reason: b.reason, ConfirmedLSN: b.confirmed, Tables: append([]TableStatus(nil), b.tables...)}
	if b.serverLSN > b.confirmed {
		st.LagBytes = int64(b.serverLSN - b.confirmed)
	}
	if !b.pendingSince.IsZero() {
		st.Lag = max(time.Since(b.pendingSince), 0)
	}
	return st
}

func (b *statusBoard) set(f func(b *statusBoard)) {
	b.mu.Lock()
	f(b)
	b.mu.Unlock()
}
