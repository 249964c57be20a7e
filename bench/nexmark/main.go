package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb/bench/internal/progress"
	"github.com/streamdb/streamdb/bench/internal/server"
	"github.com/streamdb/streamdb/internal/pgtest"
)

// config is the harness's settings, from flags whose defaults come from
// the environment where make passes them (BENCH_EVENTS, BENCH_QUERIES).
type config struct {
	Streamdb          string
	Events            int64
	Seed              int64
	Queries           string
	Out               string
	FreshnessFraction float64
	FreshnessSeconds  float64
	PGBatch           int64
	PGBudget          time.Duration
	Timeout           time.Duration
	Postgres          bool
	// Modes are the saturation runs besides the persisted one (see
	// mode), Repeat how many times each runs, alternating.
	Modes  []mode
	Repeat int
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "nexmark:", err)
		os.Exit(1)
	}
}

func parseFlags() (config, error) {
	var cfg config
	events, err := envInt("BENCH_EVENTS", 100_000)
	if err != nil {
		return cfg, err
	}
	flag.StringVar(&cfg.Streamdb, "streamdb", "bin/streamdb", "the streamdb binary to benchmark")
	flag.Int64Var(&cfg.Events, "events", events, "events per query (default from BENCH_EVENTS)")
	flag.Int64Var(&cfg.Seed, "seed", 1, "NEXMARK generator seed")
	flag.StringVar(&cfg.Queries, "queries", os.Getenv("BENCH_QUERIES"), "comma-separated queries to run, e.g. q0,q5 (default all, or BENCH_QUERIES)")
	flag.StringVar(&cfg.Out, "out", "bench/results", "directory for latest.json, latest.md and latest.png")
	flag.Float64Var(&cfg.FreshnessFraction, "freshness-fraction", 0.5, "paced rate of the freshness run as a fraction of the saturation rate")
	flag.Float64Var(&cfg.FreshnessSeconds, "freshness-seconds", 5, "length of the freshness run at its paced rate")
	flag.Int64Var(&cfg.PGBatch, "pg-batch", 10_000, "events per PostgreSQL batch (one COPY transaction and one REFRESH)")
	flag.DurationVar(&cfg.PGBudget, "pg-budget", 90*time.Second, "time budget of the PostgreSQL baseline per query")
	flag.DurationVar(&cfg.Timeout, "timeout", 10*time.Minute, "give up on a streamdb run after this long")
	flag.BoolVar(&cfg.Postgres, "postgres", true, "run the PostgreSQL baseline (needs PostgreSQL 15's server binaries)")
	modes := flag.String("modes", "recomputed,notstored", "saturation runs besides the persisted one: recomputed (no view state persisted), notstored (the source WITH (STORED = false)); empty for none")
	flag.IntVar(&cfg.Repeat, "repeat", 1, "saturation runs of each mode per query, alternating; the best is kept")
	flag.Parse()
	if cfg.Events <= 0 || cfg.PGBatch <= 0 || cfg.FreshnessFraction <= 0 || cfg.Repeat <= 0 {
		return cfg, fmt.Errorf("-events, -pg-batch, -freshness-fraction and -repeat must be positive")
	}
	for _, m := range strings.Split(*modes, ",") {
		switch strings.TrimSpace(m) {
		case "":
		case "recomputed":
			cfg.Modes = append(cfg.Modes, recomputed)
		case "notstored":
			cfg.Modes = append(cfg.Modes, notStored)
		default:
			return cfg, fmt.Errorf("-modes: unknown mode %q", m)
		}
	}
	return cfg, nil
}

func envInt(name string, def int64) (int64, error) {
	s := os.Getenv(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s=%q: %w", name, s, err)
	}
	return n, nil
}

