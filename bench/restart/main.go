package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb/bench/internal/server"
)

type config struct {
	Streamdb  string
	Baseline  string
	Events    int64
	Histories []int64
	DimRows   int64
	Out       string
	Timeout   time.Duration
	Only      string
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "restart:", err)
		os.Exit(1)
	}
}

func run() error {
	var cfg config
	var histories string
	flag.StringVar(&cfg.Streamdb, "streamdb", "bin/streamdb", "the streamdb binary to benchmark")
	flag.StringVar(&cfg.Baseline, "baseline", "", "another streamdb binary to restart from the same crash, to compare builds")
	flag.Int64Var(&cfg.Events, "events", 2_000_000, "events of the nexmark scenario")
	flag.StringVar(&histories, "histories", "1000000,10000000", "events of the history scenario's runs")
	flag.Int64Var(&cfg.DimRows, "dim-rows", 1_000_000, "rows of the history scenario's table")
	flag.StringVar(&cfg.Out, "out", "bench/results", "directory for restart.json and restart.md")
	flag.DurationVar(&cfg.Timeout, "timeout", 20*time.Minute, "give up on a step after this long")
	flag.StringVar(&cfg.Only, "only", "", "run only this scenario (nexmark or history)")
	flag.Parse()
	for _, h := range strings.Split(histories, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(h), 10, 64)
		if err != nil {
			return fmt.Errorf("-histories: %w", err)
		}
		cfg.Histories = append(cfg.Histories, n)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep := report{Started: time.Now(), Load: server.LoadAverage(), Baseline: cfg.Baseline}
	var scs []scenario
	if cfg.Only == "" || cfg.Only == "nexmark" {
		scs = append(scs, nexmarkScenario(cfg.Events))
	}
	if cfg.Only == "" || cfg.Only == "history" {
		for _, h := range cfg.Histories {
			scs = append(scs, historyScenario(h, cfg.DimRows))
		}
	}
	for _, sc := range scs {
		fmt.Fprintf(os.Stderr, "%s: building\n", sc.Name)
		r, err := measure(ctx, cfg, sc)
		if err != nil {
			r.Error = err.Error()
			fmt.Fprintf(os.Stderr, "%s: %v\n", sc.Name, err)
		}
		rep.Results = append(rep.Results, r)
		rep.LoadEnd = server.LoadAverage()
		if err := rep.write(cfg.Out); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "wrote %s/restart.{json,md}\n", cfg.Out)
	return nil
}

// scenario is a state to build and restart from.
type scenario struct {
	Name   string
	Events int64
	Setup  []string // run in order on the fresh server
	Views  []string // materialized views to read after the restart
	Table  string   // a point read of a table, timed after the restart
}

func nexmarkScenario(events int64) scenario {
	q9, q20 := readQuery("q9"), readQuery("q20")
	return scenario{
		Name:   fmt.Sprintf("nexmark, %d events", events),
		Events: events,
		Setup: []string{
			"CREATE SOURCE nexmark FROM LOAD GENERATOR NEXMARK (MAX EVENTS " + strconv.FormatInt(events, 10) + ", SEED 1) FOR ALL TABLES",
			"CREATE MATERIALIZED VIEW q9 AS " + q9,
			"CREATE MATERIALIZED VIEW q20 AS " + q20,
			"CREATE MATERIALIZED VIEW per_auction AS SELECT auction, count(*) AS bids FROM bid GROUP BY auction",
		},
		Views: []string{"q9", "q20", "per_auction"},
	}
}

func historyScenario(events, dimRows int64) scenario {
	return scenario{
		Name:   fmt.Sprintf("history, %d events", events),
		Events: events,
		Setup: []string{
			"CREATE TABLE dim (k int PRIMARY KEY, g int NOT NULL, s text NOT NULL)",
			fmt.Sprintf("INSERT INTO dim SELECT g, g %% %d, md5(g::text) || md5((g + 1)::text) FROM generate_series(1, %d) AS g", max(dimRows/8, 1), dimRows),
			"CREATE MATERIALIZED VIEW dim_groups AS SELECT g, count(*) AS n, min(s) AS lo, max(s) AS hi FROM dim GROUP BY g",
			"CREATE MATERIALIZED VIEW dim_pairs AS SELECT a.k, b.s FROM dim a JOIN dim b ON a.g = b.k",
			"CREATE SOURCE nexmark FROM LOAD GENERATOR NEXMARK (MAX EVENTS " + strconv.FormatInt(events, 10) + ", SEED 1) FOR ALL TABLES",
			"CREATE MATERIALIZED VIEW hot_auctions AS SELECT auction % 10000 AS a, count(*) AS bids, max(price) AS top FROM bid GROUP BY 1",
			"CREATE MATERIALIZED VIEW bidders AS SELECT bidder % 50000 AS b, count(*) AS bids, sum(price) AS spent FROM bid GROUP BY 1",
		},
		Views: []string{"dim_groups", "dim_pairs", "hot_auctions", "bidders"},
		Table: "SELECT s FROM dim WHERE k = 4242",
	}
}

