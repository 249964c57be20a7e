package loadgen

import (
	"time"

	"github.com/streamdb/streamdb/sources"
)

// tpchUpdates produces the ticks that follow the TPCH snapshot when TICK
// INTERVAL is set, as Materialize's generator does: tick k replaces one
// order, chosen by (seed, k), with a new version: the old order and its
// lineitems are retracted and version k+1, with the same key and freshly
// drawn values, is inserted.
//
// Retracting needs the order's current version, the last tick that chose
// it. versions records it; a resumed source rebuilds it by replaying the
// choices of the ticks already emitted, integer work only (about a second
// per ten million ticks), instead of storing it.
type tpchUpdates struct {
	g *tpchGen
	// versions maps an order index to its current version; absent is 0,
	// the snapshot's.
	versions map[int64]int64
}

func newTPCHUpdates(g *tpchGen, done int64) *tpchUpdates {
	u := &tpchUpdates{g: g, versions: map[int64]int64{}}
	for k := range done {
		u.versions[u.pick(k)] = k + 1
	}
	return u
}

// pick returns the index of the order tick k replaces.
func (u *tpchUpdates) pick(k int64) int64 {
	r := unitRNG(u.g.seed, streamOrderUpdates, k)
	return r.intn(u.g.plan.orders)
}

func (u *tpchUpdates) tick(k int64, _ time.Time) [][]sources.Change {
	i := u.pick(k)
	changes := make([][]sources.Change, tpchNumOutputs)
	u.g.order(i, u.versions[i], -1, changes)
	u.versions[i] = k + 1
	u.g.order(i, k+1, 1, changes)
	return changes
}