func run() error {
	cfg, err := parseFlags()
	if err != nil {
		return err
	}
	all, err := loadQueries()
	if err != nil {
		return err
	}
	qs, err := selectQueries(all, cfg.Queries)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	built, err := commit(cfg.Streamdb)
	if err != nil {
		return err
	}
	info := runInfo{Started: time.Now(), Events: cfg.Events, Seed: cfg.Seed, PGBatch: cfg.PGBatch,
		Freshness: fmt.Sprintf("%.0f%% of the query's saturation rate for up to %gs", cfg.FreshnessFraction*100, cfg.FreshnessSeconds),
		Machine:   machine(), LoadStart: server.LoadAverage(), Commit: built, Postgres: "not run"}
	var pgURL string
	if cfg.Postgres {
		if !pgtest.Available() {
			return fmt.Errorf("PostgreSQL 15 server binaries not found in %s (install postgresql-15, or pass -postgres=false)", pgtest.BinDir)
		}
		cluster, err := pgtest.StartCluster()
		if err != nil {
			return err
		}
		defer cluster.Stop()
		pgURL = cluster.URL
		if info.Postgres, err = postgresVersion(ctx, pgURL); err != nil {
			return err
		}
	}

	stepsPerQuery := 3 + len(cfg.Modes)*cfg.Repeat + cfg.Repeat - 1
	bar := progress.New(os.Stderr, len(qs)*stepsPerQuery)
	var results []result
	for i, q := range qs {
		if err := ctx.Err(); err != nil {
			return err
		}
		r := runQuery(ctx, cfg, pgURL, q, bar, i*stepsPerQuery)
		results = append(results, r)
		bar.Printf("%s", summary(r))
		// Rewrite the outputs after every query, so that a long run
		// that is interrupted still leaves what it measured.
		info.Duration, info.LoadEnd = time.Since(info.Started), server.LoadAverage()
		if err := writeResults(cfg, info, results); err != nil {
			return err
		}
	}
	bar.Finish()
	fmt.Fprintf(os.Stderr, "wrote %s/latest.{json,md,png}\n", cfg.Out)
	return nil
}

// runQuery measures one query on streamdb (saturation, then freshness),
// then PostgreSQL and, for q0–q2, the Go loops. A failure ends the
// query's measurements but not the run: it is recorded in the result.
func runQuery(ctx context.Context, cfg config, pgURL string, q query, bar *progress.Bar, step int) result {
	r := result{Query: q.Name, Events: cfg.Events}
	bar.Step(step, q.Name+": streamdb at saturation")
	sat, err := runSaturation(ctx, cfg, q, persisted, bar.Update)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.StreamdbEPS = rate(cfg.Events, sat.Elapsed)
	if sat.CPU > 0 {
		r.StreamdbEPSPerCPU = rate(cfg.Events, sat.CPU)
	}
	step = runModes(ctx, cfg, q, &r, sat, bar, step)
	r.PeakRSSMB = ptr(math.Round(float64(sat.PeakRSS)/(1<<20)*10) / 10)
	r.StateBytes, r.ViewRows = sat.StateBytes, ptr(sat.ViewRows)
	r.ViewReadMs, r.RecomputeMs = ms(sat.ViewRead), ms(sat.Recompute)
	r.Check = sat.Check

	bar.Step(step+1, q.Name+": streamdb paced (freshness)")
	paced := max(int64(*r.StreamdbEPS*cfg.FreshnessFraction), 100)
	if fr, err := runFreshness(ctx, cfg, q, paced, bar.Update); err != nil {
		r.Error = "freshness: " + err.Error()
	} else {
		r.FreshnessP50Ms, r.FreshnessP99Ms, r.FreshnessRate = ms(fr.P50), ms(fr.P99), ptr(fr.Rate)
	}

	bar.Step(step+2, q.Name+": PostgreSQL and Go baselines")
	if pgURL != "" {
		pr, err := runPostgres(ctx, cfg, pgURL, q, bar.Update)
		switch {
		case err != nil:
			r.PostgresCheck = "PostgreSQL failed: " + err.Error()
		default:
			r.PostgresEPS = rate(pr.Events, pr.Elapsed)
			r.PostgresEvents = ptr(pr.Events)
			r.PostgresFreshnessP50Ms, r.PostgresFreshnessP99Ms = ms(pr.P50), ms(pr.P99)
			switch {
			case pr.Events < cfg.Events:
				r.PostgresCheck = "PostgreSQL stopped early"
			case pr.View == sat.View:
				r.PostgresCheck = "same rows as PostgreSQL"
			default:
				r.PostgresCheck = fmt.Sprintf("DIFFERS from PostgreSQL (%d rows there)", pr.View.Rows)
			}
		}
	}
	if fn := goBaselines[q.Name]; fn != nil {
		d, rows := runGoBaseline(fn, cfg.Seed, cfg.Events)
		r.GoBaselineEPS = rate(cfg.Events, d)
		if rows != sat.ViewRows {
			r.Check += fmt.Sprintf("; Go loop has %d rows", rows)
		}
		wall, cpu, err := runDurableBaseline(q.Name, cfg.Seed, cfg.Events)
		if err != nil {
			r.Error = "durable Go loop: " + err.Error()
		} else {
			r.GoDurableEPS, r.GoDurableEPSPerCPU = rate(cfg.Events, wall), rate(cfg.Events, cpu)
		}
	}
	return r
}

