package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb/bench/internal/server"
)

// freshness is the result of a paced run: how long after its generation
// each event became visible to a reader.
type freshness struct {
	Rate    int64 // events per second the source was paced at
	Events  int64 // events generated
	Sampled int64 // events generated after the view existed, the ones measured
	P50     time.Duration
	P99     time.Duration
	Max     time.Duration
}

// observation is one poll that saw the committed offset grow: every event
// below Offset was visible to a SELECT that returned at At.
type observation struct {
	Offset int64
	At     time.Time
}

// runFreshness measures freshness with a second, paced run: a fresh
// streamdb, the NEXMARK source at rate events per second (a fraction of
// the saturation throughput, so the engine is busy but not behind by
// construction) and q as a materialized view. The paced generator emits
// event k once k/rate seconds have passed since it started, so event k's
// generation time is start + k/rate, where start is taken just before
// CREATE SOURCE is sent: the generator starts later than that, so the
// measured freshness is an upper bound, loose by at most CREATE SOURCE's
// round trip. A poller reads the source's progress relation every
// pollEvery; progress and view are committed by the same tick and every
// SELECT reads one timestamp, so the poll that first returns an offset
// above k proves event k visible in the view. Freshness of event k is that
// poll's return time minus its generation time. Events generated before
// CREATE MATERIALIZED VIEW returned are not sampled: they reach the view
// by its initial hydration, not by maintenance.
func runFreshness(ctx context.Context, cfg config, q query, rate int64, report func(float64)) (freshness, error) {
	f := freshness{Rate: rate, Events: min(cfg.Events, max(int64(float64(rate)*cfg.FreshnessSeconds), 1))}
	srv, err := server.Start(ctx, cfg.Streamdb)
	if err != nil {
		return f, err
	}
	defer srv.Stop()
	conn, err := pgx.Connect(ctx, srv.URL)
	if err != nil {
		return f, err
	}
	defer conn.Close(ctx)

	// The first NEXMARK source of a process builds the generator's
	// vocabulary (~20 ms); a source created and dropped first keeps that
	// out of the measured CREATE SOURCE, whose whole duration counts.
	for _, warm := range []string{
		fmt.Sprintf("CREATE SOURCE %s FROM LOAD GENERATOR NEXMARK (MAX EVENTS 1, SEED %d) FOR ALL TABLES", sourceName, cfg.Seed),
		"DROP SOURCE " + sourceName + " CASCADE",
	} {
		if _, err := conn.Exec(ctx, warm); err != nil {
			return f, fmt.Errorf("warm-up: %w", err)
		}
	}
	start := time.Now()
	src := fmt.Sprintf("CREATE SOURCE %s FROM LOAD GENERATOR NEXMARK (EVENTS PER SECOND %d, MAX EVENTS %d, SEED %d) FOR ALL TABLES",
		sourceName, rate, f.Events, cfg.Seed)
	if _, err := conn.Exec(ctx, src); err != nil {
		return f, fmt.Errorf("create source: %w", err)
	}
	if _, err := conn.Exec(ctx, "CREATE MATERIALIZED VIEW "+q.Name+" AS "+q.SQL); err != nil {
		return f, fmt.Errorf("create materialized view: %w", err)
	}
	ready := time.Now()

	const pollEvery = 5 * time.Millisecond
	expected := time.Duration(float64(f.Events) / float64(rate) * float64(time.Second))
	deadline := start.Add(expected + cfg.Timeout)
	var obs []observation
	var last int64
	for last < f.Events {
		off, err := readOffset(ctx, conn)
		if err != nil {
			return f, fmt.Errorf("%w\n%s", err, srv.LogTail(10))
		}
		if off > last {
			obs = append(obs, observation{Offset: off, At: time.Now()})
			last = off
			report(float64(off) / float64(f.Events))
		}
		if time.Now().After(deadline) {
			return f, fmt.Errorf("paced run timed out with %d of %d events ingested", last, f.Events)
		}
		time.Sleep(pollEvery)
	}
	lags := eventLags(obs, start, ready, rate)
	f.Sampled = int64(len(lags))
	f.P50, f.P99, f.Max = percentile(lags, 0.50), percentile(lags, 0.99), percentile(lags, 1)
	return f, nil
}

// eventLags turns observations into one freshness per event: event k was
// generated at start + k/rate and first seen at the first observation
// whose offset exceeds k. Events generated before notBefore are skipped.
func eventLags(obs []observation, start, notBefore time.Time, rate int64) []time.Duration {
	var lags []time.Duration
	var k int64
	for _, o := range obs {
		for ; k < o.Offset; k++ {
			gen := start.Add(time.Duration(float64(k) / float64(rate) * float64(time.Second)))
			if gen.Before(notBefore) {
				continue
			}
			lags = append(lags, o.At.Sub(gen))
		}
	}
	return lags
}

// percentile returns the q-quantile (0 < q <= 1) of ds by the nearest-rank
// method; ds is sorted in place. It returns 0 for no samples.
func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	if !slices.IsSorted(ds) {
		slices.Sort(ds)
	}
	i := int(math.Ceil(q*float64(len(ds)))) - 1
	return ds[min(max(i, 0), len(ds)-1)]
}
