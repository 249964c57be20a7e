package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb/bench/internal/progress"
	"github.com/streamdb/streamdb/bench/internal/server"
	"github.com/streamdb/streamdb/internal/pgtest"
)

const (
	schema = `CREATE TABLE r (id int PRIMARY KEY, k int NOT NULL, v bigint NOT NULL)`
	view   = `CREATE MATERIALIZED VIEW rv AS SELECT k, count(*) AS n, sum(v) AS s FROM r GROUP BY k`
	// totals reads the view; the sums identify the state after a change.
	totals = `SELECT sum(n)::bigint, sum(s)::bigint FROM rv`
)

type config struct {
	Streamdb string
	Rows     int64
	Groups   int64
	Change   int64
	Rounds   int
	Out      string
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "refresh:", err)
		os.Exit(1)
	}
}

func run() error {
	var cfg config
	flag.StringVar(&cfg.Streamdb, "streamdb", "bin/streamdb", "the streamdb binary to benchmark")
	flag.Int64Var(&cfg.Rows, "rows", 1_000_000, "rows in the table under the view")
	flag.Int64Var(&cfg.Groups, "groups", 1000, "groups of the view")
	flag.Int64Var(&cfg.Change, "change", 1000, "rows per change")
	flag.IntVar(&cfg.Rounds, "rounds", 3, "rounds of insert, update and delete")
	flag.StringVar(&cfg.Out, "out", "bench/results", "directory for refresh.json and refresh.md")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	bar := progress.New(os.Stderr, 2+cfg.Rounds)
	bar.Step(0, "starting streamdb and PostgreSQL")
	srv, err := server.Start(ctx, cfg.Streamdb)
	if err != nil {
		return err
	}
	defer srv.Stop()
	if !pgtest.Available() {
		return fmt.Errorf("PostgreSQL 15 server binaries not found in %s", pgtest.BinDir)
	}
	cluster, err := pgtest.StartCluster()
	if err != nil {
		return err
	}
	defer cluster.Stop()

	targets := []*target{{name: "streamdb", url: srv.URL}, {name: "PostgreSQL", url: cluster.URL, refresh: true}}
	for _, t := range targets {
		if t.conn, err = pgx.Connect(ctx, t.url); err != nil {
			return err
		}
		defer t.conn.Close(ctx)
	}
	bar.Step(1, fmt.Sprintf("loading %d rows into both", cfg.Rows))
	for _, t := range targets {
		start := time.Now()
		if err := t.load(ctx, cfg); err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
		t.loadTime = time.Since(start)
		bar.Printf("%s: loaded %d rows and created the view in %s", t.name, cfg.Rows, t.loadTime.Round(time.Millisecond))
	}
	for round := range cfg.Rounds {
		bar.Step(2+round, fmt.Sprintf("round %d of %d", round+1, cfg.Rounds))
		for _, c := range changes(cfg, round) {
			for _, t := range targets {
				if err := t.measure(ctx, c); err != nil {
					return fmt.Errorf("%s, %s: %w", t.name, c.kind, err)
				}
			}
		}
	}
	bar.Finish()
	return report(cfg, targets)
}

// change is one 1,000-row statement and its effect on the view's totals.
type change struct {
	kind        string // insert, update, delete, insert-select
	sql         string
	dRows, dSum int64
}

// changeKinds are the kinds of change a round makes, in order.
var changeKinds = []string{"insert", "update", "delete", "insert-select", "insert-1row"}

// changes returns one round's changes: an insert of new ids above the
// loaded ones, spread over every group, written as VALUES; an update and
// a delete of those rows by their key range; and an insert of the next
// range of ids by INSERT … SELECT from generate_series, a statement of
// constant size, which stays (each round adds cfg.Change rows); and a
// one-row insert (a negative id, so it meets no other change), which
// shows what any change costs at least: the durable commit and the read.
func changes(cfg config, round int) []change {
	lo := cfg.Rows + 1 + 2*int64(round)*cfg.Change
	hi := lo + cfg.Change - 1
	var values strings.Builder
	var sum int64
	for id := lo; id <= hi; id++ {
		if id > lo {
			values.WriteByte(',')
		}
		fmt.Fprintf(&values, "(%d,%d,%d)", id, id%cfg.Groups, id)
		sum += id
	}
	lo2, hi2 := hi+1, hi+cfg.Change
	sum2 := (lo2 + hi2) * cfg.Change / 2
	return []change{
		{kind: "insert", sql: "INSERT INTO r VALUES " + values.String(), dRows: cfg.Change, dSum: sum},
		{kind: "update", sql: fmt.Sprintf("UPDATE r SET v = v + 1 WHERE id BETWEEN %d AND %d", lo, hi), dSum: cfg.Change},
		{kind: "delete", sql: fmt.Sprintf("DELETE FROM r WHERE id BETWEEN %d AND %d", lo, hi), dRows: -cfg.Change, dSum: -(sum + cfg.Change)},
		{kind: "insert-select", sql: fmt.Sprintf("INSERT INTO r SELECT g, g %% %d, g FROM generate_series(%d, %d) AS g", cfg.Groups, lo2, hi2),
			dRows: cfg.Change, dSum: sum2},
		{kind: "insert-1row", sql: fmt.Sprintf("INSERT INTO r VALUES (%d, 0, 1)", -1-round), dRows: 1, dSum: 1},
	}
}

