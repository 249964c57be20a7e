package sql

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/streamdb/streamdb/pgerr"
)

// memoryGuard keeps one statement from taking the server down: a query
// whose state grows without bound (a DISTINCT over billions of rows, a
// sort of a huge relation, a COPY of gigabytes) would grow the heap until
// the kernel killed the process, and with it every view and session.
// Instead the statement that holds the memory is canceled before the
// heap reaches the limit, and fails with 53200 (out_of_memory), as
// PostgreSQL fails a query that cannot allocate; the views, sources and
// other sessions carry on, and the memory it held is returned to the
// operating system once it has ended.
//
// Every running statement reports the bytes it holds (its dataflow's
// state, the rows it gathers) at checkpoints every few thousand rows
// (check). The guard judges the heap at each checkpoint and, while any
// statement runs, every memoryGuardEvery: when the live heap plus a
// quarter of what the largest statement holds (what its next growth may
// take: hash tables and slices grow by a quarter to a half at once)
// would pass the limit, that statement is canceled, and no other is
// until it has ended and the heap has been measured again. When no
// statement holds a noticeable share, the memory is not theirs to give
// back and nothing is canceled, unless the live heap is past the limit
// while statements are executing: their memory is then the likeliest
// culprit (a huge value, say), and the executing statements are
// canceled.
type memoryGuard struct {
	limit uint64
	log   *slog.Logger
	// started wakes the sampler when a statement starts.
	started chan struct{}

	mu     sync.Mutex
	active map[*guardedStmt]struct{}
	// collected is when the guard last collected garbage to judge the
	// live heap, and ended when a statement last ended (see judge).
	collected, ended time.Time
	// freeing is set while memory is being returned after a cancel.
	freeing atomic.Bool
}

// guardedStmt is one running statement as the guard sees it.
type guardedStmt struct {
	// held is the bytes the statement last reported holding.
	held atomic.Int64
	// executing counts the calls into the statement under way: while
	// its result waits for the client to read, it allocates nothing.
	executing atomic.Int32
	// canceled is set when the guard canceled it.
	canceled atomic.Bool
	cancel   context.CancelCauseFunc
}

// errOverMemory is the cause of a statement canceled by the guard.
var errOverMemory = errors.New("server memory over its limit")

const (
	// memoryGuardEvery is how often the guard samples the heap while
	// statements run.
	memoryGuardEvery = 10 * time.Millisecond
	// victimShare is the share of the limit a statement must hold to be
	// canceled for the memory it holds.
	victimShare = 64
)

func newMemoryGuard(limit uint64, log *slog.Logger) *memoryGuard {
	return &memoryGuard{limit: limit, log: log, started: make(chan struct{}, 1), active: map[*guardedStmt]struct{}{}}
}

// defaultMemoryLimit is three quarters of the memory the process may use:
// the least of the machine's memory, its cgroup's limit (version 2 or 1)
// and GOMEMLIMIT. The rest is headroom for garbage not yet collected and
// for Pebble's memory outside the Go heap.
func defaultMemoryLimit() uint64 {
	var info syscall.Sysinfo_t
	limit := uint64(1) << 62
	if syscall.Sysinfo(&info) == nil {
		limit = uint64(info.Totalram) * uint64(info.Unit)
	}
	limit = min(limit, cgroupMemoryLimit())
	if n := debug.SetMemoryLimit(-1); n > 0 {
		limit = min(limit, uint64(n))
	}
	return limit / 4 * 3
}

// cgroupMemoryLimit reads the memory limit of the process's cgroup:
// memory.max under cgroup version 2, memory.limit_in_bytes of its
// memory controller's group under version 1.
func cgroupMemoryLimit() uint64 {
	limit := uint64(1) << 62
	read := func(path string) {
		if b, err := os.ReadFile(path); err == nil {
			if n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil {
				limit = min(limit, n)
			}
		}
	}
	read("/sys/fs/cgroup/memory.max")
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return limit
	}
	for _, line := range strings.Split(string(b), "\n") {
		// hierarchy-ID:controller-list:cgroup-path
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			read("/sys/fs/cgroup" + parts[2] + "/memory.max")
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "memory" {
				read("/sys/fs/cgroup/memory" + parts[2] + "/memory.limit_in_bytes")
				read("/sys/fs/cgroup/memory/memory.limit_in_bytes")
			}
		}
	}
	return limit
}

// run samples the heap until ctx ends while statements run.
func (g *memoryGuard) run(ctx context.Context) {
	t := time.NewTicker(memoryGuardEvery)
	defer t.Stop()
	for {
		if g.idle() {
			t.Stop()
			if !g.waitIdle(ctx) {
				return
			}
			t.Reset(memoryGuardEvery)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		g.judge()
	}
}

// waitIdle waits for a statement to start while none runs, and reports
// false when ctx ends first. Once none has run for returnIdle, the memory
// the heap holds beyond its live objects, past returnBytes of it, is
// returned to the operating system: the garbage of a large statement that
// ended well (a query string of a million statements, a large result)
// would otherwise stay resident until the scavenger got round to it.
func (g *memoryGuard) waitIdle(ctx context.Context) bool {
	idle := time.NewTimer(returnIdle)
	defer idle.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-g.started:
		return true
	case <-idle.C:
	}
	if heapBytes(heapObjectsMetric)+heapBytes(heapFreeMetric) > heapBytes(heapLiveMetric)+returnBytes {
		debug.FreeOSMemory()
	}
	select {
	case <-ctx.Done():
		return false
	case <-g.started:
		return true
	}
}

