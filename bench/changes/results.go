package main

import (
	"fmt"
	"strings"
	"time"
)

// results is everything a run measured.
type results struct {
	Started    time.Time  `json:"started"`
	LoadBefore string     `json:"load_average_before"`
	LoadAfter  string     `json:"load_average_after"`
	Latency    latency    `json:"latency"`
	FanOut     fanOut     `json:"fan_out"`
	Sink       sinkResult `json:"sink"`
}

func metText(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// markdown renders the results as bench/results/changes.md.
func (r *results) markdown(cfg config) string {
	var b strings.Builder
	b.WriteString("# Getting changes out: SUBSCRIBE and sinks\n\n")
	fmt.Fprintf(&b, "Run %s by `go run ./bench/changes` (see bench/changes/doc.go for what is timed); load average %s before and %s after, on a machine shared with other work.\n\n",
		r.Started.Format("2006-01-02 15:04 UTC"), r.LoadBefore, r.LoadAfter)
	b.WriteString("| measure | result | target | |\n|---|---|---|---|\n")
	l := r.Latency
	fmt.Fprintf(&b, "| INSERT sent → row received by a SUBSCRIBE client (%d changes) | p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms | p99 ≤ 20 ms | %s |\n",
		l.Changes, l.SentMs["p50"], l.SentMs["p90"], l.SentMs["p99"], l.SentMs["max"], metText(l.Met))
	fmt.Fprintf(&b, "| commit acknowledged → row received | p50 %.2f ms, p99 %.2f ms | | |\n", l.AckMs["p50"], l.AckMs["p99"])
	f := r.FanOut
	fmt.Fprintf(&b, "| view ticks/s, %d writers, %d subscribers vs none (medians of %d alternating runs) | %.0f vs %.0f | ≥ 0.5× | %.2f× %s |\n",
		f.Writers, f.Subscribers, f.Rounds, f.With, f.Without, f.Ratio, metText(f.Met))
	s := r.Sink
	fmt.Fprintf(&b, "| CREATE SINK (UPSERT, JSON) records/s vs a bare transactional producer, %d records | %.0f vs %.0f | ≥ 0.5× | %.2f× %s |\n",
		s.Records, s.SinkPerSec, s.BarePerSec, s.Ratio, metText(s.Met))
	fmt.Fprintf(&b, "| the same per CPU-second (server, broker and consumer) | %.0f vs %.0f | | %.2f× |\n", s.SinkPerCPUSec, s.BarePerCPUSec, s.CPURatio)
	fmt.Fprintf(&b, "\nThe sink's rate is its catch-up after a broker outage: with the broker stopped, %d rows were inserted in %d-row INSERT … SELECT statements (%.1f s), which waited in the sink's history; once the broker was back, a read_committed consumer timed the sink's transactions after its first (%d reads of the topic over %.2f s). The bare producer writes the same records, read back from the sink's topic, in transactions of the same average size (%d records) to a topic of the same three partitions on the same in-process kfake broker. The fan-out runs last %.0f s each; %d rows reached the %d subscribers in the last. Every run, with the server's and the harness's CPU seconds, is in changes.json.\n",
		s.Records, cfg.SinkBatch, s.InsertSeconds, s.Transactions, s.SinkSeconds, s.BareTxnRecords, f.Seconds, lastRows(f), f.Subscribers)
	return b.String()
}

func lastRows(f fanOut) int64 {
	if len(f.Runs) == 0 {
		return 0
	}
	return f.Runs[len(f.Runs)-1].RowsReceived
}
