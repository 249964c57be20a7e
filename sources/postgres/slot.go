package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/streamdb/streamdb/pgerr"
)

// slotInfo is a replication slot as pg_replication_slots shows it.
type slotInfo struct {
	plugin    string
	database  string
	activePID int32
	confirmed pglogrepl.LSN
	// walStatus is "lost" once max_slot_wal_keep_size made upstream
	// remove WAL the slot still needed.
	walStatus string
}

// readSlot returns the slot named name, nil when there is none.
func readSlot(ctx context.Context, q *pgx.Conn, name string) (*slotInfo, error) {
	var (
		s         slotInfo
		pid       *int32
		plugin    *string
		db        *string
		confirmed *string
		walStatus *string
	)
	err := q.QueryRow(ctx, `SELECT plugin, database, active_pid, confirmed_flush_lsn::text, wal_status
		FROM pg_catalog.pg_replication_slots WHERE slot_name = $1`, name).
		Scan(&plugin, &db, &pid, &confirmed, &walStatus)
	if err == pgx.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, upstreamError("reading the upstream replication slots", err)
	}
	s.plugin, s.database, s.walStatus = deref(plugin), deref(db), deref(walStatus)
	if pid != nil {
		s.activePID = *pid
	}
	if confirmed != nil {
		if s.confirmed, err = pglogrepl.ParseLSN(*confirmed); err != nil {
			return nil, err
		}
	}
	return &s, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// prepareSlot makes sure the source's slot exists and agrees with the
// committed position.
//
// Before the engine has committed anything, a slot of the source's name
// can only be left from an earlier attempt that created it and stopped
// before its first batch committed: it is dropped and created again,
// exporting the snapshot the tables are then read in. Once anything is
// committed the slot must be there, unadvanced past the position: a slot
// dropped, invalidated or advanced behind the source's back has lost
// changes, and the source stops rather than resnapshot silently.
func (s *session) prepareSlot(ctx context.Context) error {
	r := s.r
	name := r.s.cfg.Slot
	slot, err := readSlot(ctx, s.meta, name)
	if err != nil {
		return err
	}
	const fix = "DROP SOURCE and CREATE SOURCE again to resnapshot"
	if slot != nil && slot.activePID != 0 {
		// Most often the walsender of this source's previous connection,
		// still going away; retried.
		return pgerr.New(pgerr.ObjectInUse, "replication slot %q is in use by upstream process %d (a connection of this source that upstream has not yet seen go keeps it until upstream's wal_sender_timeout)", name, slot.activePID)
	}
	if !r.pos.empty() {
		switch {
		case slot == nil:
			return fatal(pgerr.New(pgerr.ObjectNotInPrerequisiteState,
				"replication slot %q no longer exists upstream, so the changes after %s are lost; %s", name, r.pos.lsn, fix))
		case slot.walStatus == "lost":
			return fatal(pgerr.New(pgerr.ObjectNotInPrerequisiteState,
				"replication slot %q was invalidated upstream (max_slot_wal_keep_size), so the changes after %s are lost; %s", name, r.pos.lsn, fix))
		case slot.plugin != "pgoutput" || slot.database != r.s.cfg.Connection.Database:
			return fatal(pgerr.New(pgerr.ObjectNotInPrerequisiteState,
				"replication slot %q is not a pgoutput slot of database %q", name, r.s.cfg.Connection.Database))
		case slot.confirmed > r.pos.lsn:
			return fatal(pgerr.New(pgerr.ObjectNotInPrerequisiteState,
				"replication slot %q was advanced upstream to %s, past the committed position %s, so the changes between are lost; %s",
				name, slot.confirmed, r.pos.lsn, fix))
		}
		return nil
	}
	if slot != nil {
		r.s.log.Warn("dropping replication slot left by an earlier start", "slot_lsn", slot.confirmed.String())
		if err := pglogrepl.DropReplicationSlot(ctx, s.repl, name, pglogrepl.DropReplicationSlotOptions{}); err != nil {
			return upstreamError("dropping replication slot "+name, err)
		}
	}
	res, err := pglogrepl.CreateReplicationSlot(ctx, s.repl, name, "pgoutput",
		pglogrepl.CreateReplicationSlotOptions{Mode: pglogrepl.LogicalReplication, SnapshotAction: "EXPORT_SNAPSHOT"})
	if err != nil {
		return upstreamError("creating replication slot "+name, err)
	}
	r.s.log.Info("created replication slot", "consistent_point", res.ConsistentPoint)
	s.created = &res
	return nil
}

// DropSlot drops the source's replication slot upstream, for DROP SOURCE;
// a slot that is already gone is not an error. Run must have returned:
// the slot cannot be dropped while a connection streams from it, so
// DropSlot waits (until ctx ends) for upstream to notice the last one
// closed.
func DropSlot(ctx context.Context, conn Connection, slot string) error {
	if !slotName.MatchString(slot) {
		return pgerr.New(pgerr.InvalidParameterValue, "invalid replication slot name %q", slot)
	}
	repl, err := conn.connectReplication(ctx)
	if err != nil {
		return err
	}
	defer repl.Close(context.Background())
	for {
		err := pglogrepl.DropReplicationSlot(ctx, repl, slot, pglogrepl.DropReplicationSlotOptions{})
		pe, ok := asPgError(err)
		switch {
		case err == nil:
			return nil
		case ok && pe.Code == "42704": // undefined_object: no such slot
			return nil
		case ok && pe.Code == "55006": // object_in_use
		default:
			return upstreamError("dropping replication slot "+slot, err)
		}
		select {
		case <-ctx.Done():
			return pgerr.New(pgerr.ObjectInUse, "replication slot %q is still in use upstream: %s", slot, pe.Message)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// createTempSlot creates a temporary slot on its own replication
// connection and returns the snapshot it exported with its consistent
// point; the slot goes when the connection closes, which the caller does
// once it has imported the snapshot.
func (s *session) createTempSlot(ctx context.Context) (*pgconn.PgConn, pglogrepl.CreateReplicationSlotResult, error) {
	repl, err := s.r.s.cfg.Connection.connectReplication(ctx)
	if err != nil {
		return nil, pglogrepl.CreateReplicationSlotResult{}, err
	}
	// At most 48 + 14 characters: slot names end at 63.
	name := fmt.Sprintf("%s_tmp%x", s.r.s.cfg.Slot, time.Now().UnixNano()&0xff_ffff_ffff)
	res, err := pglogrepl.CreateReplicationSlot(ctx, repl, name, "pgoutput",
		pglogrepl.CreateReplicationSlotOptions{Temporary: true, Mode: pglogrepl.LogicalReplication, SnapshotAction: "EXPORT_SNAPSHOT"})
	if err != nil {
		repl.Close(context.Background())
		return nil, res, upstreamError("creating a temporary replication slot", err)
	}
	return repl, res, nil
}
