package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
)

// statusMinGap spaces the status updates that confirm newly committed
// positions; StatusInterval spaces them when nothing changes.
const statusMinGap = time.Second

// A connection counts as dead after 4 × StatusInterval (at least
// minSilence) without a message from upstream, reply requests
// notwithstanding: a peer gone without a TCP reset would otherwise keep
// a read waiting for the operating system's keepalives, minutes.
const minSilence = 2 * time.Second

// streamer turns the replication stream into batches. One goroutine (the
// session's) reads the connection and builds batches of whole
// transactions; a committer goroutine hands them to the engine one at a
// time. While the committer waits for a commit the reader keeps reading,
// adding whole transactions to the next batch up to MaxBatchChanges, so
// that small transactions share a batch without ever splitting one. Only
// the reader touches the connection: the committer wakes it by moving
// the connection's read deadline into the past.
type streamer struct {
	*session
	byRel map[uint32]*table
	m     message

	// view is the position after the last batch handed to the committer;
	// cur is the batch being built on top of it.
	view position
	cur  *pending

	inTxn    bool
	txnFinal pglogrepl.LSN
	txnXid   uint32
	txnTime  time.Time

	c *committer
	// inflightSince is the first commit time of the batch the committer
	// holds.
	inflightSince time.Time

	sentFlush   pglogrepl.LSN
	lastStatus  time.Time
	lastHeard   time.Time
	lastCheck   time.Time
	lastAdvance time.Time
	deadline    time.Time
}

// stream starts replication at the committed position and runs until the
// connection fails or ctx ends.
func (s *session) stream(ctx context.Context) (progressed bool, err error) {
	r := s.r
	cfg := &r.s.cfg
	st := &streamer{session: s, byRel: make(map[uint32]*table), view: r.pos.clone()}
	for _, t := range r.tables {
		st.byRel[t.def.OID] = t
		t.rel, t.relCols = nil, 0
	}
	st.cur = newPending(len(r.tables), &st.view)
	args := []string{"proto_version '1'", "publication_names " + quoteLiteral(quoteIdent(cfg.Publication))}
	octx, cancel := context.WithTimeout(ctx, opTimeout)
	err = pglogrepl.StartReplication(octx, s.repl, cfg.Slot, r.pos.lsn,
		pglogrepl.StartReplicationOptions{Mode: pglogrepl.LogicalReplication, PluginArgs: args})
	cancel()
	if err != nil {
		return false, upstreamError("starting replication", err)
	}
	r.report(sources.Running, "")
	r.s.log.Info("streaming", "from", r.pos.lsn.String())
	// The committer wakes the reader, which may be waiting for data
	// while it has a batch ready, by moving its read deadline.
	st.c = r.startCommitter(ctx, func() { _ = s.repl.Conn().SetReadDeadline(time.Unix(1, 0)) })
	defer func() {
		if ferr := st.c.stop(); ferr != nil {
			err = ferr
		}
	}()
	now := time.Now()
	st.lastStatus, st.lastCheck, st.lastAdvance, st.lastHeard = now, now, now, now
	return true, st.loop(ctx)
}

