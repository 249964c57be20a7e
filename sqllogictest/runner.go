package sqllogictest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// Mode is how queries run: where they stand (Batch), or as materialized
// views created before the data arrives (Incremental).
type Mode uint8

// The run modes.
const (
	Batch Mode = iota
	Incremental
)

// String returns the mode's flag value.
func (m Mode) String() string {
	if m == Incremental {
		return "incremental"
	}
	return "batch"
}

// ParseMode reads a mode's flag value.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "batch":
		return Batch, nil
	case "incremental":
		return Incremental, nil
	}
	return Batch, fmt.Errorf("unknown mode %q (want batch or incremental)", s)
}

// StreamdbEngine is the engine names of streamdb: its own and
// PostgreSQL's, whose dialect it speaks (see Record.Skipped).
const StreamdbEngine = "streamdb,postgresql"

// DefaultEngine is the engine name skipif and onlyif records are matched
// against.
const DefaultEngine = "postgresql"

// DefaultTimeout bounds one record when Config.Timeout is zero.
const DefaultTimeout = 2 * time.Minute

// Config says what to run against and how.
type Config struct {
	// URL is the PostgreSQL connection string of the server under test.
	URL  string
	Mode Mode
	// Engine is matched by skipif/onlyif; DefaultEngine when empty.
	Engine string
	// Rewrite replaces the expected results of .slt files with the actual
	// ones instead of failing; other files (the corpus) are never written.
	Rewrite bool
	// Expected lists the records known to fail; nil lists none.
	Expected *ExpectedFailures
	// RefreshViews refreshes each view before reading it in incremental
	// mode. PostgreSQL does not maintain materialized views, so this is how
	// the incremental machinery itself is checked against PostgreSQL; never
	// set it for streamdb, whose views must be up to date on their own.
	RefreshViews bool
	// Timeout bounds one record; DefaultTimeout when zero.
	Timeout time.Duration
	// Verbose reports every failure with its SQL, expected and actual
	// results.
	Verbose bool
	// Out receives the report; nil discards it.
	Out io.Writer
	// Restart, when set, is called when a file cannot connect, to restart
	// the server; it returns the URL to use from then on.
	Restart func(ctx context.Context) (string, error)
	// Workers are further servers, each as fresh as the one at URL, that
	// run files at the same time as it: one file per server at a time,
	// the largest files first. The report keeps the order of the paths.
	Workers []Worker
}

// Worker is a server that runs files: its URL and how to restart it.
type Worker struct {
	URL     string
	Restart func(ctx context.Context) (string, error)
}

func (c *Config) engine() string {
	if c.Engine == "" {
		return DefaultEngine
	}
	return c.Engine
}

func (c *Config) timeout() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return c.Timeout
}

// Summary is the outcome of RunFiles.
type Summary struct {
	Files []FileResult
	// Passed, Failed and Skipped count records. Failed counts only failures
	// that are not in the expected-failure list; those are in
	// ExpectedFailures.
	Passed, Failed, Skipped, ExpectedFailures int
	// Notes are entries of the expected-failure list that no longer hold.
	Notes []string
	// Views and Fallbacks count, in incremental mode, the queries read from
	// a view and those run in batch instead; FallbackReasons counts the
	// latter by reason.
	Views, Fallbacks int
	FallbackReasons  map[string]int
	Elapsed          time.Duration
}

// OK reports whether the run had no unexpected failure.
func (s *Summary) OK() bool { return s.Failed == 0 }

// FileResult is the outcome of one file.
type FileResult struct {
	Path                                      string
	Passed, Failed, Skipped, ExpectedFailures int
	Views, Fallbacks                          int
	FallbackReasons                           map[string]int
	// Rewritten counts the records whose results Config.Rewrite replaced.
	Rewritten int
	Elapsed   time.Duration
	// StatementTime, QueryTime and ViewTime split the time spent waiting
	// for the server: statement and simple records, query records (view
	// reads included), and creating views ahead of their queries.
	StatementTime, QueryTime, ViewTime time.Duration
	// Failures holds every failed record, listed ones included; without
	// Config.Verbose their SQL and results are dropped once reported.
	Failures []Failure
	Notes    []string
}

// Failure is one failed record.
type Failure struct {
	Path    string
	Line    int
	SQL     string
	Message string
	// Expected and Got are the result lines, when results were compared.
	Expected, Got []string
	// Listed is set when the expected-failure list covers the record.
	Listed bool
	// NotRun is set when the record could not run because the connection
	// was lost for good.
	NotRun bool
}

// RunFiles runs every sqllogictest file under paths (files, or directories
// searched for *.test and *.slt) against cfg.URL, one file after the other,
// writes the report to cfg.Out and returns the summary. The error is for
// problems that stop the run as a whole: unreadable paths, a canceled
// context, incremental mode in a build without cgo. Failing records are
// reported in the summary, not as an error.
func RunFiles(ctx context.Context, cfg Config, paths []string) (Summary, error) {
	sum := Summary{FallbackReasons: make(map[string]int)}
	if cfg.Mode == Incremental && !incrementalSupported {
		return sum, errors.New("incremental mode needs pg_query: build with cgo")
	}
	files, err := ExpandPaths(paths)
	if err != nil {
		return sum, err
	}
	out := cfg.Out
	if out == nil {
		out = io.Discard
	}
	start := time.Now()
	report := func(fr *FileResult) {
		writeFile(out, fr, cfg.Verbose)
		if !cfg.Verbose {
			fr.dropDetails()
		}
		sum.add(fr)
	}
	if len(cfg.Workers) == 0 {
		url := cfg.URL
		for _, path := range files {
			if ctx.Err() != nil {
				break
			}
			fr := runFile(ctx, &cfg, &url, path)
			report(&fr)
		}
	} else {
		runParallel(ctx, cfg, files, report)
	}
	sum.Elapsed = time.Since(start)
	writeSummary(out, &sum, cfg.Mode)
	return sum, ctx.Err()
}

// dropDetails forgets the SQL and results of the failures once they are
// reported, so a run with many failures does not hold a corpus in memory.
func (fr *FileResult) dropDetails() {
	for i := range fr.Failures {
		f := &fr.Failures[i]
		f.SQL, f.Expected, f.Got = "", nil, nil
	}
}

func (s *Summary) add(fr *FileResult) {
	s.Passed += fr.Passed
	s.Failed += fr.Failed
	s.Skipped += fr.Skipped
	s.ExpectedFailures += fr.ExpectedFailures
	s.Views += fr.Views
	s.Fallbacks += fr.Fallbacks
	for r, n := range fr.FallbackReasons {
		s.FallbackReasons[r] += n
	}
	s.Notes = append(s.Notes, fr.Notes...)
	s.Files = append(s.Files, *fr)
}