// readQuery reads a Nexmark query of bench/nexmark, without comments.
func readQuery(name string) string {
	b, err := os.ReadFile(filepath.Join("bench", "nexmark", name+".sql"))
	if err != nil {
		panic(err)
	}
	var lines []string
	for l := range strings.Lines(string(b)) {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			lines = append(lines, l)
		}
	}
	return strings.TrimSuffix(strings.TrimSpace(strings.Join(lines, "")), ";")
}

// result is one scenario's measurements.
type result struct {
	Scenario     string   `json:"scenario"`
	Events       int64    `json:"events"`
	StateBytes   int64    `json:"state_bytes"`
	StoreMB      float64  `json:"store_mb"`
	SteadyRSSMB  float64  `json:"steady_rss_mb"`
	BuildSeconds float64  `json:"build_s"`
	Restored     *restart `json:"restored,omitempty"`
	Baseline     *restart `json:"baseline,omitempty"`
	Recomputed   *restart `json:"recomputed,omitempty"`
	Error        string   `json:"error,omitempty"`
}

// restart is what one restart took, in seconds from the process start.
type restart struct {
	Listens    float64            `json:"listens_s"`
	Accepts    float64            `json:"accepts_s"`
	TableRead  float64            `json:"table_read_s,omitempty"`
	FirstView  float64            `json:"first_view_s"`
	Views      map[string]float64 `json:"views_s"`
	AllReady   float64            `json:"all_ready_s"`
	PeakRSSMB  float64            `json:"peak_rss_mb"`
	CPUSeconds float64            `json:"cpu_s"`
}

// measure builds a scenario's state, then restarts after kill -9 twice:
// restoring the views, then recomputing them.
func measure(ctx context.Context, cfg config, sc scenario) (result, error) {
	r := result{Scenario: sc.Name, Events: sc.Events}
	srv, err := server.Start(ctx, cfg.Streamdb)
	if err != nil {
		return r, err
	}
	defer srv.Stop()
	start := time.Now()
	if err := build(ctx, cfg, srv, sc); err != nil {
		return r, err
	}
	r.BuildSeconds = time.Since(start).Seconds()
	conn, err := pgx.Connect(ctx, srv.URL)
	if err != nil {
		return r, err
	}
	r.StateBytes, err = stateBytes(ctx, conn)
	conn.Close(ctx)
	if err != nil {
		return r, err
	}
	u, err := srv.Usage()
	if err != nil {
		return r, err
	}
	r.SteadyRSSMB = mb(u.RSS)
	srv.Kill()
	data := filepath.Join(srv.Dir, "data")
	r.StoreMB = mb(dirSize(data))
	// Both restarts start from the crash's image of the store: what the
	// killed process left in Pebble's log is replayed and flushed before
	// the store opens, and only the first restart after the crash would
	// pay for it otherwise.
	image := filepath.Join(srv.Dir, "crash")
	if err := copyDir(data, image); err != nil {
		return r, err
	}
	// The baseline restarts from the same image: which compaction a crash
	// leaves due, and so what a restart costs, differs from one build of
	// the state to the next.
	runs := []struct {
		name      string
		bin       string
		recompute bool
		to        **restart
	}{{"restored", cfg.Streamdb, false, &r.Restored}, {"baseline", cfg.Baseline, false, &r.Baseline},
		{"recomputed", cfg.Streamdb, true, &r.Recomputed}}
	for _, run := range runs {
		if run.bin == "" {
			continue
		}
		if err := os.RemoveAll(data); err != nil {
			return r, err
		}
		if err := copyDir(image, data); err != nil {
			return r, err
		}
		fmt.Fprintf(os.Stderr, "%s: restart (%s)\n", sc.Name, run.name)
		rs, err := timeRestart(ctx, cfg, srv, sc, run.bin, run.recompute)
		srv.Kill()
		if err != nil {
			return r, err
		}
		*run.to = rs
	}
	return r, nil
}

