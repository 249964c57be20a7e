package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb/sources/loadgen"
	"github.com/streamdb/streamdb/types"
)

// nexmarkTables are the NEXMARK source's relations as PostgreSQL tables,
// with the column names and types of the source's outputs, indexed by
// event kind.
var nexmarkTables = [...]struct {
	name    string
	columns []string
	ddl     string
}{
	loadgen.NexmarkPerson: {"person",
		[]string{"id", "name", "email_address", "credit_card", "city", "state", "date_time", "extra"},
		`CREATE TABLE person (id bigint NOT NULL, name text NOT NULL, email_address text NOT NULL,
			credit_card text NOT NULL, city text NOT NULL, state text NOT NULL, date_time timestamp NOT NULL, extra text NOT NULL)`},
	loadgen.NexmarkAuction: {"auction",
		[]string{"id", "item_name", "description", "initial_bid", "reserve", "date_time", "expires", "seller", "category", "extra"},
		`CREATE TABLE auction (id bigint NOT NULL, item_name text NOT NULL, description text NOT NULL,
			initial_bid bigint NOT NULL, reserve bigint NOT NULL, date_time timestamp NOT NULL, expires timestamp NOT NULL,
			seller bigint NOT NULL, category bigint NOT NULL, extra text NOT NULL)`},
	loadgen.NexmarkBid: {"bid",
		[]string{"auction", "bidder", "price", "channel", "url", "date_time", "extra"},
		`CREATE TABLE bid (auction bigint NOT NULL, bidder bigint NOT NULL, price bigint NOT NULL, channel text NOT NULL,
			url text NOT NULL, date_time timestamp NOT NULL, extra text NOT NULL)`},
}

// postgresRun is what the PostgreSQL baseline measured.
type postgresRun struct {
	Events  int64 // events loaded before the run ended (all, or as many as the time budget allowed)
	Elapsed time.Duration
	P50     time.Duration
	P99     time.Duration
	View    digest // the final materialized view
}

// runPostgres does what a PostgreSQL user would do instead of streamdb:
// the same events (loadgen.NexmarkEvents with the same seed) inserted in
// batches of cfg.PGBatch events, each batch one transaction of COPYs into
// person, auction and bid, followed by REFRESH MATERIALIZED VIEW of q. The
// batch size matches the largest batch the NEXMARK source commits in one
// tick. Throughput is events over the whole time, generation included, as
// for streamdb. An event becomes visible when the refresh after its batch
// ends; events of a batch are spread evenly over the batch's generation
// time, so an event's freshness is that refresh's end minus its place in
// the generation. That is a lower bound for a real deployment, where a
// batch also waits to fill. The run stops early after cfg.PGBudget; the
// rate is then over the events loaded so far (an upper bound, since every
// refresh costs more than the last).
func runPostgres(ctx context.Context, cfg config, url string, q query, report func(float64)) (postgresRun, error) {
	var r postgresRun
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return r, err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS person, auction, bid CASCADE"); err != nil {
		return r, err
	}
	for _, t := range nexmarkTables {
		if _, err := conn.Exec(ctx, t.ddl); err != nil {
			return r, err
		}
	}
	if _, err := conn.Exec(ctx, "CREATE MATERIALIZED VIEW "+q.Name+" AS "+q.SQL); err != nil {
		return r, fmt.Errorf("postgres: create materialized view: %w", err)
	}

	var lags []time.Duration
	var batch [3][][]any
	start := time.Now()
	for r.Events < cfg.Events && time.Since(start) < cfg.PGBudget {
		n := min(cfg.PGBatch, cfg.Events-r.Events)
		t0 := time.Now()
		for k := range batch {
			batch[k] = batch[k][:0]
		}
		loadgen.NexmarkEvents(cfg.Seed, r.Events, n, func(kind int, row types.Row) {
			batch[kind] = append(batch[kind], copyValues(row))
		})
		generated := time.Since(t0)
		if err := copyBatch(ctx, conn, &batch); err != nil {
			return r, err
		}
		if _, err := conn.Exec(ctx, "REFRESH MATERIALIZED VIEW "+q.Name); err != nil {
			return r, fmt.Errorf("postgres: refresh: %w", err)
		}
		visible := time.Since(t0)
		for j := range n {
			lags = append(lags, visible-time.Duration(float64(j)/float64(n)*float64(generated)))
		}
		r.Events += n
		report(float64(r.Events) / float64(cfg.Events))
	}
	r.Elapsed = time.Since(start)
	r.P50, r.P99 = percentile(lags, 0.50), percentile(lags, 0.99)
	if r.View, _, err = digestQuery(ctx, conn, "SELECT * FROM "+q.Name); err != nil {
		return r, err
	}
	return r, nil
}

// copyBatch loads one batch in one transaction.
func copyBatch(ctx context.Context, conn *pgx.Conn, batch *[3][][]any) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	for k, rows := range batch {
		if len(rows) == 0 {
			continue
		}
		t := nexmarkTables[k]
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{t.name}, t.columns, pgx.CopyFromRows(rows)); err != nil {
			return fmt.Errorf("postgres: copy %s: %w", t.name, err)
		}
	}
	return tx.Commit(ctx)
}

// copyValues converts a generated row to the Go values pgx encodes: int8
// as int64, text as string, timestamp as a UTC time.Time.
func copyValues(row types.Row) []any {
	out := make([]any, len(row))
	for i, d := range row {
		switch d.Kind() {
		case types.Int8:
			out[i] = d.Int()
		case types.Timestamp:
			out[i] = time.UnixMicro(d.Int()).UTC()
		default:
			out[i] = d.Str()
		}
	}
	return out
}