// runModes runs the query's saturation in the other modes, each
// cfg.Repeat times and alternating with the persisted mode, and records
// the best rate per CPU-second of each (of several runs on a shared
// machine, the one least disturbed). A view in another mode must hold
// what the persisted run's held. It returns the progress step reached.
func runModes(ctx context.Context, cfg config, q query, r *result, sat saturation, bar *progress.Bar, step int) int {
	best := func(p **float64, v *float64) {
		if v != nil && (*p == nil || **p < *v) {
			*p = v
		}
	}
	for i := range cfg.Repeat {
		if i > 0 {
			step++
			bar.Step(step, fmt.Sprintf("%s: streamdb persisted, run %d", q.Name, i+1))
			if again, err := runSaturation(ctx, cfg, q, persisted, bar.Update); err == nil && again.CPU > 0 {
				best(&r.StreamdbEPSPerCPU, rate(cfg.Events, again.CPU))
			}
		}
		for _, m := range cfg.Modes {
			step++
			bar.Step(step, fmt.Sprintf("%s: streamdb %s, run %d", q.Name, m, i+1))
			s, err := runSaturation(ctx, cfg, q, m, bar.Update)
			if err != nil {
				r.Error = fmt.Sprintf("%s: %v", m, err)
				continue
			}
			check := "ok"
			if s.View != sat.View {
				check = fmt.Sprintf("MISMATCH: %d rows, the persisted run's view %d", s.View.Rows, sat.View.Rows)
			}
			switch m {
			case recomputed:
				best(&r.RecomputedEPSPerCPU, rate(cfg.Events, s.CPU))
				r.RecomputedCheck = check
			case notStored:
				best(&r.NotStoredEPS, rate(cfg.Events, s.Elapsed))
				best(&r.NotStoredEPSPerCPU, rate(cfg.Events, s.CPU))
				r.NotStoredCheck = check
			}
		}
	}
	return step
}

// summary is the line printed above the progress bar after each query.
func summary(r result) string {
	if r.StreamdbEPS == nil {
		return fmt.Sprintf("%s: %s", r.Query, firstLine(r.Error))
	}
	s := fmt.Sprintf("%s: streamdb %s ev/s, PostgreSQL %s ev/s, freshness p99 %s ms, check %s",
		r.Query, num(r.StreamdbEPS, "%.0f"), num(r.PostgresEPS, "%.0f"), num(r.FreshnessP99Ms, "%.0f"), r.Check)
	if r.Error != "" {
		s += ", " + firstLine(r.Error)
	}
	return s
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func writeResults(cfg config, info runInfo, results []result) error {
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return err
	}
	var js, md, png bytes.Buffer
	if err := writeJSON(&js, results); err != nil {
		return err
	}
	if err := writeMarkdown(&md, info, results); err != nil {
		return err
	}
	title := fmt.Sprintf("Nexmark throughput, events/s (log scale), %d events per query", cfg.Events)
	if err := writeChart(&png, title, results); err != nil {
		return err
	}
	for name, b := range map[string][]byte{"latest.json": js.Bytes(), "latest.md": md.Bytes(), "latest.png": png.Bytes()} {
		if err := os.WriteFile(filepath.Join(cfg.Out, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// machine describes the host: cores, CPU model and memory.
func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			mem = fmt.Sprintf(", %.0f GiB RAM", float64(kb)/(1<<20))
		}
	}
	return fmt.Sprintf("%d cores, %s%s, %s/%s, %s", runtime.NumCPU(), model, mem, runtime.GOOS, runtime.GOARCH, runtime.Version())
}

// commit names the build of the binary under test, from its --version
// ("streamdb <version> [commit <hash>] <go version>"), for telling runs
// apart. A binary whose version names another commit than the
// checkout's HEAD is refused: the report would credit the checkout with
// an older build's figures (make build rebuilds it).
func commit(bin string) (string, error) {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	fields := strings.Fields(string(out))
	if len(fields) < 3 {
		return "", fmt.Errorf("%s --version printed %q, want \"streamdb <version> … <go version>\"", bin, out)
	}
	var hashes []string
	for i, f := range fields[1:] {
		if i == 0 || fields[i] == "commit" {
			if h := strings.TrimSuffix(f, "+dirty"); len(h) >= 7 && strings.Trim(h, "0123456789abcdef") == "" {
				hashes = append(hashes, h)
			}
		}
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil || len(hashes) == 0 {
		return "build " + strings.Join(fields[1:len(fields)-1], " "), nil
	}
	for _, h := range hashes {
		if strings.HasPrefix(string(head), h) {
			return "commit " + h, nil
		}
	}
	return "", fmt.Errorf("%s was built from %s but the checkout is at %.12s: run make build first", bin, hashes[0], head)
}

func postgresVersion(ctx context.Context, url string) (string, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	var v string
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
		return "", err
	}
	return "PostgreSQL " + v + " (default settings, fsync on)", nil
}
