package postgres

import (
	"context"
	"time"

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
