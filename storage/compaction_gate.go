package storage

import (
	"sync"

	"github.com/cockroachdb/pebble/v2"
)

// compactionGate is Pebble's compaction scheduler, holding every
// compaction back until the store has opened.
//
// Pebble's Open flushes the memtables it replays from the log, and the
// flush's completion schedules a compaction when the levels are due one,
// as they mostly are after a crash under load; Open then waits for that
// compaction to end before it returns (it lists obsolete files with no
// compaction running). One compaction is sized by the levels, not by
// the log: an L0 file of a tick spans the whole key space, so a
// compaction of L0 rewrites the base level's files it overlaps, and the
// base level grows with the history the store holds. Measured after kill
// -9 with ~1 GB of view state (bench/results/restart-history.md), Open
// took 0.5 to 4.8 s over 1M to 10M Nexmark events, whichever compaction
// the crash left due, 3.5 s for one of 766 MB. Held back by the gate,
// the compaction runs once Open has returned, beside the views'
// hydration; Open costs the replay of the log, which the memtables' size
// bounds: 0.1 to 0.3 s on the same stores.
//
// Otherwise it schedules as Pebble's default (ConcurrencyLimitScheduler)
// does: up to GetAllowedWithoutPermission compactions at once, granting
// a waiting compaction when one ends.
type compactionGate struct {
	db pebble.DBForCompaction

	mu sync.Mutex
	// open is set once, when the store has opened; unregistered once, when
	// it closes.
	open, unregistered bool
	running            int
	// granting serializes grants, and Unregister waits for the last.
	granting     bool
	grantingDone *sync.Cond
}

var _ pebble.CompactionScheduler = (*compactionGate)(nil)

func newCompactionGate() *compactionGate {
	g := &compactionGate{}
	g.grantingDone = sync.NewCond(&g.mu)
	return g
}

// Register is called by Pebble's Open.
func (g *compactionGate) Register(_ int, db pebble.DBForCompaction) { g.db = db }

// Unregister is called by Pebble's Close.
func (g *compactionGate) Unregister() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.unregistered = true
	for g.granting {
		g.grantingDone.Wait()
	}
}

// TrySchedule grants a compaction the DB wants to run now, if the store
// has opened and fewer compactions than allowed are running. A refused
// compaction waits for a grant (release, or another's Done).
func (g *compactionGate) TrySchedule() (bool, pebble.CompactionGrantHandle) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.open || g.unregistered || g.running >= g.db.GetAllowedWithoutPermission() {
		return false, nil
	}
	g.running++
	return true, grantHandle{g}
}

// UpdateGetAllowedWithoutPermission is called by the DB, holding its
// mutex, after a flush that may allow more compactions: grants need that
// mutex, so they are made on a goroutine of their own.
func (g *compactionGate) UpdateGetAllowedWithoutPermission() {
	g.mu.Lock()
	more := g.open && !g.unregistered && g.running < g.db.GetAllowedWithoutPermission()
	g.mu.Unlock()
	if more {
		go g.grant()
	}
}

// release lets compactions run, starting those that wait.
func (g *compactionGate) release() {
	g.mu.Lock()
	g.open = true
	g.mu.Unlock()
	g.grant()
}

// grant starts waiting compactions while fewer than allowed run.
func (g *compactionGate) grant() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.granting {
		g.grantingDone.Wait()
	}
	if !g.open || g.unregistered {
		return
	}
	g.granting = true
	for g.running < g.db.GetAllowedWithoutPermission() {
		// The DB takes its own mutex, which is ordered before ours.
		g.mu.Unlock()
		waiting, _ := g.db.GetWaitingCompaction()
		started := waiting && g.db.Schedule(grantHandle{g})
		g.mu.Lock()
		if !started {
			break
		}
		g.running++
	}
	g.granting = false
	g.grantingDone.Broadcast()
}

// grantHandle is the handle of a compaction the gate let run.
type grantHandle struct{ g *compactionGate }

func (grantHandle) Started()                                          {}
func (grantHandle) MeasureCPU(pebble.CompactionGoroutineKind)         {}
func (grantHandle) CumulativeStats(pebble.CompactionGrantHandleStats) {}

// Done is called when the compaction ends, and grants the next.
func (h grantHandle) Done() {
	h.g.mu.Lock()
	h.g.running--
	h.g.mu.Unlock()
	h.g.grant()
}
