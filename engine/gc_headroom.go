package engine

import (
	"runtime/debug"
	"sync"
)

// hydrationGCPercent is the garbage collector's headroom (GOGC) while
// flows are restored. A restore builds the largest live heap the process
// holds, and what it discards on the way (the tables and buckets its
// arrangements outgrow, the rows of derived state it reads) made the
// heap peak, at the default headroom of 100%, at 1.23–1.29 times the
// steady state's resident memory after kill -9 with Nexmark q9 and q20
// (2M events, the rows decoded into reused memory already); at 25%,
// 1.13–1.19 times, for 20% more CPU in the restore (bench/restart,
// alternating the two builds). Only restores, which run at start, take
// it: a view created later rebuilds beside live ticks, which would pay
// for the collections too.
const hydrationGCPercent = 25

// gcHeadroom holds the collector at hydrationGCPercent while any restore
// runs, process-wide, and restores the setting it found when the last
// one ends; a setting already lower (or off) is left alone.
var gcHeadroom struct {
	mu      sync.Mutex
	running int
	prev    int
}

// tightenGC starts a restore's hold on the collector; the returned
// function ends it.
func tightenGC() func() {
	h := &gcHeadroom
	h.mu.Lock()
	if h.running == 0 {
		h.prev = debug.SetGCPercent(hydrationGCPercent)
		if h.prev < hydrationGCPercent {
			debug.SetGCPercent(h.prev)
		}
	}
	h.running++
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		if h.running--; h.running == 0 {
			debug.SetGCPercent(h.prev)
		}
		h.mu.Unlock()
	}
}
