package sql

import (
	"time"

	"github.com/streamdb/streamdb/pgerr"
)

// Sleep implements scalar.Session: pg_sleep waits until its time or the
// statement's cancellation (a cancel request or statement_timeout).
func (v *catalogView) Sleep(d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-v.s.stmtDone:
		return pgerr.Canceled()
	}
}
