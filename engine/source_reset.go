package engine

import (
	"context"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// sourceReset is ALTER SOURCE … RESET of one source: src is the source
// built afresh from its definition, to run in place of the old one.
type sourceReset struct {
	id  uint64
	src sources.Source
}

// ResetSource makes a source start over, for when its upstream no longer
// holds what its positions point at (a Kafka topic deleted and created
// again, or a broker that lost records): its stored positions and state
// are forgotten and its progress relation emptied in one tick, and src,
// built afresh from the source's definition, runs in its place from the
// start, as a new source would. The rows it ingested stay.
func (e *Engine) ResetSource(ctx context.Context, id uint64, src sources.Source) error {
	return e.submit(ctx, &coordReq{reset: &sourceReset{id: id, src: src}})
}

// applyReset forgets a source's positions and progress in the tick's
// batch. The running source is marked dropped at once, so that batches
// it still emits are refused rather than store positions again.
func (e *Engine) applyReset(r *sourceReset, batch *storage.Batch, deltas map[uint64]dataflow.Batch) error {
	e.sourcesMu.Lock()
	rs := e.running[r.id]
	e.sourcesMu.Unlock()
	if rs == nil {
		return pgerr.New(pgerr.UndefinedObject, "source %d is not running", r.id)
	}
	rs.dropped = true
	batch.DropPositions(r.id)
	progress, ok := e.tables[rs.progress]
	if !ok {
		return nil
	}
	var changes []sources.Change
	err := progress.snapshot().Scan(func(_ string, row types.Row) bool {
		changes = append(changes, sources.Change{Key: types.Row{row[0]}})
		return true
	})
	if err != nil {
		return err
	}
	return e.applyChanges(rs, rs.progress, changes, batch, deltas)
}

// restartSource runs a reset source's new runtime in place of the old
// one, which stops.
func (e *Engine) restartSource(ctx context.Context, r *sourceReset) {
	e.sourcesMu.Lock()
	old := e.running[r.id]
	if old == nil {
		e.sourcesMu.Unlock()
		return
	}
	rs := runningFor(e.cat, old.obj, r.src)
	rs.resume = map[string][]byte{}
	e.running[r.id] = rs
	e.sourcesMu.Unlock()
	if old.cancel != nil {
		old.cancel()
	}
	e.log.Info("source reset", "source", old.obj.Name)
	e.startSource(ctx, rs)
}