// target is one server with its measurements.
type target struct {
	name     string
	url      string
	refresh  bool // PostgreSQL: the view is current only after REFRESH
	conn     *pgx.Conn
	rows     int64 // expected totals of the view
	sum      int64
	loadTime time.Duration
	// Per change kind: time to visible, the statement alone, REFRESH alone,
	// and streamdb's update of the view alone.
	visible, statement, refreshes, updates map[string][]time.Duration
}

func (t *target) load(ctx context.Context, cfg config) error {
	load := fmt.Sprintf("INSERT INTO r SELECT g, g %% %d, g FROM generate_series(1, %d) AS g", cfg.Groups, cfg.Rows)
	stmts := []string{schema, load, view}
	if t.refresh {
		stmts = append(stmts, "VACUUM ANALYZE r")
	}
	for _, s := range stmts {
		if _, err := t.conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%.40s…: %w", s, err)
		}
	}
	t.rows, t.sum = cfg.Rows, cfg.Rows*(cfg.Rows+1)/2
	t.visible, t.statement, t.refreshes, t.updates = map[string][]time.Duration{}, map[string][]time.Duration{}, map[string][]time.Duration{}, map[string][]time.Duration{}
	return t.check(ctx)
}

// measure applies c and times it until the view shows it.
func (t *target) measure(ctx context.Context, c change) error {
	t.rows += c.dRows
	t.sum += c.dSum
	start := time.Now()
	if _, err := t.conn.Exec(ctx, c.sql); err != nil {
		return err
	}
	stmt := time.Since(start)
	if t.refresh {
		if _, err := t.conn.Exec(ctx, "REFRESH MATERIALIZED VIEW rv"); err != nil {
			return err
		}
		t.refreshes[c.kind] = append(t.refreshes[c.kind], time.Since(start)-stmt)
	}
	deadline := start.Add(time.Minute)
	for {
		err := t.check(ctx)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			return err
		}
	}
	t.visible[c.kind] = append(t.visible[c.kind], time.Since(start))
	t.statement[c.kind] = append(t.statement[c.kind], stmt)
	if !t.refresh {
		d, err := lastUpdate(ctx, t.conn)
		if err != nil {
			return err
		}
		t.updates[c.kind] = append(t.updates[c.kind], d)
	}
	return nil
}

// lastUpdate reads how long streamdb's latest update of the view took: the
// work that reflects a change in it, what REFRESH does in PostgreSQL.
// Nothing else writes the view's input, so the latest update is the
// change's.
func lastUpdate(ctx context.Context, conn *pgx.Conn) (time.Duration, error) {
	var us float64
	err := conn.QueryRow(ctx, "SHOW MATERIALIZED VIEWS WHERE name = 'rv'").Scan(nil, nil, nil, nil, &us, nil, nil, nil)
	return time.Duration(us * float64(time.Microsecond)), err
}

// check reads the view's totals and compares them with the expected ones.
func (t *target) check(ctx context.Context) error {
	var rows, sum int64
	if err := t.conn.QueryRow(ctx, totals).Scan(&rows, &sum); err != nil {
		return err
	}
	if rows != t.rows || sum != t.sum {
		return fmt.Errorf("view totals are (%d, %d), want (%d, %d)", rows, sum, t.rows, t.sum)
	}
	return nil
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(ds))
	return s[len(s)/2]
}

func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func usOf(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }

// report writes refresh.json and refresh.md and prints the table.
func report(cfg config, targets []*target) error {
	sdb, pg := targets[0], targets[1]
	type kindResult struct {
		Kind              string    `json:"kind"`
		StreamdbMs        float64   `json:"streamdb_ms"`
		PostgresMs        float64   `json:"postgres_ms"`
		Ratio             float64   `json:"ratio"`
		StreamdbStmtMs    float64   `json:"streamdb_statement_ms"`
		PostgresStmtMs    float64   `json:"postgres_statement_ms"`
		PostgresRefreshMs float64   `json:"postgres_refresh_ms"`
		StreamdbRoundsMs  []float64 `json:"streamdb_rounds_ms"`
		PostgresRoundsMs  []float64 `json:"postgres_rounds_ms"`
		Met               bool      `json:"met"`
		StreamdbUpdateMs  float64   `json:"streamdb_view_update_ms"`
		UpdateRoundsMs    []float64 `json:"streamdb_view_update_rounds_ms"`
		RefreshRoundsMs   []float64 `json:"postgres_refresh_rounds_ms"`
		UpdateRatio       float64   `json:"refresh_over_update"`
	}
	var kinds []kindResult
	var md strings.Builder
	fmt.Fprintf(&md, "# A %d-row change under a GROUP BY view: streamdb vs PostgreSQL REFRESH MATERIALIZED VIEW\n\n", cfg.Change)
	fmt.Fprintf(&md, "`%s` over %d rows (%d groups); %d rounds, medians. Run %s; load average %s at the end. Loading the rows and creating the view took %s in streamdb and %s in PostgreSQL.\n\n",
		view, cfg.Rows, cfg.Groups, cfg.Rounds, time.Now().UTC().Format("2006-01-02 15:04 UTC"), server.LoadAverage(),
		sdb.loadTime.Round(time.Millisecond), pg.loadTime.Round(time.Millisecond))
	md.WriteString("| change | streamdb view update ms | PostgreSQL REFRESH ms | REFRESH / view update | target ≥ 1000× | streamdb: change → visible ms | PostgreSQL: change + REFRESH → visible ms | PostgreSQL / streamdb | streamdb statement ms | PostgreSQL statement ms |\n")
	md.WriteString("|---|--:|--:|--:|---|--:|--:|--:|--:|--:|\n")
	for _, kind := range changeKinds {
		k := kindResult{Kind: kind, StreamdbMs: msOf(median(sdb.visible[kind])), PostgresMs: msOf(median(pg.visible[kind])),
			StreamdbStmtMs: msOf(median(sdb.statement[kind])), PostgresStmtMs: msOf(median(pg.statement[kind])),
			PostgresRefreshMs: msOf(median(pg.refreshes[kind])), StreamdbUpdateMs: usOf(median(sdb.updates[kind])) / 1000}
		for _, d := range sdb.visible[kind] {
			k.StreamdbRoundsMs = append(k.StreamdbRoundsMs, msOf(d))
		}
		for _, d := range pg.visible[kind] {
			k.PostgresRoundsMs = append(k.PostgresRoundsMs, msOf(d))
		}
		for _, d := range sdb.updates[kind] {
			k.UpdateRoundsMs = append(k.UpdateRoundsMs, usOf(d)/1000)
		}
		for _, d := range pg.refreshes[kind] {
			k.RefreshRoundsMs = append(k.RefreshRoundsMs, msOf(d))
		}
		if k.StreamdbMs > 0 {
			k.Ratio = k.PostgresMs / k.StreamdbMs
		}
		if k.StreamdbUpdateMs > 0 {
			k.UpdateRatio = k.PostgresRefreshMs / k.StreamdbUpdateMs
		}
		k.Met = k.UpdateRatio >= 1000
		kinds = append(kinds, k)
		met := "NOT met"
		if k.Met {
			met = "met"
		}
		fmt.Fprintf(&md, "| %s | %.3f | %.2f | %.0f× | %s | %.2f | %.2f | %.1f× | %.2f | %.2f |\n", kind, k.StreamdbUpdateMs, k.PostgresRefreshMs, k.UpdateRatio, met,
			k.StreamdbMs, k.PostgresMs, k.Ratio, k.StreamdbStmtMs, k.PostgresStmtMs)
	}
	md.WriteString("\ninsert is one multi-row VALUES statement; update and delete select the inserted rows by a primary-key range (`WHERE id BETWEEN lo AND hi`); insert-select is `INSERT INTO r SELECT g, g % groups, g FROM generate_series(lo, hi) AS g`, the same change in a statement of constant size; insert-1row is a one-row INSERT, the least any change costs (a durable commit and a read). The view update is streamdb's own measure of the maintenance step that reflected the change in the view (`last_tick_us` of SHOW MATERIALIZED VIEWS): the work PostgreSQL's REFRESH does, and the target compares the two. Change → visible is timed from sending the change until a SELECT of the view's totals returns the expected values: it adds the write of the change itself, which both servers make durable (a synced commit) before the view can show it, so that ratio is bounded by the commit's time (a millisecond or more on this machine).\n")
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(map[string]any{"rows": cfg.Rows, "groups": cfg.Groups, "change_rows": cfg.Change, "rounds": cfg.Rounds,
		"streamdb_load_ms": msOf(sdb.loadTime), "postgres_load_ms": msOf(pg.loadTime), "changes": kinds}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(cfg.Out, "refresh.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(cfg.Out, "refresh.md"), []byte(md.String()), 0o644); err != nil {
		return err
	}
	fmt.Print(md.String())
	return nil
}
