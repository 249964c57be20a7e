package postgres

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/jackc/pglogrepl"

	"github.com/streamdb/streamdb/sources"
)

// pending is a batch with the position the engine records with it.
type pending struct {
	batch *sources.Batch
	// next is the whole position after the batch; stateChanged says its
	// state partition differs from the one before.
	next         position
	stateChanged bool
	// changes counts the batch's changes; txns its whole transactions.
	changes int
	txns    int
	// firstCommit is the commit time of its first transaction.
	firstCommit time.Time
}

func newPending(outputs int, pos *position) *pending {
	return &pending{batch: &sources.Batch{Changes: make([][]sources.Change, outputs)}, next: pos.clone()}
}

// commit hands p's batch to the engine and, once Emit returned (the
// engine committed it durably), makes p's position the committed one.
func (r *runner) commit(ctx context.Context, p *pending) error {
	b := p.batch
	progress := make(map[string][]byte, 2)
	if p.next.lsn != 0 && p.next.lsn != r.pos.lsn {
		progress[partLSN] = encodeLSN(p.next.lsn)
	}
	if p.stateChanged || r.pos.empty() {
		progress[partState] = p.next.encodeState()
	}
	if len(progress) > 0 {
		b.Progress = progress
	}
	if err := r.sink.Emit(ctx, b); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fatal(err)
	}
	r.pos = p.next
	for _, ac := range b.AddColumns {
		t := r.tables[ac.Output]
		t.committed = append(t.committed, ac.Column)
	}
	lsn := p.next.lsn
	r.s.status.set(func(b *statusBoard) {
		b.confirmed = lsn
		if b.serverLSN < lsn {
			b.serverLSN = lsn
		}
	})
	return nil
}

// stall marks a table stalled in p's position: its output keeps its rows
// and follows upstream no more.
func (r *runner) stall(p *pending, t *table, reason string) {
	st := p.next.tables[t.def.ID]
	if st.stalled != "" {
		return
	}
	st.stalled = reason
	p.next.tables[t.def.ID] = st
	p.stateChanged = true
	r.s.log.Warn("postgres table stalled", "table", t.qname, "output", t.def.Output.Name, "reason", reason)
	r.s.status.set(func(b *statusBoard) { b.tables[t.out].Stalled = reason })
}

// committer hands batches to the engine from a goroutine of its own, one
// at a time, so that reading upstream goes on while the engine commits
// (Emit returns only once the batch is durable, which takes a disk
// flush). Only the committer's goroutine calls commit, so r.pos is its
// until stop returns.
type committer struct {
	work   chan *pending
	done   chan error
	exited chan struct{}
	// busy says a batch was sent whose result was not collected.
	busy    bool
	stopped bool
	// flushed is the position of the last committed batch.
	flushed atomic.Uint64
}

// startCommitter starts the goroutine; wake, when set, is called after
// each commit.
func (r *runner) startCommitter(ctx context.Context, wake func()) *committer {
	c := &committer{work: make(chan *pending), done: make(chan error, 1), exited: make(chan struct{})}
	c.flushed.Store(uint64(r.pos.lsn))
	go func() {
		defer close(c.exited)
		for p := range c.work {
			err := r.commit(ctx, p)
			if err == nil {
				c.flushed.Store(uint64(p.next.lsn))
			}
			c.done <- err
			if wake != nil {
				wake()
			}
			if err != nil {
				return
			}
		}
	}()
	return c
}

// send hands p over; the previous batch's result must have been
// collected.
func (c *committer) send(p *pending) {
	c.busy = true
	c.work <- p
}

// wait collects the result of the batch in flight, if any.
func (c *committer) wait() error {
	if !c.busy {
		return nil
	}
	c.busy = false
	return <-c.done
}

// poll collects the result of the batch in flight if it is there.
func (c *committer) poll() (err error, collected bool) {
	select {
	case err := <-c.done:
		c.busy = false
		return err, true
	default:
		return nil, false
	}
}

// committed returns the position of the last committed batch.
func (c *committer) committed() pglogrepl.LSN { return pglogrepl.LSN(c.flushed.Load()) }

// stop ends the goroutine once the batch in flight is committed, and
// returns that batch's failure if it was one retrying cannot fix. Calls
// after the first do nothing.
func (c *committer) stop() error {
	if c.stopped {
		return nil
	}
	c.stopped = true
	close(c.work)
	<-c.exited
	var err error
	if c.busy {
		err = <-c.done
		c.busy = false
	}
	var f *fatalError
	if errors.As(err, &f) {
		return err
	}
	return nil
}