// build runs a scenario's setup and waits until its source committed
// every event.
func build(ctx context.Context, cfg config, srv *server.Streamdb, sc scenario) error {
	conn, err := pgx.Connect(ctx, srv.URL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for _, st := range sc.Setup {
		if _, err := conn.Exec(ctx, st); err != nil {
			return fmt.Errorf("%s: %w", st, err)
		}
	}
	deadline := time.Now().Add(cfg.Timeout)
	for {
		var off int64
		err := conn.QueryRow(ctx, `SELECT coalesce(max("offset"), 0) FROM nexmark_progress`).Scan(&off)
		if err != nil {
			return err
		}
		if off >= sc.Events {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out with %d of %d events ingested", off, sc.Events)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// timeRestart starts the killed server again and times its first
// connection, the table read and each view's first read.
func timeRestart(ctx context.Context, cfg config, srv *server.Streamdb, sc scenario, bin string, recompute bool) (*restart, error) {
	var args []string
	if recompute {
		args = append(args, "--view-state", "recomputed")
	}
	start := time.Now()
	if err := srv.RestartBinary(bin, args...); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	rs := &restart{Views: map[string]float64{}}
	for {
		c, err := net.Dial("tcp", srv.Addr())
		if err == nil {
			c.Close()
			rs.Listens = since(start)
			break
		}
		if exited, werr := srv.Exited(); exited {
			return nil, fmt.Errorf("server exited: %v\n%s", werr, srv.LogTail(10))
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		time.Sleep(5 * time.Millisecond)
	}
	var conn *pgx.Conn
	for {
		c, err := pgx.Connect(ctx, srv.URL)
		if err == nil {
			conn = c
			break
		}
		if exited, werr := srv.Exited(); exited {
			return nil, fmt.Errorf("server exited: %v\n%s", werr, srv.LogTail(10))
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		time.Sleep(5 * time.Millisecond)
	}
	defer conn.Close(ctx)
	rs.Accepts = since(start)
	if sc.Table != "" {
		if _, err := conn.Exec(ctx, sc.Table); err != nil {
			return nil, fmt.Errorf("table read: %w", err)
		}
		rs.TableRead = since(start)
	}
	// Each view is read on a connection of its own, all at once, so that
	// each read returns as soon as its view is ready.
	type done struct {
		view string
		at   float64
		err  error
	}
	ch := make(chan done, len(sc.Views))
	for _, v := range sc.Views {
		go func() {
			c, err := pgx.Connect(ctx, srv.URL)
			if err != nil {
				ch <- done{v, 0, err}
				return
			}
			defer c.Close(ctx)
			var n int64
			err = c.QueryRow(ctx, "SELECT count(*) FROM "+v).Scan(&n)
			ch <- done{v, since(start), err}
		}()
	}
	var errs []error
	for range sc.Views {
		d := <-ch
		if d.err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", d.view, d.err))
			continue
		}
		rs.Views[d.view] = d.at
		if rs.FirstView == 0 || d.at < rs.FirstView {
			rs.FirstView = d.at
		}
		rs.AllReady = max(rs.AllReady, d.at)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	u, err := srv.Usage()
	if err != nil {
		return nil, err
	}
	rs.PeakRSSMB, rs.CPUSeconds = mb(u.PeakRSS), u.CPU.Seconds()
	return rs, nil
}

func since(t time.Time) float64 { return time.Since(t).Seconds() }

func mb(b int64) float64 { return float64(b) / (1 << 20) }

// stateBytes sums the state_bytes of the server's views.
func stateBytes(ctx context.Context, conn *pgx.Conn) (int64, error) {
	var n int64
	rows, err := conn.Query(ctx, "SHOW MATERIALIZED VIEWS", pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	for rows.Next() {
		vals := rows.RawValues()
		if len(vals) > 1 && vals[1] != nil {
			v, err := strconv.ParseInt(string(vals[1]), 10, 64)
			if err != nil {
				return 0, err
			}
			n += v
		}
	}
	return n, rows.Err()
}

// dirSize sums the sizes of the files under dir.
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// report is the run's results and how to read them.
type report struct {
	Started time.Time `json:"started"`
	Load    string    `json:"load_start"`
	// Baseline is the -baseline binary, if any.
	Baseline string   `json:"baseline,omitempty"`
	LoadEnd  string   `json:"load_end"`
	Results  []result `json:"results"`
}

func (rep *report) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "restart.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "restart.md"), []byte(rep.markdown()), 0o644)
}

func (rep *report) markdown() string {
	var b strings.Builder
	b.WriteString("# Restart after kill -9: views restored from their persisted state, and recomputed\n\n")
	fmt.Fprintf(&b, "Run %s; load average %s at the start, %s at the end (2 shared cores).\n\n", rep.Started.UTC().Format("2006-01-02 15:04 UTC"), rep.Load, rep.LoadEnd)
	b.WriteString("Seconds from the restarted process's start. state is the views' state_bytes before the kill; store is the data directory.\n\n")
	if rep.Baseline != "" {
		fmt.Fprintf(&b, "baseline: %s, restarted from the same crash image as the build measured.\n\n", rep.Baseline)
	}
	b.WriteString("| scenario | state MB | store MB | steady RSS MB | restart | listens | accepts | table read | first view read | all views read | peak RSS MB | peak ÷ steady | CPU s |\n")
	b.WriteString("|---|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range rep.Results {
		if r.Error != "" {
			fmt.Fprintf(&b, "| %s | | | | error: %s | | | | | | | | |\n", r.Scenario, strings.ReplaceAll(r.Error, "\n", " "))
			continue
		}
		for _, x := range []struct {
			name string
			rs   *restart
		}{{"restored", r.Restored}, {"restored, baseline", r.Baseline}, {"recomputed", r.Recomputed}} {
			if x.rs == nil {
				continue
			}
			table := "–"
			if x.rs.TableRead > 0 {
				table = fmt.Sprintf("%.2f", x.rs.TableRead)
			}
			fmt.Fprintf(&b, "| %s | %.0f | %.0f | %.0f | %s | %.2f | %.2f | %s | %.2f | %.2f | %.0f | %.2f | %.1f |\n", r.Scenario,
				mb(r.StateBytes), r.StoreMB, r.SteadyRSSMB, x.name, x.rs.Listens, x.rs.Accepts, table, x.rs.FirstView, x.rs.AllReady,
				x.rs.PeakRSSMB, x.rs.PeakRSSMB/r.SteadyRSSMB, x.rs.CPUSeconds)
		}
	}
	b.WriteString("\n## Targets (issue 31)\n\n")
	var firsts []string
	ok3, okMem := true, true
	for _, r := range rep.Results {
		if r.Restored == nil {
			continue
		}
		firsts = append(firsts, fmt.Sprintf("%s %.2f s", r.Scenario, r.Restored.FirstView))
		ok3 = ok3 && r.Restored.FirstView <= 3
		okMem = okMem && r.Restored.PeakRSSMB <= 1.2*r.SteadyRSSMB
	}
	fmt.Fprintf(&b, "- restart to the first read of a view ≤ 3 s: **%s** (%s)\n", met(ok3), strings.Join(firsts, ", "))
	fmt.Fprintf(&b, "- peak memory of a restart that restores ≤ 1.2× the steady state: **%s**\n", met(okMem))
	b.WriteString("- restart time independent of history: compare the history scenario's rows (same state, 10× the events): restored against recomputed.\n")
	b.WriteString("\n## How it was measured\n\n")
	b.WriteString("Each scenario builds its state on a fresh server (bin/streamdb, default flags), waits until the NEXMARK source has committed every event, reads the server's resident set and the views' state_bytes, and kills it with SIGKILL. The server is started again on a copy of the data directory as the kill left it (each restart on a copy of its own, so that both replay what the crash left in Pebble's log): listens is its first accepted TCP connection, accepts its first session (the startup handshake, which completes while the store opens); table read a primary-key point read, which waits for the store to open (Pebble replaying and flushing its log); each view is then read (SELECT count(*)) on a connection of its own, a read that waits while the view hydrates, and first/all view read are the first and last of those to return. Peak RSS is the restarted process's VmHWM after every view was read. With -baseline, another build is then started on a copy of the same image, as the first was. Then the server is killed again and started with --view-state recomputed, which rebuilds every view from its inputs as every restart did before view state was persisted.\n")
	return b.String()
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// copyDir copies directory src, files and subdirectories, into a new
// directory dst.
func copyDir(src, dst string) error {
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return err
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.IsDir() {
			if err := copyDir(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
				return err
			}
			continue
		}
		if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
