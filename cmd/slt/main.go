// Command slt runs sqllogictest files against streamdb or any other server
// that speaks the PostgreSQL wire protocol.
//
//	slt [--mode batch|incremental] [--url postgres://...] [--rewrite]
//	    [--expected-failures FILE] [-v] PATH...
//
// PATHs are files or directories, searched recursively for *.test and *.slt.
// Without --url, slt starts the streamdb binary found next to its own
// executable (or --streamdb PATH) on a free loopback port with a fresh data
// directory, restarts it on a new one if it dies, and stops it at the end;
// with -j N (default: the number of CPUs) it starts N servers and runs N
// files at a time, reporting them in order.
// Flags may follow the paths. To check incremental mode against PostgreSQL,
// whose materialized views are not maintained, add --refresh-views.
//
// The report has one line per file and ends with exactly
// "N passed, M failed, K skipped"; the exit status is 1 when a record failed
// that the expected-failure list does not cover, 2 on a usage or setup error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/streamdb/streamdb/sqllogictest"
)

// options are the command line's settings.
type options struct {
	mode         string
	url          string
	streamdb     string
	rewrite      bool
	expected     string
	verbose      bool
	timeout      time.Duration
	refreshViews bool
	engine       string
	jobs         int
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	opts, paths, err := parseArgs(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "slt:", err)
		return 2
	}
	cfg, err := opts.config(stdout)
	if err != nil {
		fmt.Fprintln(stderr, "slt:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if cfg.URL == "" {
		bin, err := opts.streamdbPath()
		if err != nil {
			fmt.Fprintln(stderr, "slt:", err)
			return 2
		}
		for i := range max(opts.jobs, 1) {
			srv, err := sqllogictest.StartServer(ctx, bin, stderr)
			if err != nil {
				fmt.Fprintln(stderr, "slt:", err)
				return 2
			}
			defer srv.Stop()
			if i == 0 {
				cfg.URL, cfg.Restart = srv.URL(), srv.Restart
			} else {
				cfg.Workers = append(cfg.Workers, sqllogictest.Worker{URL: srv.URL(), Restart: srv.Restart})
			}
		}
	}
	sum, err := sqllogictest.RunFiles(ctx, cfg, paths)
	if err != nil {
		fmt.Fprintln(stderr, "slt:", err)
		return 2
	}
	if !sum.OK() {
		return 1
	}
	return 0
}

// parseArgs parses flags that may come before, between or after paths.
func parseArgs(args []string, stderr io.Writer) (*options, []string, error) {
	o := &options{}
	fs := flag.NewFlagSet("slt", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.mode, "mode", "batch", "batch (run queries in place) or incremental (read them from materialized views created before the data)")
	fs.StringVar(&o.url, "url", "", "PostgreSQL connection string of the server to test; empty starts streamdb")
	fs.StringVar(&o.streamdb, "streamdb", "", "streamdb binary to start without --url (default: streamdb next to slt)")
	fs.BoolVar(&o.rewrite, "rewrite", false, "rewrite the expected results of .slt files in place (never .test corpus files)")
	fs.StringVar(&o.expected, "expected-failures", "auto", "expected-failure list; auto finds sqllogictest/expected-failures.txt of this repository, none uses no list")
	fs.BoolVar(&o.verbose, "v", false, "report every failure with its SQL, expected and actual results")
	fs.DurationVar(&o.timeout, "timeout", sqllogictest.DefaultTimeout, "time limit of one record")
	fs.BoolVar(&o.refreshViews, "refresh-views", false, "refresh each view before reading it in incremental mode (for PostgreSQL, which does not maintain views)")
	fs.StringVar(&o.engine, "engine", "", "engine names for skipif/onlyif, separated by commas (default: "+sqllogictest.StreamdbEngine+" without --url, "+sqllogictest.DefaultEngine+" with it)")
	fs.IntVar(&o.jobs, "j", runtime.NumCPU(), "without --url: how many streamdb servers run files at the same time")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: slt [--mode batch|incremental] [--url postgres://...] [--rewrite] [--expected-failures FILE] [-v] PATH...")
		fs.PrintDefaults()
	}
	var paths []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		paths, args = append(paths, args[0]), args[1:]
	}
	if len(paths) == 0 {
		fs.Usage()
		return nil, nil, errors.New("no paths given")
	}
	return o, paths, nil
}

func (o *options) config(out io.Writer) (sqllogictest.Config, error) {
	mode, err := sqllogictest.ParseMode(o.mode)
	if err != nil {
		return sqllogictest.Config{}, err
	}
	engine := o.engine
	if engine == "" {
		engine = sqllogictest.DefaultEngine
		if o.url == "" {
			engine = sqllogictest.StreamdbEngine
		}
	}
	cfg := sqllogictest.Config{
		URL:          o.url,
		Mode:         mode,
		Engine:       engine,
		Rewrite:      o.rewrite,
		RefreshViews: o.refreshViews,
		Timeout:      o.timeout,
		Verbose:      o.verbose,
		Out:          out,
	}
	if path := o.expectedPath(); path != "" {
		if cfg.Expected, err = sqllogictest.LoadExpectedFailures(path); err != nil {
			return cfg, err
		}
		fmt.Fprintf(out, "expected failures from %s\n", path)
	}
	return cfg, nil
}

// expectedPath resolves --expected-failures: "auto" looks for the list
// beside the binary's repository (bin/../sqllogictest) and then in the
// working directory.
func (o *options) expectedPath() string {
	switch o.expected {
	case "none", "":
		return ""
	case "auto":
	default:
		return o.expected
	}
	var candidates []string
	if exe, err := os.Executable(); err == nil {
		candidates = append(candidates, filepath.Join(filepath.Dir(exe), "..", "sqllogictest", "expected-failures.txt"))
	}
	candidates = append(candidates, filepath.Join("sqllogictest", "expected-failures.txt"))
	for _, c := range candidates {
		if _, err := os.Stat(c); err == nil {
			return filepath.Clean(c)
		}
	}
	return ""
}

// streamdbPath finds the streamdb binary to start.
func (o *options) streamdbPath() (string, error) {
	if o.streamdb != "" {
		return o.streamdb, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(filepath.Dir(exe), "streamdb")
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("no streamdb binary next to slt (%s): build it with make build, or pass --url or --streamdb", bin)
	}
	return bin, nil
}
