package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb/bench/internal/progress"
	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/internal/testserver"
	"github.com/streamdb/streamdb/sources/loadgen"
	"github.com/streamdb/streamdb/types"
)

// query is one benchmark query: its view with cleanup (over a table with
// a watermark, or a temporal filter) and without.
type query struct {
	Name, What    string
	With, Without string
	// Watermark says the variant with cleanup reads a table with a
	// watermark.
	Watermark bool
	// Closed reads the rows of the view without cleanup that the view
	// with cleanup must hold (its closed windows, its last minute), and
	// Sum the column whose sum, with the rows' count and the sum of
	// their auctions, checks that both runs agree.
	Closed, Sum string
}

var queries = []query{
	{
		Name: "hop", What: "bids per auction in 10-second windows every 2 seconds (HOP), emitted on window close",
		With:      "SELECT auction, window_end, count(*) AS bids FROM HOP(bid, date_time, INTERVAL '2 seconds', INTERVAL '10 seconds') GROUP BY auction, window_end EMIT ON WINDOW CLOSE",
		Without:   "SELECT auction, window_end, count(*) AS bids FROM HOP(bid, date_time, INTERVAL '2 seconds', INTERVAL '10 seconds') GROUP BY auction, window_end",
		Watermark: true,
		// EMIT ON WINDOW CLOSE emits a window once its end lies behind
		// the end of the window of the watermark's latest start.
		Closed: "SELECT auction, bids FROM v WHERE window_end < (SELECT date_bin('2 seconds', max(date_time) - INTERVAL '12 seconds', TIMESTAMPTZ 'epoch') + INTERVAL '12 seconds' FROM bid)",
		Sum:    "bids",
	},
	{
		Name: "tumble", What: "the highest bid per auction in 10-second windows (TUMBLE), emitted on window close",
		With:      "SELECT auction, window_end, max(price) AS top FROM TUMBLE(bid, date_time, INTERVAL '10 seconds') GROUP BY auction, window_end EMIT ON WINDOW CLOSE",
		Without:   "SELECT auction, window_end, max(price) AS top FROM TUMBLE(bid, date_time, INTERVAL '10 seconds') GROUP BY auction, window_end",
		Watermark: true,
		Closed:    "SELECT auction, top FROM v WHERE window_end < (SELECT date_bin('10 seconds', max(date_time) - INTERVAL '2 seconds', TIMESTAMPTZ 'epoch') + INTERVAL '10 seconds' FROM bid)",
		Sum:       "top",
	},
	{
		Name: "last-minute", What: "the bids of the last minute (a temporal filter)",
		With:    "SELECT auction, bidder, price, date_time FROM bid WHERE mz_now() <= date_time + INTERVAL '1 minute'",
		Without: "SELECT auction, bidder, price, date_time FROM bid",
		Closed:  "SELECT auction, price FROM v WHERE mz_now() <= date_time + INTERVAL '1 minute'",
		Sum:     "price",
	},
}

const bidTable = "CREATE TABLE bid (auction bigint, bidder bigint, price bigint, channel text, url text, date_time timestamptz, extra text%s) APPEND ONLY"

type config struct {
	Events  int64
	Batch   int64
	Sample  int64
	Out     string
	Queries string
}

// sample is the state of a view at some point of a run.
type sample struct {
	Events       int64 `json:"events"`
	StateBytes   int64 `json:"state_bytes"`
	WorkingBytes int64 `json:"working_bytes"`
}

// run is one variant of one query.
type run struct {
	Query      string   `json:"query"`
	Variant    string   `json:"variant"`
	View       string   `json:"view,omitempty"`
	Events     int64    `json:"events"`
	Rows       int64    `json:"bid_rows"`
	Seconds    float64  `json:"seconds"`
	CPUSeconds float64  `json:"cpu_seconds"`
	MaintainMS float64  `json:"maintenance_ms"`
	Samples    []sample `json:"samples"`
	ViewRows   int64    `json:"view_rows"`
	// Signature is the count of the rows both variants must agree on
	// and two sums over them.
	Signature   string  `json:"signature,omitempty"`
	PeakHeapMiB float64 `json:"peak_heap_mib"`
}

func main() {
	if err := mainErr(); err != nil {
		fmt.Fprintln(os.Stderr, "eventtime:", err)
		os.Exit(1)
	}
}

