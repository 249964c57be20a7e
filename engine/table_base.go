package engine

import (
	"runtime"
	"sync"

	"github.com/streamdb/streamdb/storage"
)

// Tables live in the store, not in memory. A table's contents at a tick
// are a snapshot of the store, the base, with the rows changed since the
// base was taken laid over it: each table keeps those in a small
// copy-on-write tree, its overlay, which a TableSnap copies in O(1), so
// that every published snapshot reads the tick it was published at
// while later ticks write on. One base serves every table. Once the
// overlays hold rebaseRows rows, or rebaseEvery has passed, the engine
// takes a new base after a tick's commit and empties the overlays:
// memory holds recent writes, never a table, and a restart reads no
// row. A base is closed once no published snapshot refers to it any
// more (the garbage collector tells, see newBase), so that at any time
// only a few bases hold back the store's compactions.

// rebaseRows is how many overlaid rows make the engine take a new base.
const rebaseRows = 1 << 16

// baseSnap is a base: a store snapshot shared by the TableSnaps made
// while it was current.
type baseSnap struct {
	s *storage.Snapshot
}

// bases tracks the bases not yet closed, so that Close closes those the
// garbage collector has not.
type bases struct {
	mu   sync.Mutex
	open map[*storage.Snapshot]struct{}
}

// newBase takes a base and arranges for it to be closed when no TableSnap
// refers to it any more.
func (b *bases) newBase(store *storage.DB) *baseSnap {
	s := store.NewSnapshot()
	b.mu.Lock()
	if b.open == nil {
		b.open = map[*storage.Snapshot]struct{}{}
	}
	b.open[s] = struct{}{}
	b.mu.Unlock()
	base := &baseSnap{s: s}
	runtime.AddCleanup(base, b.release, s)
	return base
}

// release closes a base the garbage collector found unreachable, unless
// Close closed it already.
func (b *bases) release(s *storage.Snapshot) {
	b.mu.Lock()
	_, open := b.open[s]
	delete(b.open, s)
	b.mu.Unlock()
	if open {
		_ = s.Close()
	}
}

// closeAll closes every base still open, before the store closes.
func (b *bases) closeAll() {
	b.mu.Lock()
	open := b.open
	b.open = nil
	b.mu.Unlock()
	for s := range open {
		_ = s.Close()
	}
}