func (st *streamer) loop(ctx context.Context) error {
	cfg := &st.r.s.cfg
	for {
		if err, ok := st.c.poll(); ok {
			if err := st.collected(err); err != nil {
				return err
			}
		}
		if !st.c.busy && !st.inTxn && st.cur.ready(&st.view) {
			st.handOff()
		}
		now := time.Now()
		if now.Sub(st.lastCheck) >= cfg.StatusInterval {
			if err := st.check(ctx); err != nil {
				return err
			}
		}
		if f := st.c.committed(); now.Sub(st.lastStatus) >= cfg.StatusInterval ||
			f > st.sentFlush && now.Sub(st.lastStatus) >= statusMinGap {
			if err := st.sendStatus(); err != nil {
				return err
			}
		}
		wake := st.lastStatus.Add(cfg.StatusInterval)
		if f := st.c.committed(); f > st.sentFlush {
			wake = st.lastStatus.Add(statusMinGap)
		}
		if st.c.busy && !st.inTxn && st.cur.changes >= cfg.MaxBatchChanges {
			// Backpressure: stop reading until the engine takes the
			// waiting batch.
			select {
			case err := <-st.c.done:
				st.c.busy = false
				if err := st.collected(err); err != nil {
					return err
				}
			case <-time.After(time.Until(wake)):
			case <-ctx.Done():
				return ctx.Err()
			}
			continue
		}
		if !wake.Equal(st.deadline) {
			if err := st.repl.Conn().SetReadDeadline(wake); err != nil {
				return upstreamError("replication stream", err)
			}
			st.deadline = wake
		}
		if len(st.c.done) > 0 {
			continue
		}
		msg, err := st.repl.ReceiveMessage(context.Background())
		if err != nil {
			if pgconn.Timeout(err) {
				st.deadline = time.Time{}
				if silent := time.Since(st.lastHeard); silent > st.silence() {
					return pgerr.New(pgerr.ConnectionException, "upstream sent nothing for %s", silent.Round(time.Second))
				}
				continue
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return upstreamError("replication stream", err)
		}
		st.lastHeard = time.Now()
		switch msg := msg.(type) {
		case *pgproto3.CopyData:
			if err := st.copyData(ctx, msg.Data); err != nil {
				return err
			}
		case *pgproto3.ErrorResponse:
			return upstreamError("replication stream", pgconn.ErrorResponseToPgError(msg))
		case *pgproto3.CopyDone:
			return pgerr.New(pgerr.ConnectionException, "upstream ended the replication stream")
		}
	}
}

// silence is how long upstream may say nothing before its connection
// counts as dead.
func (st *streamer) silence() time.Duration {
	return max(minSilence, 4*st.r.s.cfg.StatusInterval)
}

// ready reports whether p holds anything to commit: whole transactions,
// a state change, or an advanced position.
func (p *pending) ready(view *position) bool {
	return p.txns > 0 || p.stateChanged || p.next.lsn != view.lsn
}

// handOff gives the current batch to the committer.
func (st *streamer) handOff() {
	p := st.cur
	st.view = p.next
	st.cur = newPending(len(st.r.tables), &st.view)
	st.inflightSince = p.firstCommit
	st.c.send(p)
}

// collected notes the committer's result for the batch it held.
func (st *streamer) collected(err error) error {
	st.inflightSince = time.Time{}
	st.updateLag()
	return err
}

// updateLag publishes the commit time of the oldest transaction received
// but not committed.
func (st *streamer) updateLag() {
	since := st.inflightSince
	if since.IsZero() && st.cur.txns > 0 {
		since = st.cur.firstCommit
	}
	st.r.s.status.set(func(b *statusBoard) { b.pendingSince = since })
}

// sendStatus confirms the committed position upstream: the slot may then
// recycle the WAL before it. Only what the engine committed is confirmed.
// After a quiet StatusInterval it asks for a reply, so that a live
// upstream always says something before the silence limit.
func (st *streamer) sendStatus() error {
	f := st.c.committed()
	reply := time.Since(st.lastHeard) >= st.r.s.cfg.StatusInterval
	err := pglogrepl.SendStandbyStatusUpdate(context.Background(), st.repl,
		pglogrepl.StandbyStatusUpdate{WALWritePosition: f, WALFlushPosition: f, WALApplyPosition: f, ReplyRequested: reply})
	if err != nil {
		return upstreamError("confirming the replication position", err)
	}
	st.sentFlush, st.lastStatus = f, time.Now()
	return nil
}

// check looks at upstream beside the stream: how far its WAL goes (for
// the lag) and whether the publication still covers each table. A table
// it no longer covers stalls: pgoutput just stops sending its changes.
func (st *streamer) check(ctx context.Context) error {
	st.lastCheck = time.Now()
	ctx, cancel := context.WithTimeout(ctx, st.silence())
	defer cancel()
	var (
		walEnd string
		exists bool
		oids   []uint32
	)
	err := st.meta.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text,
			EXISTS (SELECT 1 FROM pg_catalog.pg_publication WHERE pubname = $1),
			ARRAY(SELECT c.oid FROM pg_catalog.pg_publication_tables pt
				JOIN pg_catalog.pg_namespace n ON n.nspname = pt.schemaname
				JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = pt.tablename
				WHERE pt.pubname = $1)`, st.r.s.cfg.Publication).Scan(&walEnd, &exists, &oids)
	if err != nil {
		return upstreamError("checking the upstream publication", err)
	}
	if lsn, err := pglogrepl.ParseLSN(walEnd); err == nil {
		st.r.s.status.set(func(b *statusBoard) { b.serverLSN = max(b.serverLSN, lsn) })
	}
	if !exists {
		return pgerr.New(pgerr.UndefinedObject, "publication %q does not exist upstream", st.r.s.cfg.Publication)
	}
	pub := st.r.s.cfg.Publication
	for _, t := range st.r.tables {
		if st.cur.next.tables[t.def.ID].stalled == "" && !slices.Contains(oids, t.def.OID) {
			st.r.stall(st.cur, t, fmt.Sprintf("publication %q no longer covers upstream table %s; add it back (ALTER PUBLICATION %s ADD TABLE %s) and recreate the subsource (ALTER SOURCE … DROP SUBSOURCE %s, then ADD SUBSOURCE %s)",
				pub, t.qname, maybeQuote(pub), t.qname, maybeQuote(t.def.Output.Name), t.qname))
		}
	}
	return nil
}

// copyData handles one message of the replication stream.
func (st *streamer) copyData(ctx context.Context, data []byte) error {
	if len(data) == 0 {
		return pgerr.New(pgerr.ProtocolViolation, "empty replication message")
	}
	switch data[0] {
	case pglogrepl.PrimaryKeepaliveMessageByteID:
		ka, err := pglogrepl.ParsePrimaryKeepaliveMessage(data[1:])
		if err != nil {
			return pgerr.Wrap(err, pgerr.ProtocolViolation, "")
		}
		st.r.s.status.set(func(b *statusBoard) { b.serverLSN = max(b.serverLSN, ka.ServerWALEnd) })
		st.idleAdvance(ka.ServerWALEnd)
		if ka.ReplyRequested {
			return st.sendStatus()
		}
	case pglogrepl.XLogDataByteID:
		xld, err := pglogrepl.ParseXLogData(data[1:])
		if err != nil {
			return pgerr.Wrap(err, pgerr.ProtocolViolation, "")
		}
		return st.message(ctx, xld.WALStart, xld.WALData)
	}
	return nil
}

// idleAdvance moves the position to upstream's sent WAL position while
// nothing is in flight, at most every StatusInterval: the WAL there held
// nothing for this source, and committing the position lets the slot
// release it (a quiet source would otherwise keep upstream's WAL
// forever) while keeping the committed position the only one confirmed.
func (st *streamer) idleAdvance(walEnd pglogrepl.LSN) {
	if st.inTxn || st.c.busy || st.cur.ready(&st.view) || walEnd <= st.view.lsn ||
		time.Since(st.lastAdvance) < st.r.s.cfg.StatusInterval {
		return
	}
	st.lastAdvance = time.Now()
	st.cur.next.lsn = walEnd
}

// pgEpoch is PostgreSQL's timestamp origin.
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// message applies one pgoutput message at WAL position lsn.
func (st *streamer) message(ctx context.Context, lsn pglogrepl.LSN, data []byte) error {
	m := &st.m
	if err := decode(data, m); err != nil {
		return pgerr.Wrap(err, pgerr.ProtocolViolation, "")
	}
	switch m.kind {
	case msgBegin:
		st.inTxn, st.txnFinal, st.txnXid = true, m.finalLSN, m.xid
		st.txnTime = pgEpoch.Add(time.Duration(m.commitTime) * time.Microsecond)
	case msgCommit:
		if !st.inTxn {
			return pgerr.New(pgerr.ProtocolViolation, "commit outside a transaction in the replication stream")
		}
		st.inTxn = false
		p := st.cur
		p.next.lsn = m.endLSN
		p.txns++
		p.batch.Time = st.txnTime
		if p.txns == 1 {
			p.firstCommit = st.txnTime
			st.updateLag()
		}
	case msgRelation:
		st.relation(m.rel)
	case msgInsert, msgUpdate, msgDelete:
		if !st.inTxn {
			return pgerr.New(pgerr.ProtocolViolation, "change outside a transaction in the replication stream")
		}
		t := st.byRel[m.relid]
		if t == nil || !st.applies(t) {
			return nil
		}
		return st.change(ctx, t, lsn, data)
	case msgTruncate:
		for _, relid := range m.truncRelids {
			if t := st.byRel[relid]; t != nil && st.applies(t) {
				st.truncate(t)
			}
		}
	}
	return nil
}

// applies reports whether the current transaction's changes to t are
// applied: t has not stalled, and the transaction committed at or after
// t's snapshot (those before it are in the snapshot).
func (st *streamer) applies(t *table) bool {
	ts := st.cur.next.tables[t.def.ID]
	return ts.stalled == "" && ts.snapshot <= st.txnFinal
}
