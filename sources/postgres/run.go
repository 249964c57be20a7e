package postgres

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
)

// runner is one Run of a source.
type runner struct {
	s    *Source
	sink sources.Sink
	// tables are the replicated tables, indexed like the outputs.
	tables []*table
	// pos is the position the engine committed last. While a session
	// streams, only its emitter goroutine writes it; between sessions
	// Run's goroutine owns it.
	pos position

	reported sources.State
	reason   string
}

// fatalError is a failure retrying cannot fix: Run returns it.
type fatalError struct{ err error }

func (e *fatalError) Error() string { return e.err.Error() }
func (e *fatalError) Unwrap() error { return e.err }

func fatal(err error) error { return &fatalError{err} }

// Run replicates until ctx ends. It connects upstream, checks that the
// slot and the position agree, snapshots the tables the position does
// not know, then streams from the position. Upstream failures (down,
// restarting, refusing connections, a missing publication) stall the
// source and are retried with backoff; Run returns an error only for
// what retrying cannot fix — the slot gone or advanced past the
// position, upstream restored from a backup or replaced, a corrupt
// position — or when the engine stops accepting batches.
func (s *Source) Run(ctx context.Context, resume map[string][]byte, sink sources.Sink) error {
	pos, err := decodePosition(resume)
	if err != nil {
		return err
	}
	r := &runner{s: s, sink: sink, pos: pos}
	ids := make(map[uint64]bool, len(s.tables))
	for i, t := range s.tables {
		r.tables = append(r.tables, newTable(t, i))
		ids[t.ID] = true
	}
	// Tables dropped from the source (DROP SUBSOURCE) leave the state
	// the next time it is written.
	maps.DeleteFunc(r.pos.tables, func(id uint64, _ tableState) bool { return !ids[id] })
	r.publishTables()
	r.report(sources.Starting, "")
	wait := s.cfg.RetryMin
	for {
		progressed, err := r.session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		var f *fatalError
		if errors.As(err, &f) {
			r.report(sources.Stalled, f.Error())
			s.log.Error("postgres source stopped", "err", f.err)
			return f.err
		}
		if progressed {
			wait = s.cfg.RetryMin
		}
		r.report(sources.Stalled, err.Error())
		s.log.Warn("postgres source stalled; retrying", "err", err, "retry_in", wait)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		wait = min(2*wait, s.cfg.RetryMax)
	}
}

// report tells the sink and the status board about a change of state.
func (r *runner) report(st sources.State, reason string) {
	if st == r.reported && reason == r.reason {
		return
	}
	r.reported, r.reason = st, reason
	r.s.status.set(func(b *statusBoard) { b.state, b.reason = st, reason })
	r.sink.Status(st, reason)
}

// publishTables copies the position's per-table stalls to the status
// board.
func (r *runner) publishTables() {
	r.s.status.set(func(b *statusBoard) {
		b.confirmed = r.pos.lsn
		for i, t := range r.tables {
			b.tables[i].Stalled = r.pos.tables[t.def.ID].stalled
		}
	})
}

// session is one connection to upstream: it returns when the connection
// fails or ctx ends. progressed says it got as far as streaming.
func (r *runner) session(ctx context.Context) (progressed bool, err error) {
	cfg := &r.s.cfg
	repl, err := cfg.Connection.connectReplication(ctx)
	if err != nil {
		return false, err
	}
	defer repl.Close(context.Background())
	// A canceled Run closes the socket under a blocked read.
	defer context.AfterFunc(ctx, func() { repl.Conn().Close() })()

	// Setup steps are bounded; see opTimeout.
	octx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	sys, err := pglogrepl.IdentifySystem(octx, repl)
	if err != nil {
		return false, upstreamError("identifying the upstream system", err)
	}
	sysid, err := parseSystemID(sys.SystemID)
	if err != nil {
		return false, err
	}
	if err := r.checkUpstream(sysid, sys.XLogPos); err != nil {
		return false, err
	}
	meta, err := cfg.Connection.connectSQL(ctx)
	if err != nil {
		return false, err
	}
	defer meta.Close(context.Background())
	defer context.AfterFunc(ctx, func() { meta.PgConn().Conn().Close() })()
	version, err := checkServer(octx, meta)
	if err != nil {
		return false, err
	}
	if err := checkPublication(octx, meta, cfg.Publication); err != nil {
		return false, err
	}
	for _, t := range r.tables {
		t.cols = slices.Clone(t.committed)
	}
	sess := &session{r: r, repl: repl, meta: meta, tr: newTypeResolver(), version: version, sysid: sysid}
	if err := sess.prepareSlot(ctx); err != nil {
		return false, err
	}
	if err := sess.snapshotPending(ctx); err != nil {
		return false, err
	}
	return sess.stream(ctx)
}

// checkUpstream refuses an upstream that is not the one the position
// came from: another system identifier is another cluster (a restore
// from a logical dump, a new server at the same address), and a WAL
// position behind the committed one is a restore from a physical backup.
// Going on would skip or repeat changes without a sign.
func (r *runner) checkUpstream(sysid uint64, walEnd pglogrepl.LSN) error {
	const fix = "DROP SOURCE and CREATE SOURCE again to replicate the upstream as it is now"
	if r.pos.sysid != 0 && r.pos.sysid != sysid {
		return fatal(pgerr.New(pgerr.ObjectNotInPrerequisiteState,
			"upstream system identifier is %d, not %d as when the source started: the server was replaced or restored from a dump; %s",
			sysid, r.pos.sysid, fix))
	}
	if r.pos.lsn > walEnd {
		return fatal(pgerr.New(pgerr.ObjectNotInPrerequisiteState,
			"upstream WAL ends at %s, before the committed position %s: the server was restored from a backup; %s",
			walEnd, r.pos.lsn, fix))
	}
	return nil
}

func parseSystemID(s string) (uint64, error) {
	var id uint64
	if _, err := fmt.Sscan(s, &id); err != nil {
		return 0, pgerr.New(pgerr.ProtocolViolation, "upstream system identifier %q is not a number", s)
	}
	return id, nil
}

// session holds one connection's state.
type session struct {
	r       *runner
	repl    *pgconn.PgConn
	meta    *pgx.Conn
	tr      *typeResolver
	version int
	sysid   uint64
	// created holds the slot this session created, with the snapshot it
	// exported, until the snapshot is read.
	created *pglogrepl.CreateReplicationSlotResult
}
