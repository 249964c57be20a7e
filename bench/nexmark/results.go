package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// result is one query's row of bench/results/latest.json. Pointers are
// null in the JSON when the number was not measured (the query failed, has
// no Go baseline, or the server cannot report it).
type result struct {
	Query                  string   `json:"query"`
	Events                 int64    `json:"events"`
	StreamdbEPS            *float64 `json:"streamdb_eps"`
	StreamdbEPSPerCPU      *float64 `json:"streamdb_eps_per_cpu_s"`
	PostgresEPS            *float64 `json:"postgres_eps"`
	PostgresEvents         *int64   `json:"postgres_events"`
	GoBaselineEPS          *float64 `json:"go_baseline_eps"`
	FreshnessP50Ms         *float64 `json:"freshness_p50_ms"`
	FreshnessP99Ms         *float64 `json:"freshness_p99_ms"`
	FreshnessRate          *int64   `json:"freshness_rate_eps"`
	PostgresFreshnessP50Ms *float64 `json:"postgres_freshness_p50_ms"`
	PostgresFreshnessP99Ms *float64 `json:"postgres_freshness_p99_ms"`
	PeakRSSMB              *float64 `json:"peak_rss_mb"`
	StateBytes             *int64   `json:"state_bytes"`
	ViewRows               *int64   `json:"view_rows"`
	ViewReadMs             *float64 `json:"view_read_ms"`
	RecomputeMs            *float64 `json:"recompute_ms"`
	Check                  string   `json:"check"`
	PostgresCheck          string   `json:"postgres_check,omitempty"`
	Error                  string   `json:"error,omitempty"`
	// The other modes (see mode) and the durable Go loop.
	RecomputedEPSPerCPU *float64 `json:"recomputed_eps_per_cpu_s,omitempty"`
	RecomputedCheck     string   `json:"recomputed_check,omitempty"`
	NotStoredEPS        *float64 `json:"not_stored_eps,omitempty"`
	NotStoredEPSPerCPU  *float64 `json:"not_stored_eps_per_cpu_s,omitempty"`
	NotStoredCheck      string   `json:"not_stored_check,omitempty"`
	GoDurableEPS        *float64 `json:"go_durable_eps,omitempty"`
	GoDurableEPSPerCPU  *float64 `json:"go_durable_eps_per_cpu_s,omitempty"`
}

func ptr[T any](v T) *T { return &v }

func ms(d time.Duration) *float64 { return ptr(float64(d.Microseconds()) / 1000) }

// rate is n per second over d, to one decimal.
func rate(n int64, d time.Duration) *float64 {
	return ptr(math.Round(float64(n)/d.Seconds()*10) / 10)
}

func writeJSON(w io.Writer, results []result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(results)
}

// runInfo describes the run for the Markdown report's header.
type runInfo struct {
	Started   time.Time
	Duration  time.Duration
	Events    int64
	Seed      int64
	PGBatch   int64
	Freshness string // how the paced runs were set up
	Machine   string
	LoadStart string
	LoadEnd   string
	Commit    string
	Postgres  string
}

