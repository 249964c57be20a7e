package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb/bench/internal/progress"
	"github.com/streamdb/streamdb/bench/internal/server"
)

// fanOut is the fan-out part's result: runs without subscribers and
// with cfg.Subscribers, alternating.
type fanOut struct {
	Subscribers int         `json:"subscribers"`
	Writers     int         `json:"writers"`
	Seconds     float64     `json:"seconds_per_run"`
	Rounds      int         `json:"rounds"`
	Runs        []fanOutRun `json:"runs"`
	// Without and With are the median view ticks per second without
	// and with the subscribers; Ratio is With over Without.
	Without float64 `json:"median_ticks_per_s_without"`
	With    float64 `json:"median_ticks_per_s_with"`
	Ratio   float64 `json:"ratio"`
	Met     bool    `json:"met"`
}

type fanOutRun struct {
	Subscribers int     `json:"subscribers"`
	TicksPerSec float64 `json:"view_ticks_per_s"`
	CommitsPerS float64 `json:"commits_per_s"`
	// RowsReceived is what the subscribers read, in total.
	RowsReceived int64 `json:"rows_received"`
	// ServerCPU and HarnessCPU are the CPU seconds the server and this
	// process (writers and subscribers) used during the run.
	ServerCPU  float64 `json:"server_cpu_s"`
	HarnessCPU float64 `json:"harness_cpu_s"`
	// TicksPerCPUSec is view ticks per CPU-second of the server.
	TicksPerCPUSec float64 `json:"view_ticks_per_server_cpu_s"`
}

// counter counts the rows of COPY text written to it.
type counter struct{ n *atomic.Int64 }

func (c counter) Write(p []byte) (int, error) {
	c.n.Add(int64(bytes.Count(p, []byte("\n"))))
	return len(p), nil
}

func measureFanOut(ctx context.Context, cfg config, srv *server.Streamdb, r *results, bar *progress.Bar) error {
	admin, err := pgx.Connect(ctx, srv.URL)
	if err != nil {
		return err
	}
	defer admin.Close(ctx)
	for _, sql := range []string{
		"CREATE TABLE f (id int PRIMARY KEY, k int NOT NULL, v int NOT NULL)",
		"CREATE MATERIALIZED VIEW fv AS SELECT k, count(*) AS n, sum(v) AS s FROM f GROUP BY k",
	} {
		if _, err := admin.Exec(ctx, sql); err != nil {
			return err
		}
	}
	r.FanOut = fanOut{Subscribers: cfg.Subscribers, Writers: cfg.Writers, Seconds: cfg.FanOutTime.Seconds(), Rounds: cfg.FanOutRounds}
	next := 0
	var without, with []float64
	// The runs alternate, so that a change in the machine's load meets
	// both alike; the ratio is of the medians.
	for round := range cfg.FanOutRounds {
		for _, subs := range []int{0, cfg.Subscribers} {
			run, err := fanOutOnce(ctx, cfg, srv, admin, subs, &next)
			if err != nil {
				return err
			}
			r.FanOut.Runs = append(r.FanOut.Runs, run)
			if subs == 0 {
				without = append(without, run.TicksPerSec)
			} else {
				with = append(with, run.TicksPerSec)
			}
			bar.Printf("fan-out round %d: %d subscribers: %.0f view ticks/s, %.0f commits/s, %d rows received; CPU s: server %.1f, harness %.1f; %.0f ticks per server CPU-second",
				round+1, subs, run.TicksPerSec, run.CommitsPerS, run.RowsReceived, run.ServerCPU, run.HarnessCPU, run.TicksPerCPUSec)
		}
	}
	r.FanOut.Without, r.FanOut.With = median(without), median(with)
	if r.FanOut.Without > 0 {
		r.FanOut.Ratio = r.FanOut.With / r.FanOut.Without
	}
	r.FanOut.Met = r.FanOut.Ratio >= 0.5
	return nil
}

// median returns the median of xs.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// fanOutOnce runs the writers for cfg.FanOutTime with subs subscribers
// of the view reading along.
func fanOutOnce(ctx context.Context, cfg config, srv *server.Streamdb, admin *pgx.Conn, subs int, next *int) (fanOutRun, error) {
	run := fanOutRun{Subscribers: subs}
	subCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var received atomic.Int64
	var wg sync.WaitGroup
	started := make(chan error, subs)
	for range subs {
		conn, err := pgx.Connect(ctx, srv.URL)
		if err != nil {
			return run, err
		}
		defer conn.Close(context.Background())
		wg.Add(1)
		go func() {
			defer wg.Done()
			first := &firstLine{ch: started, w: counter{&received}}
			_, err := conn.PgConn().CopyTo(subCtx, first, "COPY (SUBSCRIBE fv WITH (SNAPSHOT = false, PROGRESS)) TO STDOUT")
			if !first.seen {
				started <- fmt.Errorf("subscriber: %v", err)
			}
		}()
	}
	for range subs {
		if err := <-started; err != nil {
			return run, err
		}
	}
	received.Store(0)
	ticks := func() (int64, error) {
		var n int64
		err := admin.QueryRow(ctx, "SHOW MATERIALIZED VIEWS WHERE name = 'fv'").Scan(nil, nil, &n, nil, nil, nil, nil, nil)
		return n, err
	}
	before, err := ticks()
	if err != nil {
		return run, err
	}
	srv0, err := srv.Usage()
	if err != nil {
		return run, err
	}
	own0, err := server.ReadUsage(os.Getpid())
	if err != nil {
		return run, err
	}
	var commits atomic.Int64
	errs := make(chan error, cfg.Writers)
	deadline := time.Now().Add(cfg.FanOutTime)
	start := time.Now()
	for w := range cfg.Writers {
		base := *next + w*10_000_000
		go func() {
			conn, err := pgx.Connect(ctx, srv.URL)
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close(context.Background())
			for i := 0; time.Now().Before(deadline); i++ {
				if _, err := conn.Exec(ctx, "INSERT INTO f VALUES ($1, $2, $3)", base+i, (base+i)%100, i); err != nil {
					errs <- err
					return
				}
				commits.Add(1)
			}
			errs <- nil
		}()
	}
	for range cfg.Writers {
		if err := <-errs; err != nil {
			return run, err
		}
	}
	elapsed := time.Since(start)
	srv1, err := srv.Usage()
	if err != nil {
		return run, err
	}
	own1, err := server.ReadUsage(os.Getpid())
	if err != nil {
		return run, err
	}
	run.ServerCPU, run.HarnessCPU = (srv1.CPU - srv0.CPU).Seconds(), (own1.CPU - own0.CPU).Seconds()
	*next += cfg.Writers * 10_000_000
	after, err := ticks()
	if err != nil {
		return run, err
	}
	time.Sleep(time.Second) // the subscribers read the last changes
	run.TicksPerSec = float64(after-before) / elapsed.Seconds()
	run.CommitsPerS = float64(commits.Load()) / elapsed.Seconds()
	run.TicksPerCPUSec = float64(after-before) / run.ServerCPU
	run.RowsReceived = received.Load()
	cancel()
	wg.Wait()
	if subs > 0 && run.RowsReceived == 0 {
		return run, fmt.Errorf("the subscribers received nothing")
	}
	return run, nil
}

// firstLine reports the first write of a subscription (its first
// progress row: it is running) and passes every write on.
type firstLine struct {
	ch   chan error
	w    counter
	seen bool
}

func (f *firstLine) Write(p []byte) (int, error) {
	if !f.seen {
		f.seen = true
		f.ch <- nil
	}
	return f.w.Write(p)
}
