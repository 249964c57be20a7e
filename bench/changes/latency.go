package main

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb/bench/internal/progress"
	"github.com/streamdb/streamdb/bench/internal/server"
)

// latency is the latency part's result.
type latency struct {
	Changes int `json:"changes"`
	// SentMs are percentiles from sending the INSERT to receiving its
	// row; AckMs from the writer's commit acknowledgement to it.
	SentMs map[string]float64 `json:"sent_to_received_ms"`
	AckMs  map[string]float64 `json:"ack_to_received_ms"`
	Met    bool               `json:"met"`
}

// arrivals is a COPY (SUBSCRIBE) client's sink of data: each row's id
// and when it arrived.
type arrivals struct {
	ch chan arrival
}

type arrival struct {
	id int
	at time.Time
}

// Write takes one row of COPY text: mz_timestamp, mz_diff, id.
func (a *arrivals) Write(p []byte) (int, error) {
	at := time.Now()
	for _, line := range bytes.Split(bytes.TrimSuffix(p, []byte("\n")), []byte("\n")) {
		f := bytes.Split(line, []byte("\t"))
		if len(f) != 3 {
			return 0, fmt.Errorf("unexpected row %q", line)
		}
		id, err := strconv.Atoi(string(f[2]))
		if err != nil {
			return 0, err
		}
		a.ch <- arrival{id, at}
	}
	return len(p), nil
}

func measureLatency(ctx context.Context, cfg config, srv *server.Streamdb, r *results, bar *progress.Bar) error {
	w, err := pgx.Connect(ctx, srv.URL)
	if err != nil {
		return err
	}
	defer w.Close(ctx)
	if _, err := w.Exec(ctx, "CREATE TABLE lat (id int PRIMARY KEY)"); err != nil {
		return err
	}
	sub, err := pgx.Connect(ctx, srv.URL)
	if err != nil {
		return err
	}
	defer sub.Close(ctx)
	subCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	a := &arrivals{ch: make(chan arrival, 16)}
	done := make(chan error, 1)
	go func() {
		_, err := sub.PgConn().CopyTo(subCtx, a, "COPY (SUBSCRIBE lat WITH (SNAPSHOT = false)) TO STDOUT")
		done <- err
	}()
	ins, err := w.Prepare(ctx, "ins", "INSERT INTO lat VALUES ($1)")
	if err != nil {
		return err
	}
	// Warm-up changes (negative ids) until one arrives: the
	// subscription is running, and started after the ones before.
	for warm := -1; ; warm-- {
		if warm < -100 {
			return fmt.Errorf("the subscription does not deliver")
		}
		if _, err := w.Exec(ctx, ins.Name, warm); err != nil {
			return err
		}
		select {
		case <-a.ch:
		case err := <-done:
			return fmt.Errorf("subscription ended: %v", err)
		case <-time.After(100 * time.Millisecond):
			continue
		}
		break
	}
	sent := make([]time.Duration, cfg.Changes)
	acked := make([]time.Duration, cfg.Changes)
	for i := range cfg.Changes {
		start := time.Now()
		if _, err := w.Exec(ctx, ins.Name, i); err != nil {
			return err
		}
		ack := time.Now()
		select {
		case got := <-a.ch:
			for got.id < 0 { // a late warm-up change
				got = <-a.ch
			}
			if got.id != i {
				return fmt.Errorf("received row %d, want %d", got.id, i)
			}
			sent[i], acked[i] = got.at.Sub(start), got.at.Sub(ack)
		case err := <-done:
			return fmt.Errorf("subscription ended: %v", err)
		case <-time.After(10 * time.Second):
			return fmt.Errorf("row %d did not arrive", i)
		}
		if i%500 == 0 {
			bar.Update(float64(i) / float64(cfg.Changes))
		}
	}
	r.Latency = latency{Changes: cfg.Changes, SentMs: percentiles(sent), AckMs: percentiles(acked)}
	r.Latency.Met = r.Latency.SentMs["p99"] <= 20
	bar.Printf("latency: send → received p50 %.2f ms, p99 %.2f ms; ack → received p50 %.2f ms, p99 %.2f ms",
		r.Latency.SentMs["p50"], r.Latency.SentMs["p99"], r.Latency.AckMs["p50"], r.Latency.AckMs["p99"])
	return nil
}

// percentiles returns p50, p90, p99 and max of ds in milliseconds.
func percentiles(ds []time.Duration) map[string]float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(q float64) float64 {
		return float64(s[min(len(s)-1, int(q*float64(len(s))))].Microseconds()) / 1000
	}
	return map[string]float64{"p50": at(0.50), "p90": at(0.90), "p99": at(0.99), "max": at(1)}
}