// writeMarkdown writes the results table, the targets of issue 5 with
// which are met, and the notes a reader needs to trust the numbers.
func writeMarkdown(w io.Writer, info runInfo, results []result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Nexmark: streamdb vs PostgreSQL 15\n\n")
	fmt.Fprintf(&b, "%d events per query (seed %d), run %s (%s), streamdb %s.\n\n", info.Events, info.Seed,
		info.Started.UTC().Format("2006-01-02 15:04 UTC"), info.Duration.Round(time.Second), info.Commit)
	fmt.Fprintf(&b, "Machine: %s. Load average %s at the start, %s at the end (the machine is shared; wall-clock rates move with it, per-CPU-second rates much less).\n\n",
		info.Machine, info.LoadStart, info.LoadEnd)
	fmt.Fprintf(&b, "PostgreSQL: %s; batches of %d events, each COPYed in one transaction and followed by REFRESH MATERIALIZED VIEW.\n\n", info.Postgres, info.PGBatch)
	b.WriteString("| query | streamdb ev/s | ev per CPU-s | PostgreSQL ev/s | × PostgreSQL | Go loop ev/s | × Go loop | freshness p50 / p99 ms | PostgreSQL freshness p50 / p99 ms | peak RSS MB | state bytes | view rows | check |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n")
	for _, r := range results {
		check := r.Check
		if r.Error != "" {
			check = "error: " + r.Error
		}
		if r.PostgresCheck != "" {
			check += "; " + r.PostgresCheck
		}
		pgEPS := num(r.PostgresEPS, "%.0f")
		if r.PostgresEvents != nil && *r.PostgresEvents < r.Events {
			pgEPS += fmt.Sprintf(" (%d ev)", *r.PostgresEvents)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s / %s | %s / %s | %s | %s | %s | %s |\n", r.Query,
			num(r.StreamdbEPS, "%.0f"), num(r.StreamdbEPSPerCPU, "%.0f"), pgEPS, ratio(r.StreamdbEPS, r.PostgresEPS),
			num(r.GoBaselineEPS, "%.0f"), ratio(r.StreamdbEPS, r.GoBaselineEPS),
			num(r.FreshnessP50Ms, "%.0f"), num(r.FreshnessP99Ms, "%.0f"),
			num(r.PostgresFreshnessP50Ms, "%.0f"), num(r.PostgresFreshnessP99Ms, "%.0f"),
			num(r.PeakRSSMB, "%.0f"), numInt(r.StateBytes), numInt(r.ViewRows), mdEscape(check))
	}
	b.WriteString("\n## Reading the result\n\n")
	b.WriteString("SELECT * FROM the maintained view against the same query run ad hoc (the one-tick recomputation), both read to the end after the run, in ms.\n\n")
	b.WriteString("| query | view rows | SELECT * FROM view ms | ad hoc query ms |\n|---|--:|--:|--:|\n")
	for _, r := range results {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.Query, numInt(r.ViewRows), num(r.ViewReadMs, "%.1f"), num(r.RecomputeMs, "%.1f"))
	}
	writeModes(&b, results)
	b.WriteString("\n## Targets (issue 5)\n\n")
	writeTargets(&b, info, results)
	b.WriteString("\n## Targets (issue 31)\n\n")
	writeStateTargets(&b, results)
	b.WriteString("\n## How it was measured\n\n")
	b.WriteString(methodNotes(info))
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTargets lists each target with the queries that miss it.
func writeTargets(b *strings.Builder, info runInfo, results []result) {
	check := func(name string, applies func(result) bool, met func(result) (bool, bool)) {
		writeTarget(b, target{name, applies, met}, results)
	}
	all := func(result) bool { return true }
	check(fmt.Sprintf("every query ≥ 10× PostgreSQL's throughput (the target is stated at 1M events; this run used %d)", info.Events), all,
		func(r result) (bool, bool) {
			if r.StreamdbEPS == nil || r.PostgresEPS == nil {
				return false, false
			}
			return *r.StreamdbEPS >= 10**r.PostgresEPS, true
		})
	check("q0–q2 ≥ 0.3× the hand-written Go loop", func(r result) bool { return goBaselines[r.Query] != nil },
		func(r result) (bool, bool) {
			if r.StreamdbEPS == nil || r.GoBaselineEPS == nil {
				return false, false
			}
			return *r.StreamdbEPS >= 0.3**r.GoBaselineEPS, true
		})
	for _, limit := range []float64{1000, 100} {
		check(fmt.Sprintf("p99 freshness ≤ %.0f ms", limit), all, func(r result) (bool, bool) {
			if r.FreshnessP99Ms == nil {
				return false, false
			}
			return *r.FreshnessP99Ms <= limit, true
		})
	}
	check("view equals the one-tick recomputation", all, func(r result) (bool, bool) {
		return r.Check == "ok", r.Check != "" && !strings.HasPrefix(r.Check, notChecked)
	})
}

