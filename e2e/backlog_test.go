package e2e

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestKafkaBacklog ingests a backlog through a JSON source and a GROUP BY
// view while a second client reads the view back to back, and checks the
// issue's backpressure promise: the backlog enters in bounded batches, the
// source's relation stays in storage, so memory does not grow with the
// backlog, and no read waits long behind ingestion.
//
// The backlog is STREAMDB_E2E_BACKLOG records, 200,000 by default (a few
// seconds); set it to tens of millions to see the bounds hold at scale.
// The limits are loose enough for a loaded machine: transient heap (the
// peak less what stays once ingestion is over) under 96 MiB, retained heap
// under 12 MiB plus 8 bytes per record (a relation held in memory costs
// about 100), reads under 2 s.
func TestKafkaBacklog(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests a large backlog; skipped with -short")
	}
	const (
		maxTransient = 96 << 20
		maxRetained  = 12 << 20
		maxPerRecord = 8
		maxRead      = 2 * time.Second
	)
	bl := fillBacklog(t, envInt("STREAMDB_E2E_BACKLOG", 200_000))
	var reads []time.Duration
	run := streamdbIngest(t, bl, func(ctx context.Context, c *client) {
		for ctx.Err() == nil {
			start := time.Now()
			if _, err := c.query(`SELECT sum(n) FROM bench_sums`); err != nil && ctx.Err() == nil {
				// The view does not exist until just after CREATE SOURCE.
				time.Sleep(time.Millisecond)
				continue
			}
			reads = append(reads, time.Since(start))
		}
	})
	slices.Sort(reads)
	if len(reads) == 0 {
		t.Fatal("no read completed during ingestion")
	}
	p99, slowest := reads[len(reads)*99/100], reads[len(reads)-1]
	t.Logf("%d records in %v (%.0f records/s); heap: peak +%.1f MiB, transient %.1f MiB, retained %.0f B/record; %d reads: p99 %v, max %v",
		bl.n, run.elapsed.Round(time.Millisecond), float64(bl.n)/run.elapsed.Seconds(),
		float64(run.peak)/(1<<20), float64(run.transient)/(1<<20), float64(run.retained)/float64(bl.n),
		len(reads), p99.Round(time.Microsecond), slowest.Round(time.Microsecond))
	if run.transient > maxTransient {
		t.Errorf("transient heap %.1f MiB, want at most %d MiB", float64(run.transient)/(1<<20), maxTransient>>20)
	}
	if limit := uint64(maxRetained + maxPerRecord*bl.n); run.retained > limit {
		t.Errorf("ingestion left %.1f MiB on the heap, want at most %.1f MiB: is the source's relation held in memory?",
			float64(run.retained)/(1<<20), float64(limit)/(1<<20))
	}
	if slowest > maxRead {
		t.Errorf("slowest read during ingestion took %v, want at most %v", slowest, maxRead)
	}
}