const (
	// returnIdle is how long no statement must have run before memory
	// is returned, and returnBytes how much beyond the live heap.
	returnIdle  = time.Second
	returnBytes = 64 << 20
)

const (
	heapObjectsMetric = "/memory/classes/heap/objects:bytes"
	heapLiveMetric    = "/gc/heap/live:bytes"
	heapFreeMetric    = "/memory/classes/heap/free:bytes"
)

// heapBytes reads one of the heap's metrics.
func heapBytes(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// idle reports whether no statement is running.
func (g *memoryGuard) idle() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.active) == 0
}

// track registers a statement whose work cancel stops, until untrack.
func (g *memoryGuard) track(cancel context.CancelCauseFunc) *guardedStmt {
	st := &guardedStmt{cancel: cancel}
	g.mu.Lock()
	g.active[st] = struct{}{}
	g.mu.Unlock()
	select {
	case g.started <- struct{}{}:
	default:
	}
	return st
}

// untrack forgets a statement that has ended. The memory of a statement
// the guard canceled is returned to the operating system once it is
// garbage: the heap had grown to the limit, and the process would keep
// it otherwise until the scavenger got round to it.
func (g *memoryGuard) untrack(st *guardedStmt) {
	g.mu.Lock()
	delete(g.active, st)
	g.ended = time.Now()
	g.mu.Unlock()
	if st.canceled.Load() {
		g.returnMemory()
	}
}

// returnMemory returns the heap's garbage to the operating system, soon:
// the last references of what has just ended go when its callers return.
func (g *memoryGuard) returnMemory() {
	if g.freeing.CompareAndSwap(false, true) {
		time.AfterFunc(50*time.Millisecond, func() {
			debug.FreeOSMemory()
			g.freeing.Store(false)
		})
	}
}

// check is a statement's checkpoint: it records the bytes the statement
// holds and judges the heap when it is near the limit. It returns
// errOverMemory once the guard has canceled the statement.
func (g *memoryGuard) check(st *guardedStmt, held int64) error {
	st.held.Store(held)
	if heapBytes(heapObjectsMetric)+uint64(held/4) > g.limit {
		g.judge()
	}
	if st.canceled.Load() {
		return errOverMemory
	}
	return nil
}

// judge cancels the statement that holds the most memory when the live
// heap plus its next growth would pass the limit (see memoryGuard).
func (g *memoryGuard) judge() {
	objects := heapBytes(heapObjectsMetric)
	g.mu.Lock()
	defer g.mu.Unlock()
	var victim *guardedStmt
	for st := range g.active {
		if st.canceled.Load() {
			// Its memory is on its way back: no one else is judged
			// until it has ended.
			return
		}
		if victim == nil || st.held.Load() > victim.held.Load() {
			victim = st
		}
	}
	if victim == nil || objects+uint64(victim.held.Load()/4) <= g.limit {
		return
	}
	// Objects count until they are swept, so the live heap is judged,
	// as a collection of our own found it: one within the last second
	// and since the last statement ended, whose memory would otherwise
	// count against the next. A collection of a large heap takes a
	// while: at most one each tenth of a second, and no judgement
	// in between.
	live := heapBytes(heapLiveMetric)
	if since := time.Since(g.collected); since >= time.Second || g.collected.Before(g.ended) {
		if since < 100*time.Millisecond {
			return
		}
		runtime.GC()
		g.collected = time.Now()
		live = heapBytes(heapObjectsMetric)
	}
	held := victim.held.Load()
	if live+uint64(held/4) <= g.limit {
		return
	}
	if held >= int64(g.limit/victimShare) {
		g.cancel(victim, live)
		return
	}
	if live <= g.limit {
		return
	}
	for st := range g.active {
		if st.executing.Load() > 0 && !st.canceled.Load() {
			g.cancel(st, live)
		}
	}
}

// cancel cancels one statement for the memory it holds.
func (g *memoryGuard) cancel(st *guardedStmt, live uint64) {
	st.canceled.Store(true)
	st.cancel(errOverMemory)
	g.log.Warn("statement canceled: server memory near its limit", "live_mb", live>>20, "statement_mb", st.held.Load()>>20, "limit_mb", g.limit>>20)
}

// overMemoryError is the error of a statement the guard canceled.
func (g *memoryGuard) overMemoryError() error {
	return pgerr.New(pgerr.OutOfMemory, "out of memory: canceling statement while the server's memory is near its limit of %d MB", g.limit>>20).
		WithHint("Read fewer rows at once (a LIMIT, a cursor, COPY TO), or aggregate in the query or in a materialized view.")
}