// A target is one line of a report's targets: what it asks, which
// queries it applies to, and whether a query meets it (known is false
// when the run did not measure it).
type target struct {
	name    string
	applies func(result) bool
	met     func(result) (ok, known bool)
}

// writeTarget writes t's line: met, or the queries that miss it or were
// not measured for it.
func writeTarget(b *strings.Builder, t target, results []result) {
	var miss, unknown []string
	n := 0
	for _, r := range results {
		if !t.applies(r) {
			continue
		}
		n++
		switch ok, known := t.met(r); {
		case !known:
			unknown = append(unknown, r.Query)
		case !ok:
			miss = append(miss, r.Query)
		}
	}
	status := "met"
	if len(miss)+len(unknown) > 0 {
		status = "NOT met"
	}
	fmt.Fprintf(b, "- %s: **%s**", t.name, status)
	if len(miss) > 0 {
		fmt.Fprintf(b, "; missed by %s", strings.Join(miss, ", "))
	}
	if len(unknown) > 0 {
		fmt.Fprintf(b, "; not measured for %s", strings.Join(unknown, ", "))
	}
	fmt.Fprintf(b, " (%d queries)\n", n)
}

// writeModes writes the table of the runs without persisted view state
// and with a source that is not stored, when there are any.
func writeModes(b *strings.Builder, results []result) {
	any := false
	for _, r := range results {
		any = any || r.RecomputedEPSPerCPU != nil || r.NotStoredEPSPerCPU != nil
	}
	if !any {
		return
	}
	b.WriteString("\n## Persisted view state, and sources that are not stored\n\n")
	b.WriteString("Events per CPU-second of the server: views persisting their state in every tick (the default) against views keeping it in memory only (--view-state recomputed), and the source WITH (STORED = false), against the Go loop (one core) and the Go loop appending its rows to Pebble.\n\n")
	b.WriteString("| query | persisted ev per CPU-s | recomputed ev per CPU-s | persisted ÷ recomputed | not stored ev/s | not stored ev per CPU-s | × PostgreSQL | × Go loop | durable Go loop ev per CPU-s | × durable Go loop | check |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n")
	for _, r := range results {
		check := strings.Trim(strings.Join([]string{prefixed("recomputed ", r.RecomputedCheck), prefixed("not stored ", r.NotStoredCheck)}, "; "), "; ")
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Query,
			num(r.StreamdbEPSPerCPU, "%.0f"), num(r.RecomputedEPSPerCPU, "%.0f"), ratio(r.StreamdbEPSPerCPU, r.RecomputedEPSPerCPU),
			num(r.NotStoredEPS, "%.0f"), num(r.NotStoredEPSPerCPU, "%.0f"), ratio(r.NotStoredEPS, r.PostgresEPS),
			ratio(r.NotStoredEPSPerCPU, r.GoBaselineEPS), num(r.GoDurableEPSPerCPU, "%.0f"), ratio(r.NotStoredEPSPerCPU, r.GoDurableEPSPerCPU),
			mdEscape(check))
	}
}

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

// writeStateTargets lists the targets of persisted view state and
// sources that are not stored.
func writeStateTargets(b *strings.Builder, results []result) {
	atLeast := func(a, b *float64, f float64) (bool, bool) {
		if a == nil || b == nil {
			return false, false
		}
		return *a >= f**b, true
	}
	all := func(result) bool { return true }
	for _, t := range []target{
		{"persisting view state per tick ≥ 0.8× the events per CPU-s of not persisting it", all,
			func(r result) (bool, bool) { return atLeast(r.StreamdbEPSPerCPU, r.RecomputedEPSPerCPU, 0.8) }},
		{"with the source not stored, q2 ≥ 0.3× the Go loop (per CPU-s)", func(r result) bool { return r.Query == "q2" },
			func(r result) (bool, bool) { return atLeast(r.NotStoredEPSPerCPU, r.GoBaselineEPS, 0.3) }},
		{"with the source not stored, every query ≥ 10× PostgreSQL", all,
			func(r result) (bool, bool) { return atLeast(r.NotStoredEPS, r.PostgresEPS, 10) }},
		{"with the source not stored, q0 and q1 ≥ 0.5× the Go loop appending its rows to Pebble (per CPU-s)",
			func(r result) bool { return r.Query == "q0" || r.Query == "q1" },
			func(r result) (bool, bool) { return atLeast(r.NotStoredEPSPerCPU, r.GoDurableEPSPerCPU, 0.5) }},
		{"views in the other modes hold what the persisted run's view holds", all,
			func(r result) (bool, bool) {
				return !strings.HasPrefix(r.RecomputedCheck, "MISMATCH") && !strings.HasPrefix(r.NotStoredCheck, "MISMATCH"),
					r.RecomputedCheck != "" || r.NotStoredCheck != ""
			}},
	} {
		writeTarget(b, t, results)
	}
}

