package sql

import (
	"context"
	"errors"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/streamdb/streamdb/pgerr"
)

// memoryGuard keeps one statement from taking the server down: a query
// that builds a result of billions of rows (a one-tick query holds each
// operator's whole output) would grow the heap until the kernel killed
// the process, and with it every view and session. Instead, when the
// heap's live objects exceed the limit, every running statement is
// canceled and fails with 53200 (out_of_memory), as PostgreSQL fails a
// query that cannot allocate; the views, sources and sessions carry on.
// One goroutine samples the heap for all statements, and sleeps while
// none runs.
type memoryGuard struct {
	limit uint64
	// started wakes the sampler when a statement starts.
	started chan struct{}

	mu     sync.Mutex
	next   uint64
	active map[uint64]context.CancelCauseFunc
}

// errOverMemory is the cause of a statement canceled by the guard.
var errOverMemory = errors.New("server memory over its limit")

// memoryGuardEvery is how often the guard samples the heap: a statement
// allocates at most a few hundred megabytes in between.
const memoryGuardEvery = 10 * time.Millisecond

func newMemoryGuard(limit uint64) *memoryGuard {
	return &memoryGuard{limit: limit, started: make(chan struct{}, 1), active: map[uint64]context.CancelCauseFunc{}}
}

// defaultMemoryLimit is three quarters of the memory the process may use:
// the least of the machine's memory, its cgroup's limit and GOMEMLIMIT.
// The rest is headroom for garbage not yet collected and for Pebble's
// memory outside the Go heap.
func defaultMemoryLimit() uint64 {
	var info syscall.Sysinfo_t
	limit := uint64(1) << 62
	if syscall.Sysinfo(&info) == nil {
		limit = uint64(info.Totalram) * uint64(info.Unit)
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil {
			limit = min(limit, n)
		}
	}
	if n := debug.SetMemoryLimit(-1); n > 0 {
		limit = min(limit, uint64(n))
	}
	return limit / 4 * 3
}

// run samples the heap until ctx ends and cancels the running statements
// while it is over the limit.
func (g *memoryGuard) run(ctx context.Context) {
	t := time.NewTicker(memoryGuardEvery)
	defer t.Stop()
	var collected time.Time
	for {
		if g.idle() {
			t.Stop()
			select {
			case <-ctx.Done():
				return
			case <-g.started:
			}
			t.Reset(memoryGuardEvery)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if heapBytes(heapObjectsMetric) <= g.limit {
			continue
		}
		// Objects count until they are swept, so the live heap is
		// judged: after a collection of our own, or, within a second of
		// one (a collection of a large heap takes a while), as the
		// latest collection found it.
		live := heapBytes(heapLiveMetric)
		if time.Since(collected) >= time.Second {
			runtime.GC()
			collected = time.Now()
			live = heapBytes(heapObjectsMetric)
		}
		if live > g.limit {
			g.cancelAll()
		}
	}
}

const (
	heapObjectsMetric = "/memory/classes/heap/objects:bytes"
	heapLiveMetric    = "/gc/heap/live:bytes"
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

func (g *memoryGuard) cancelAll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, cancel := range g.active {
		cancel(errOverMemory)
	}
}

// track returns a context for one statement that the guard cancels, and
// the function to call when the statement is done.
func (g *memoryGuard) track(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	g.mu.Lock()
	id := g.next
	g.next++
	g.active[id] = cancel
	g.mu.Unlock()
	select {
	case g.started <- struct{}{}:
	default:
	}
	return ctx, func() {
		g.mu.Lock()
		delete(g.active, id)
		g.mu.Unlock()
		cancel(nil)
	}
}

// statementError is the error of a statement the guard canceled, err
// otherwise.
func (g *memoryGuard) statementError(ctx context.Context, err error) error {
	if err == nil || !errors.Is(context.Cause(ctx), errOverMemory) {
		return err
	}
	return pgerr.New(pgerr.OutOfMemory, "out of memory: canceling statement while the server's memory is above its limit of %d MB", g.limit>>20).
		WithHint("Read fewer rows at once (a LIMIT, a cursor, COPY TO), or aggregate in the query or in a materialized view.")
}
