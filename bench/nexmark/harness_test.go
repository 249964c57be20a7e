package main

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/bench/internal/progress"
	"github.com/streamdb/streamdb/internal/pgtest"
)

// TestHarnessSmall runs the whole measurement of two queries on a few
// thousand events against the binary make build produced, and PostgreSQL
// when installed, then renders every output.
func TestHarnessSmall(t *testing.T) {
	bin, err := filepath.Abs("../../bin/streamdb")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skip("bin/streamdb not built; run make build")
	}
	var pgURL string
	if pgtest.Available() {
		pgURL = pgtest.Start(t).URL
	}
	all, err := loadQueries()
	if err != nil {
		t.Fatal(err)
	}
	qs, err := selectQueries(all, "q0,q3")
	if err != nil {
		t.Fatal(err)
	}
	cfg := config{Streamdb: bin, Events: 3000, Seed: 1, FreshnessFraction: 0.5, FreshnessSeconds: 1,
		PGBatch: 1000, PGBudget: time.Minute, Timeout: time.Minute}
	var log bytes.Buffer
	bar := progress.New(&log, 2*3)
	var results []result
	for i, q := range qs {
		r := runQuery(context.Background(), cfg, pgURL, q, bar, i*3)
		if r.Error != "" || r.Check != "ok" {
			t.Fatalf("%s: error %q, check %q", q.Name, r.Error, r.Check)
		}
		if r.StreamdbEPS == nil || r.FreshnessP99Ms == nil || r.PeakRSSMB == nil || *r.PeakRSSMB <= 0 {
			t.Fatalf("%s: missing measurements: %+v", q.Name, r)
		}
		if pgURL != "" && r.PostgresCheck != "same rows as PostgreSQL" {
			t.Fatalf("%s: %s", q.Name, r.PostgresCheck)
		}
		results = append(results, r)
	}
	if results[0].GoBaselineEPS == nil || results[1].GoBaselineEPS != nil {
		t.Fatal("the Go baseline runs for q0 and only for q0-q2")
	}

	var js, md, img bytes.Buffer
	if err := writeJSON(&js, results); err != nil {
		t.Fatal(err)
	}
	var decoded []map[string]any
	if err := json.Unmarshal(js.Bytes(), &decoded); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"query", "streamdb_eps", "postgres_eps", "go_baseline_eps", "freshness_p99_ms", "peak_rss_mb", "state_bytes"} {
		if _, ok := decoded[0][key]; !ok {
			t.Errorf("latest.json lacks %q", key)
		}
	}
	if err := writeMarkdown(&md, runInfo{Events: cfg.Events}, results); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| q3 |") {
		t.Errorf("latest.md has no q3 row:\n%s", md.String())
	}
	if err := writeChart(&img, "test", results); err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(&img); err != nil {
		t.Fatal(err)
	}
}