// methodNotes explains the measurements; it is part of the report so the
// table never travels without it.
func methodNotes(info runInfo) string {
	return fmt.Sprintf(`- **streamdb ev/s**: a fresh bin/streamdb process and data directory per query; CREATE SOURCE … FROM LOAD GENERATOR NEXMARK (MAX EVENTS n, SEED s) without a rate (saturation), then CREATE MATERIALIZED VIEW; the clock runs from sending CREATE SOURCE until the source's progress relation shows all n events committed. Each tick commits a batch to the view and the progress relation together, so that is when the view reflects every event. streamdb refuses CREATE SOURCE in a transaction block, so the view is created just after the source starts and the few events committed in between reach it by hydration (still inside the timed span).
- **ev per CPU-s**: events divided by the server's user+system CPU time over the same span, from /proc/<pid>/stat (all cores counted).
- **check**: after the run, SELECT * FROM the view against the query run ad hoc (the one-tick recomputation over the same inputs), compared as multisets of the rows' text; "same rows as PostgreSQL" compares the view with PostgreSQL's materialized view after the last refresh.
- **freshness**: a second fresh run with the source paced at %s, the poller reading the progress relation every 5 ms. Event k is generated at t0 + k/rate (t0 taken before CREATE SOURCE is sent, so this is an upper bound) and visible when the first poll returning an offset above k returns; events generated before the view existed are not sampled. Reading the view itself in each poll would measure the read: a SELECT on a materialized view costs time proportional to its size today (see view rows and the notes).
- **PostgreSQL**: the same events (loadgen.NexmarkEvents, same seed) generated in the harness and COPYed in batches of %d events, one transaction per batch, then REFRESH MATERIALIZED VIEW; ev/s over the whole loop. Its freshness is the refresh end minus each event's place in its batch's generation, a lower bound (a real batch also waits to fill). When the per-query time budget runs out first, the rate is over the events loaded so far, shown in parentheses.
- **Go loop**: q0–q2 computed by hand over loadgen.NexmarkEvents into an in-memory slice; the fastest of three runs, one core. **Durable Go loop**: the same loop appending each result row (its value encoding, under a growing row id) to a fresh Pebble store in batches of 10,000 rows committed without sync, as a tick of a replayable source commits, then flushed; CPU-seconds of the harness process (Pebble's background work included) over the loop and the flush.
- **persisted / recomputed / not stored**: further saturation runs of a fresh server each, alternating when repeated, the best kept: recomputed passes --view-state recomputed (no view state in the store, as before it was persisted), not stored creates the source WITH (STORED = false); their views are compared with the persisted run's (same events, same seed) as multisets of rows.
- **peak RSS**: VmHWM of the server process. **state bytes**: read from a state_bytes column of SHOW MATERIALIZED VIEWS, empty while the server has none.
`, info.Freshness, info.PGBatch)
}

func num(v *float64, format string) string {
	if v == nil {
		return "–"
	}
	return fmt.Sprintf(format, *v)
}

func numInt(v *int64) string {
	if v == nil {
		return "–"
	}
	return fmt.Sprint(*v)
}

func ratio(a, b *float64) string {
	if a == nil || b == nil || *b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", *a / *b)
}

func mdEscape(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}
