package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/streamdb/streamdb/bench/internal/progress"
	"github.com/streamdb/streamdb/bench/internal/server"
)

type config struct {
	Streamdb     string
	Changes      int
	Subscribers  int
	Writers      int
	FanOutTime   time.Duration
	FanOutRounds int
	SinkRows     int
	SinkBatch    int
	Out          string
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "changes:", err)
		os.Exit(1)
	}
}

func run() error {
	var cfg config
	flag.StringVar(&cfg.Streamdb, "streamdb", "bin/streamdb", "the streamdb binary to benchmark")
	flag.IntVar(&cfg.Changes, "changes", 10_000, "one-row INSERTs timed for latency")
	flag.IntVar(&cfg.Subscribers, "subscribers", 100, "concurrent subscribers of the fan-out run")
	flag.IntVar(&cfg.Writers, "writers", 4, "concurrent writers of the fan-out runs")
	flag.DurationVar(&cfg.FanOutTime, "fanout-time", 10*time.Second, "duration of each fan-out run")
	flag.IntVar(&cfg.FanOutRounds, "fanout-rounds", 3, "fan-out runs with and without subscribers, alternating")
	flag.IntVar(&cfg.SinkRows, "sink-rows", 500_000, "rows written through the sink")
	flag.IntVar(&cfg.SinkBatch, "sink-batch", 10_000, "rows per INSERT of the sink's backlog")
	flag.StringVar(&cfg.Out, "out", "bench/results", "directory for changes.json and changes.md")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	bar := progress.New(os.Stderr, 4)
	r := &results{Started: time.Now().UTC(), LoadBefore: server.LoadAverage()}
	parts := []struct {
		label string
		run   func(context.Context, config, *server.Streamdb, *results, *progress.Bar) error
	}{
		{fmt.Sprintf("latency of %d changes", cfg.Changes), measureLatency},
		{fmt.Sprintf("tick rate with 0 and %d subscribers", cfg.Subscribers), measureFanOut},
		{fmt.Sprintf("sink of %d rows vs a bare producer", cfg.SinkRows), measureSink},
	}
	for i, p := range parts {
		bar.Step(i, p.label)
		// Each part gets a fresh server, so that one's state does not
		// weigh on the next.
		srv, err := server.Start(ctx, cfg.Streamdb, "--max-connections", fmt.Sprint(cfg.Subscribers+cfg.Writers+10))
		if err != nil {
			return err
		}
		err = p.run(ctx, cfg, srv, r, bar)
		srv.Stop()
		if err != nil {
			return fmt.Errorf("%s: %w", p.label, err)
		}
	}
	bar.Finish()
	r.LoadAfter = server.LoadAverage()
	return r.write(cfg)
}

// write saves the results as JSON and Markdown in cfg.Out.
func (r *results) write(cfg config) error {
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(cfg.Out, "changes.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	md := r.markdown(cfg)
	fmt.Print(md)
	return os.WriteFile(filepath.Join(cfg.Out, "changes.md"), []byte(md), 0o644)
}
