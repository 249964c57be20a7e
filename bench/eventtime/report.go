package main

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// report renders the runs as Markdown.
func report(cfg config, runs []run) string {
	var b strings.Builder
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(&b, "# Event time over NEXMARK bids: windows and a temporal filter, with and without cleanup\n\n")
	fmt.Fprintf(&b, "%d NEXMARK events per run (%d bids; event times advance 0.1 ms per event), committed in batches of %d with the engine's clock at each batch's last event time. Run %s; load average %s at the end. `go run ./bench/eventtime` (doc.go says how each number is measured).\n\n",
		cfg.Events, runs[0].Rows, cfg.Batch, time.Now().UTC().Format("2006-01-02 15:04 UTC"), strings.Join(strings.Fields(string(load))[:3], " "))
	base := runs[0]
	perCPU := func(r run) float64 { return float64(r.Events) / r.CPUSeconds }
	fmt.Fprintf(&b, "The table alone (no view): %.0f events/s, %.0f events per CPU-second.\n\n", float64(base.Events)/base.Seconds, perCPU(base))
	b.WriteString("| query | variant | events/s | events per CPU-s | view maintenance: events per CPU-s | view rows | state bytes at 1/10 → end | working state at 1/10 → end | agree |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|--:|--:|---|\n")
	for i := 1; i+1 < len(runs); i += 2 {
		with, without := runs[i], runs[i+1]
		agree := "yes"
		if with.Signature != without.Signature {
			agree = "NO: " + with.Signature + " / " + without.Signature
		}
		for _, r := range []run{with, without} {
			maint := "–"
			if extra := r.CPUSeconds - base.CPUSeconds; extra > 0 {
				maint = fmt.Sprintf("%.0f", float64(r.Events)/extra)
			}
			first, last := r.Samples[0], r.Samples[len(r.Samples)-1]
			fmt.Fprintf(&b, "| %s | %s | %.0f | %.0f | %s | %d | %s → %s | %s → %s | %s |\n", r.Query, r.Variant,
				float64(r.Events)/r.Seconds, perCPU(r), maint, r.ViewRows,
				mib(first.StateBytes), mib(last.StateBytes), mib(first.WorkingBytes), mib(last.WorkingBytes), agree)
		}
	}
	b.WriteString("\nState sampled every million events (MiB; working state is state_bytes minus the view's own rows):\n\n")
	b.WriteString("| query | variant | " + sampleHeader(runs[1].Samples) + "\n|---|---|" + strings.Repeat("--:|", len(runs[1].Samples)) + "\n")
	for _, r := range runs[1:] {
		var cells, work []string
		for _, s := range r.Samples {
			cells = append(cells, mib(s.StateBytes))
			work = append(work, mib(s.WorkingBytes))
		}
		fmt.Fprintf(&b, "| %s | %s: state | %s |\n", r.Query, r.Variant, strings.Join(cells, " | "))
		fmt.Fprintf(&b, "| %s | %s: working | %s |\n", r.Query, r.Variant, strings.Join(work, " | "))
	}
	b.WriteString("\nThe queries, each as a materialized view over `bid`:\n\n")
	for i := 1; i+1 < len(runs); i += 2 {
		fmt.Fprintf(&b, "- %s, with cleanup: `%s`\n- %s, without: `%s`\n", runs[i].Query, runs[i].View, runs[i+1].Query, runs[i+1].View)
	}
	b.WriteString("\nWith cleanup, `bid` has `WATERMARK FOR date_time AS date_time - INTERVAL '2 seconds'` for the windows; the temporal filter needs none. " +
		"A windowed view keeps the windows it has emitted, watermark or not: they are its result, and they grow in both variants. " +
		"What the watermark changes is the working state: without it every window's group stays in the aggregate for good; with it a closed window's group is forgotten, and EMIT ON WINDOW CLOSE holds only the open windows. " +
		"The temporal filter keeps the last minute of bids (about 550,000 rows) and the view without it every bid. " +
		"Events per CPU-second divide by the whole process's CPU time (generator, table writes to Pebble and view maintenance); the maintenance column subtracts the run of the table alone. " +
		"`agree` compares the rows the view with cleanup holds with the same rows of the view without (its closed windows, its last minute): their count and two sums.\n")
	return b.String()
}

func sampleHeader(ss []sample) string {
	var h []string
	for _, s := range ss {
		h = append(h, strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", float64(s.Events)/1e6), "0"), ".")+"M")
	}
	return strings.Join(h, " | ") + " |"
}

func mib(n int64) string { return fmt.Sprintf("%.1f", float64(n)/(1<<20)) }
