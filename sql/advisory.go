package sql

import (
	"sync"

	"github.com/streamdb/streamdb/pgerr"
)

// Advisory locks (pg_advisory_lock and its relatives): locks on numbers
// that mean whatever the application says, which migration tools take
// so that two deployments do not migrate at once and job queues take to
// claim work. As in PostgreSQL a lock is exclusive or shared, held by a
// session until it unlocks it (counted: locked twice, unlocked twice)
// or by a transaction until it ends; a session never conflicts with its
// own locks; keys live per database, and a bigint key and a pair of
// integer keys with the same bits are different locks.

// advisoryKey identifies an advisory lock.
type advisoryKey struct {
	db   string
	key  int64
	pair bool
}

// advisoryHold is what one session holds of one lock.
type advisoryHold struct {
	session, xact int // counts of session-level and transaction-level holds
}

func (h advisoryHold) empty() bool { return h.session == 0 && h.xact == 0 }

// advisoryLock is one lock's holders.
type advisoryLock struct {
	exclusive map[*session]advisoryHold
	shared    map[*session]advisoryHold
}

// advisoryLocks is the server's table of advisory locks. A waiter waits
// on changed, which is closed and replaced whenever a lock is released.
type advisoryLocks struct {
	mu      sync.Mutex
	locks   map[advisoryKey]*advisoryLock
	changed chan struct{}
}

func newAdvisoryLocks() *advisoryLocks {
	return &advisoryLocks{locks: map[advisoryKey]*advisoryLock{}, changed: make(chan struct{})}
}

// conflicts reports whether another session holds the lock in a mode
// that excludes mode.
func (l *advisoryLock) conflicts(s *session, shared bool) bool {
	for h := range l.exclusive {
		if h != s {
			return true
		}
	}
	if !shared {
		for h := range l.shared {
			if h != s {
				return true
			}
		}
	}
	return false
}

// tryLock takes the lock if no other session's hold conflicts, and
// otherwise returns a channel that is closed when a lock is released.
func (a *advisoryLocks) tryLock(s *session, k advisoryKey, shared, xact bool) (bool, <-chan struct{}) {
	a.mu.Lock()
	defer a.mu.Unlock()
	l := a.locks[k]
	if l == nil {
		l = &advisoryLock{exclusive: map[*session]advisoryHold{}, shared: map[*session]advisoryHold{}}
		a.locks[k] = l
	}
	if l.conflicts(s, shared) {
		return false, a.changed
	}
	m := l.exclusive
	if shared {
		m = l.shared
	}
	h := m[s]
	if xact {
		h.xact++
	} else {
		h.session++
	}
	m[s] = h
	return true, nil
}

// unlock releases one session-level hold; false when there is none.
func (a *advisoryLocks) unlock(s *session, k advisoryKey, shared bool) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	l := a.locks[k]
	if l == nil {
		return false
	}
	m := l.exclusive
	if shared {
		m = l.shared
	}
	h := m[s]
	if h.session == 0 {
		return false
	}
	h.session--
	a.setLocked(k, l, m, s, h)
	return true
}

// release drops every hold of a session: its transaction-level ones
// (xact) or its session-level ones.
func (a *advisoryLocks) release(s *session, xact bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, l := range a.locks {
		for _, m := range []map[*session]advisoryHold{l.exclusive, l.shared} {
			h, ok := m[s]
			if !ok {
				continue
			}
			if xact {
				h.xact = 0
			} else {
				h.session = 0
			}
			a.setLocked(k, l, m, s, h)
		}
	}
}

// setLocked stores a session's new hold, forgetting empty ones and
// waking the waiters when a hold ends.
func (a *advisoryLocks) setLocked(k advisoryKey, l *advisoryLock, m map[*session]advisoryHold, s *session, h advisoryHold) {
	if !h.empty() {
		m[s] = h
		return
	}
	delete(m, s)
	if len(l.exclusive) == 0 && len(l.shared) == 0 {
		delete(a.locks, k)
	}
	close(a.changed)
	a.changed = make(chan struct{})
}

// AdvisoryLock implements scalar.Session: it takes an advisory lock,
// waiting for it unless wait is false (the pg_try_ functions), and
// reports whether it holds it. A transaction-level lock outside a
// transaction block lasts until the statement ends.
func (v *catalogView) AdvisoryLock(key int64, pair, shared, xact, wait bool) (bool, error) {
	s := v.s
	k := advisoryKey{db: s.info.database, key: key, pair: pair}
	if xact {
		s.writeTxn().xactLocks = true
	}
	for {
		ok, changed := s.e.advisory.tryLock(s, k, shared, xact)
		if ok || !wait {
			return ok, nil
		}
		select {
		case <-changed:
		case <-s.stmtDone:
			return false, pgerr.Canceled()
		}
	}
}

// AdvisoryUnlock implements scalar.Session: it releases one
// session-level hold, warning as PostgreSQL does when there is none.
func (v *catalogView) AdvisoryUnlock(key int64, pair, shared bool) bool {
	s := v.s
	if s.e.advisory.unlock(s, advisoryKey{db: s.info.database, key: key, pair: pair}, shared) {
		return true
	}
	mode := "ExclusiveLock"
	if shared {
		mode = "ShareLock"
	}
	s.notice(&pgerr.Error{Severity: "WARNING", Code: pgerr.Warning, Message: "you don't own a lock of type " + mode})
	return false
}

// AdvisoryUnlockAll implements scalar.Session: pg_advisory_unlock_all
// releases the session-level locks, not the transaction's.
func (v *catalogView) AdvisoryUnlockAll() { v.s.e.advisory.release(v.s, false) }
