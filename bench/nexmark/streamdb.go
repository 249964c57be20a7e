package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/streamdb/streamdb/bench/internal/server"
)

// sourceName is the NEXMARK source every run creates; its progress
// relation is sourceName_progress.
const sourceName = "nexmark"

// mode is how a saturation run sets streamdb up.
type mode int

const (
	// persisted is streamdb as it runs by default: the source stored and
	// the view's state persisted in every tick.
	persisted mode = iota
	// recomputed persists no view state (--view-state recomputed), the
	// baseline of what persisting it costs.
	recomputed
	// notStored creates the source WITH (STORED = false): its events
	// reach the view and are not kept.
	notStored
)

func (m mode) String() string {
	return [...]string{"persisted", "recomputed", "not stored"}[m]
}

// saturation is what one saturation run of a query measured.
type saturation struct {
	Elapsed     time.Duration // CREATE SOURCE sent → every event visible
	CPU         time.Duration // server CPU (user+system) over the same span
	PeakRSS     int64
	StateBytes  *int64 // nil: the server does not report it
	EarlyEvents int64  // events already committed when the view was created
	ViewRows    int64
	ViewRead    time.Duration // SELECT * FROM the view, all rows read
	Recompute   time.Duration // the ad hoc query, all rows read
	Check       string        // "ok" or what differs
	View        digest        // the final view, for comparing with PostgreSQL
}

// runSaturation starts a fresh streamdb, creates the NEXMARK source for
// cfg.Events events without a rate (as fast as the engine accepts
// batches) and q as a materialized view, and waits until the source's
// progress relation shows every event committed. The tick that commits a
// batch also updates every view and makes both visible at one timestamp,
// so that moment is when the view reflects all events. It then checks the
// view against the same query run ad hoc (a one-tick recomputation over
// the same inputs).
//
// In the other modes (see mode) the view is read but not recomputed: the
// ad hoc query cannot read a source that is not stored, and the persisted
// run checks the same events.
func runSaturation(ctx context.Context, cfg config, q query, m mode, report func(float64)) (saturation, error) {
	var r saturation
	var args []string
	if m == recomputed {
		args = append(args, "--view-state", "recomputed")
	}
	srv, err := server.Start(ctx, cfg.Streamdb, args...)
	if err != nil {
		return r, err
	}
	defer srv.Stop()
	conn, err := pgx.Connect(ctx, srv.URL)
	if err != nil {
		return r, err
	}
	defer conn.Close(ctx)

	u0, err := srv.Usage()
	if err != nil {
		return r, err
	}
	start := time.Now()
	src := fmt.Sprintf("CREATE SOURCE %s FROM LOAD GENERATOR NEXMARK (MAX EVENTS %d, SEED %d) FOR ALL TABLES", sourceName, cfg.Events, cfg.Seed)
	if m == notStored {
		src += " WITH (STORED = false)"
	}
	if _, err := conn.Exec(ctx, src); err != nil {
		return r, fmt.Errorf("create source: %w", err)
	}
	if r.EarlyEvents, err = readOffset(ctx, conn); err != nil {
		return r, err
	}
	if _, err := conn.Exec(ctx, "CREATE MATERIALIZED VIEW "+q.Name+" AS "+q.SQL); err != nil {
		return r, fmt.Errorf("create materialized view: %w", err)
	}
	deadline := start.Add(cfg.Timeout)
	for {
		off, err := readOffset(ctx, conn)
		if err != nil {
			return r, fmt.Errorf("%w\n%s", err, srv.LogTail(10))
		}
		report(float64(off) / float64(cfg.Events))
		if off >= cfg.Events {
			break
		}
		if time.Now().After(deadline) {
			return r, fmt.Errorf("timed out after %s with %d of %d events ingested", cfg.Timeout, off, cfg.Events)
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.Elapsed = time.Since(start)
	u1, err := srv.Usage()
	if err != nil {
		return r, err
	}
	r.CPU, r.PeakRSS = u1.CPU-u0.CPU, u1.PeakRSS
	if r.StateBytes, err = stateBytes(ctx, conn, q.Name); err != nil {
		return r, err
	}

	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	var adhoc digest
	if r.View, r.ViewRead, err = digestQuery(ctx, conn, "SELECT * FROM "+q.Name); err != nil {
		return r, fmt.Errorf("read view: %w", err)
	}
	r.ViewRows = r.View.Rows
	if m != persisted {
		return r, nil
	}
	if adhoc, r.Recompute, err = digestQuery(ctx, conn, q.SQL); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// The recomputation is the check, not the measurement:
			// keep what the run measured.
			r.Check = fmt.Sprintf("%s the ad hoc query ran over %s", notChecked, cfg.Timeout)
			return r, nil
		}
		return r, fmt.Errorf("ad hoc query: %w", err)
	}
	r.Check = "ok"
	if adhoc != r.View {
		diff, err := diffQueries(ctx, conn, "SELECT * FROM "+q.Name, q.SQL)
		if err != nil {
			return r, err
		}
		r.Check = "MISMATCH: " + diff
	}
	return r, nil
}

// notChecked starts the check of a run whose view could not be compared
// with the recomputation.
const notChecked = "not checked:"

// readOffset returns how many events the source has committed (0 before
// its first batch).
func readOffset(ctx context.Context, conn *pgx.Conn) (int64, error) {
	var off int64
	err := conn.QueryRow(ctx, `SELECT "offset" FROM `+sourceName+`_progress`).Scan(&off)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	return off, err
}

// stateBytes returns the operator state of view name as the server
// reports it in a state_bytes column of SHOW MATERIALIZED VIEWS, or nil
// while the server has no such column.
func stateBytes(ctx context.Context, conn *pgx.Conn, name string) (*int64, error) {
	rows, err := conn.Query(ctx, "SHOW MATERIALIZED VIEWS", pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	fields := rows.FieldDescriptions()
	nameCol := slices.IndexFunc(fields, func(f pgconn.FieldDescription) bool { return f.Name == "name" })
	bytesCol := slices.IndexFunc(fields, func(f pgconn.FieldDescription) bool { return f.Name == "state_bytes" })
	if nameCol < 0 || bytesCol < 0 {
		return nil, nil
	}
	for rows.Next() {
		vals := rows.RawValues()
		if string(vals[nameCol]) != name || vals[bytesCol] == nil {
			continue
		}
		var n int64
		if _, err := fmt.Sscan(string(vals[bytesCol]), &n); err != nil {
			return nil, fmt.Errorf("state_bytes %q: %w", vals[bytesCol], err)
		}
		return &n, nil
	}
	return nil, rows.Err()
}
