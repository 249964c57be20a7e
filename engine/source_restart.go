package engine

import (
	"context"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/sources"
)

// A source's runtime is replaced when what it ingests changes (ALTER
// SOURCE … ADD or DROP SUBSOURCE): the new runtime, built from the
// catalog as the change leaves it, must resume exactly where the old one
// committed. The old runtime is marked dropped and canceled when the
// change commits, so that a batch of it still on its way is refused; the
// new one starts once the old one's Run has returned — an upstream
// connection it holds (a replication slot) is free again — from the
// positions then stored, which are those of the old runtime's last
// committed batch.

// ReplaceSource gives source src the runtime s once the change commits,
// in place of the one running. The relations s's outputs fill must be in
// the catalog the change leaves.
func (tx *DDL) ReplaceSource(src *catalog.Object, s sources.Source) {
	tx.afterCommit(func(ctx context.Context, e *Engine) {
		rs := runningFor(e.cat, src, s)
		e.sourcesMu.Lock()
		old := e.running[src.ID]
		e.running[src.ID] = rs
		e.sourcesMu.Unlock()
		if old != nil {
			old.dropped = true
			if old.started {
				old.cancel()
				rs.after = old.done
			} else {
				rs.after = old.after
			}
		}
		if rs.after == nil {
			e.startReplaced(ctx, rs)
			return
		}
		go func() {
			select {
			case <-rs.after:
			case <-e.stopped:
				return
			}
			_ = e.submit(context.Background(), &coordReq{call: func(ctx context.Context, e *Engine) error {
				e.startReplaced(ctx, rs)
				return nil
			}})
		}()
	})
}

// startReplaced starts a replacing runtime from the stored positions,
// unless it was replaced or dropped in the meantime.
func (e *Engine) startReplaced(ctx context.Context, rs *runningSource) {
	e.sourcesMu.Lock()
	current := e.running[rs.obj.ID] == rs
	e.sourcesMu.Unlock()
	if !current || rs.dropped {
		return
	}
	rs.resume = map[string][]byte{}
	if err := e.store.Positions(rs.obj.ID, func(part string, pos []byte) error {
		rs.resume[part] = append([]byte(nil), pos...)
		return nil
	}); err != nil {
		e.log.Error("source not restarted: reading its positions failed", "source", rs.obj.Name, "err", err)
		sink := &sourceSink{e: e, rs: rs}
		sink.Status(sources.Stalled, "reading the stored positions failed: "+err.Error())
		return
	}
	e.startSource(ctx, rs)
}

// SourceDone returns a channel closed once source id's runtime has
// stopped, for DROP SOURCE to clean up after it (a PostgreSQL source's
// replication slot can only be dropped once nothing streams from it).
// Call it on the coordinator (in a catalog change) before the change
// that drops the source: afterwards the source is gone. A source that
// is not running has a closed channel.
func (tx *DDL) SourceDone(id uint64) <-chan struct{} {
	e := tx.e
	e.sourcesMu.Lock()
	rs := e.running[id]
	e.sourcesMu.Unlock()
	switch {
	case rs == nil:
	case rs.started:
		return rs.done
	case rs.after != nil:
		return rs.after
	}
	done := make(chan struct{})
	close(done)
	return done
}

// Source returns the runtime of a running source, for the front end to
// report what only that kind of source knows (SHOW SOURCES).
func (e *Engine) Source(id uint64) (sources.Source, bool) {
	e.sourcesMu.Lock()
	defer e.sourcesMu.Unlock()
	rs := e.running[id]
	if rs == nil {
		return nil, false
	}
	return rs.src, true
}
