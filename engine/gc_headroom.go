package engine

import (
	"runtime/debug"
	"sync"
)

// hydrationGCPercent is the garbage collector's headroom (GOGC) while
// flows hydrate. A hydration that feeds a table's rows through a graph
// (a rebuild, or a restore deriving state from a table) turns every row
// it decodes into garbage within a chunk, gigabytes of it, while the
// state it builds is the largest live heap the process holds; with the
// default headroom of 100% the heap then peaked at twice that state,
// 1.6 times the steady state's resident memory after a restart of
// Nexmark q9 and q20 (2M events) that derived their arranged bids. At
// 25%, collections come four times as often while hydrating, and the
// peak stays near the state itself.
const hydrationGCPercent = 25

// gcHeadroom holds the collector at hydrationGCPercent while any
// hydration runs, process-wide, and restores the setting it found when
// the last one ends; a setting already lower (or off) is left alone.
var gcHeadroom struct {
	mu      sync.Mutex
	running int
	prev    int
}

// tightenGC starts a hydration's hold on the collector; the returned
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
