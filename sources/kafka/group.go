package kafka

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// groupCommitInterval spaces the commits of positions to the consumer
// group: monitoring needs the lag to within seconds, not an extra request
// per batch.
const groupCommitInterval = time.Second

// groupCommitter copies the positions the engine has committed to
// Config.GroupID, so that the usual Kafka tools (kafka-consumer-groups,
// lag exporters) see how far the source has read. The group is only a
// mirror: the positions committed with the data in Pebble are the ones
// the source resumes from, so a failed commit costs nothing but a stale
// lag reading. It is logged once per streak of failures and retried every
// interval, whether or not new records arrive, so a quiet topic's lag
// does not stay wrong.
type groupCommitter struct {
	adm   *kadm.Client
	group string
	topic string
	// offsets are the positions committed so far, partition → next
	// offset, and dirty says they changed since the last commit; only
	// the loop goroutine touches them.
	offsets map[int32]int64
	dirty   bool
	last    time.Time
	// busy is set while a commit is in flight; the loop skips a commit
	// rather than queue one behind it. wait waits for it when Run ends.
	busy atomic.Bool
	wg   sync.WaitGroup
	// failing is set after a failed commit, so that a broker refusing
	// them logs once per streak rather than every interval.
	failing atomic.Bool
}

func newGroupCommitter(adm *kadm.Client, group, topic string) *groupCommitter {
	return &groupCommitter{adm: adm, group: group, topic: topic, offsets: make(map[int32]int64)}
}

// committed records a batch's positions once the engine has committed
// them.
func (g *groupCommitter) committed(progress map[int32]int64) {
	for p, off := range progress {
		g.offsets[p] = off
	}
	g.dirty = true
}

// maybeCommit commits the positions to the group if they changed or the
// last commit failed, at most once per groupCommitInterval; the loop calls
// it every round, so the last positions are committed once the topic goes
// quiet.
func (g *groupCommitter) maybeCommit(r *runner) {
	if !g.dirty && !g.failing.Load() || time.Since(g.last) < groupCommitInterval || !g.busy.CompareAndSwap(false, true) {
		return
	}
	g.last, g.dirty = time.Now(), false
	offs := make(kadm.Offsets)
	for p, off := range g.offsets {
		offs.AddOffset(g.topic, p, off, -1)
	}
	g.wg.Go(func() {
		defer g.busy.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, err := g.adm.CommitOffsets(ctx, g.group, offs)
		if err == nil {
			err = resp.Error()
		}
		switch {
		case err == nil:
			g.failing.Store(false)
		case !g.failing.Swap(true):
			r.src.log.Warn("kafka consumer group commit failed", "group", g.group, "err", err)
		}
	})
}

// wait waits for a commit in flight.
func (g *groupCommitter) wait() { g.wg.Wait() }