func mainErr() error {
	var cfg config
	flag.Int64Var(&cfg.Events, "events", 10_000_000, "NEXMARK events per run")
	flag.Int64Var(&cfg.Batch, "batch", 10_000, "events per commit")
	flag.Int64Var(&cfg.Sample, "sample", 1_000_000, "events between samples of the views' state")
	flag.StringVar(&cfg.Out, "out", "bench/results", "directory for eventtime.json and eventtime.md")
	flag.StringVar(&cfg.Queries, "queries", "", "comma-separated query names (default all)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var qs []query
	for _, q := range queries {
		if cfg.Queries == "" || strings.Contains(","+cfg.Queries+",", ","+q.Name+",") {
			qs = append(qs, q)
		}
	}
	bar := progress.New(os.Stderr, 1+2*len(qs))
	bar.Step(0, "the table alone")
	base, err := measure(ctx, cfg, query{Name: "table"}, "table alone", "", false)
	if err != nil {
		return err
	}
	runs := []run{base}
	for i, q := range qs {
		bar.Step(1+2*i, q.Name+" with cleanup")
		with, err := measure(ctx, cfg, q, "with cleanup", q.With, q.Watermark)
		if err != nil {
			return fmt.Errorf("%s with cleanup: %w", q.Name, err)
		}
		bar.Step(2+2*i, q.Name+" without")
		without, err := measure(ctx, cfg, q, "without", q.Without, false)
		if err != nil {
			return fmt.Errorf("%s without: %w", q.Name, err)
		}
		runs = append(runs, with, without)
	}
	bar.Finish()
	return write(cfg, runs)
}

// measure runs one variant: a fresh server, the table, the view (none
// when view is empty), and the events.
func measure(ctx context.Context, cfg config, q query, variant, view string, watermark bool) (run, error) {
	r := run{Query: q.Name, Variant: variant, View: view, Events: cfg.Events}
	start := time.Unix(0, 0)
	var first types.Row
	loadgen.NexmarkEvents(1, 0, 1, func(_ int, row types.Row) { first = row.Copy() })
	if first != nil {
		start = time.UnixMicro(first[len(first)-2].Int())
	}
	clk := engine.NewManualClock(start)
	srv, err := testserver.Run(testserver.Options{Clock: clk}, func() string {
		d, _ := os.MkdirTemp("", "eventtime-")
		return d
	})
	if err != nil {
		return r, err
	}
	defer func() {
		srv.Stop()
		os.RemoveAll(srv.Dir)
	}()
	conn, err := pgx.Connect(ctx, srv.URL)
	if err != nil {
		return r, err
	}
	defer conn.Close(context.Background())
	wm := ""
	if watermark {
		wm = ", WATERMARK FOR date_time AS date_time - INTERVAL '2 seconds'"
	}
	if _, err := conn.Exec(ctx, fmt.Sprintf(bidTable, wm)); err != nil {
		return r, err
	}
	if view != "" {
		if _, err := conn.Exec(ctx, "CREATE MATERIALIZED VIEW v AS "+view); err != nil {
			return r, err
		}
	}
	eng := srv.Frontend().Engine()
	bid, ok := eng.Snapshot().Catalog().Lookup(catalog.DefaultSchema, "bid")
	if !ok {
		return r, fmt.Errorf("no table bid")
	}
	viewID := uint64(0)
	if v, ok := eng.Snapshot().Catalog().Lookup(catalog.DefaultSchema, "v"); ok {
		viewID = v.ID
	}
	gen := loadgen.NewNexmarkGenerator(1, 0)
	runtime.GC()
	cpu0, wall0 := cpuTime(), time.Now()
	var peak uint64
	var ms runtime.MemStats
	for from := int64(0); from < cfg.Events; from += cfg.Batch {
		n := min(cfg.Batch, cfg.Events-from)
		var changes []engine.RowChange
		var last int64
		gen.Events(from, n, func(kind int, row types.Row) {
			if kind != loadgen.NexmarkBid {
				return
			}
			b := row.Copy()
			b[5] = types.NewTimestampTZ(b[5].Int())
			last = b[5].Int()
			changes = append(changes, engine.RowChange{Row: b})
		})
		r.Rows += int64(len(changes))
		if last > 0 {
			clk.Set(time.UnixMicro(last))
		}
		if err := eng.Commit(ctx, &engine.WriteSet{Tables: map[uint64][]engine.RowChange{bid.ID: changes}}); err != nil {
			return r, err
		}
		if done := from + n; done%cfg.Sample == 0 || done == cfg.Events {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			if viewID != 0 {
				s, err := stateOf(ctx, eng, viewID)
				if err != nil {
					return r, err
				}
				s.Events = done
				r.Samples = append(r.Samples, s)
			}
		}
	}
	r.Seconds = time.Since(wall0).Seconds()
	r.CPUSeconds = cpuTime() - cpu0
	r.PeakHeapMiB = float64(peak) / (1 << 20)
	// Two ticks in one millisecond of the clock put the engine's time a
	// millisecond ahead of it, by chance: one more tick a second on, at
	// the clock's time exactly, makes the time both variants are read
	// at (mz_now()) the same.
	clk.Advance(time.Second)
	if err := eng.Tick(ctx); err != nil {
		return r, err
	}
	if viewID == 0 {
		return r, nil
	}
	stats, err := eng.ViewStats(ctx)
	if err != nil {
		return r, err
	}
	r.MaintainMS = float64(stats[viewID].Busy.Microseconds()) / 1e3
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM v").Scan(&r.ViewRows); err != nil {
		return r, err
	}
	rel := "v"
	if variant == "without" {
		rel = "(" + q.Closed + ") AS c"
	}
	var count, auctions, sum int64
	if err := conn.QueryRow(ctx, fmt.Sprintf("SELECT count(*), coalesce(sum(auction), 0)::bigint, coalesce(sum(%s), 0)::bigint FROM %s", q.Sum, rel)).Scan(&count, &auctions, &sum); err != nil {
		return r, err
	}
	r.Signature = fmt.Sprintf("%d rows, auctions %d, %s %d", count, auctions, q.Sum, sum)
	return r, nil
}

// stateOf samples a view's state.
func stateOf(ctx context.Context, eng *engine.Engine, id uint64) (sample, error) {
	stats, err := eng.ViewStats(ctx)
	if err != nil {
		return sample{}, err
	}
	st := stats[id]
	return sample{StateBytes: st.StateBytes, WorkingBytes: st.StateBytes - st.OutputBytes}, nil
}

// cpuTime returns the process's user and system time in seconds.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

func write(cfg config, runs []run) error {
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(struct {
		Events int64 `json:"events"`
		Runs   []run `json:"runs"`
	}{cfg.Events, runs}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(cfg.Out, "eventtime.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(cfg.Out, "eventtime.md"), []byte(report(cfg, runs)), 0o644)
}
