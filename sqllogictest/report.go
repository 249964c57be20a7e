package sqllogictest

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// Limits that keep a report readable when a server fails a lot.
const (
	briefFailures = 10 // failures named per file without -v
	shownLines    = 40 // result lines shown per side with -v
)

// writeFile reports one file: without verbose its unexpected failures in
// one line each (at most briefFailures), with verbose every failure with its
// SQL and results; then the file's line and any notes about the
// expected-failure list.
func writeFile(w io.Writer, fr *FileResult, verbose bool) {
	shown, notRun := 0, 0
	for i := range fr.Failures {
		fl := &fr.Failures[i]
		switch {
		case fl.NotRun:
			if notRun++; notRun > 1 {
				continue
			}
		case !verbose && fl.Listed:
			continue
		}
		if !verbose {
			if shown++; shown > briefFailures {
				continue
			}
			fmt.Fprintf(w, "  FAIL %s: %s\n", location(fl), firstLine(fl.Message))
			continue
		}
		writeFailure(w, fl)
	}
	if shown > briefFailures {
		fmt.Fprintf(w, "  ... and %d more failures (use -v)\n", shown-briefFailures)
	}
	if notRun > 1 {
		fmt.Fprintf(w, "  ... and %d more records not run\n", notRun-1)
	}
	fmt.Fprintf(w, "%s: %d passed, %d failed, %d skipped (%s)%s\n",
		fr.Path, fr.Passed, fr.Failed, fr.Skipped, seconds(fr.Elapsed), fileExtras(fr, verbose))
	for _, n := range fr.Notes {
		fmt.Fprintf(w, "  NOTE %s\n", n)
	}
}

func fileExtras(fr *FileResult, verbose bool) string {
	var parts []string
	if verbose {
		part := fmt.Sprintf("statements %s, queries %s", seconds(fr.StatementTime), seconds(fr.QueryTime))
		if fr.ViewTime > 0 {
			part += ", creating views " + seconds(fr.ViewTime)
		}
		parts = append(parts, part)
	}
	if fr.ExpectedFailures > 0 {
		parts = append(parts, fmt.Sprintf("%d expected failures", fr.ExpectedFailures))
	}
	if fr.Views+fr.Fallbacks > 0 {
		parts = append(parts, fmt.Sprintf("%d views, %d fell back", fr.Views, fr.Fallbacks))
	}
	if fr.Rewritten > 0 {
		parts = append(parts, fmt.Sprintf("rewrote %d results", fr.Rewritten))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, "; ")
}

func location(fl *Failure) string {
	if fl.Line == 0 {
		return fl.Path
	}
	return fmt.Sprintf("%s:%d", fl.Path, fl.Line)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func writeFailure(w io.Writer, fl *Failure) {
	tag := "FAIL"
	if fl.Listed {
		tag = "FAIL (listed)"
	}
	fmt.Fprintf(w, "%s %s: %s\n", tag, location(fl), fl.Message)
	if fl.SQL != "" {
		fmt.Fprintf(w, "    %s\n", strings.ReplaceAll(fl.SQL, "\n", "\n    "))
	}
	if fl.Expected != nil || fl.Got != nil {
		writeLines(w, "expected", fl.Expected)
		writeLines(w, "got", fl.Got)
	}
}

func writeLines(w io.Writer, title string, lines []string) {
	fmt.Fprintf(w, "  %s (%d lines):\n", title, len(lines))
	for i, l := range lines {
		if i == shownLines {
			fmt.Fprintf(w, "    ... %d more\n", len(lines)-shownLines)
			break
		}
		fmt.Fprintf(w, "    %s\n", l)
	}
}

// writeSummary writes the closing lines; the last one is exactly
// "N passed, M failed, K skipped".
func writeSummary(w io.Writer, s *Summary, mode Mode) {
	if s.ExpectedFailures > 0 {
		fmt.Fprintf(w, "%d records failed as listed in the expected-failure list\n", s.ExpectedFailures)
	}
	if len(s.Notes) > 0 {
		fmt.Fprintf(w, "%d notes about the expected-failure list (see NOTE lines)\n", len(s.Notes))
	}
	if mode == Incremental {
		fmt.Fprintf(w, "%d queries ran as views, %d fell back\n", s.Views, s.Fallbacks)
		reasons := make([]string, 0, len(s.FallbackReasons))
		for r := range s.FallbackReasons {
			reasons = append(reasons, r)
		}
		sort.Slice(reasons, func(i, j int) bool {
			a, b := s.FallbackReasons[reasons[i]], s.FallbackReasons[reasons[j]]
			return a > b || a == b && reasons[i] < reasons[j]
		})
		for _, r := range reasons {
			fmt.Fprintf(w, "  %7d  %s\n", s.FallbackReasons[r], r)
		}
	}
	records := s.Passed + s.Failed + s.ExpectedFailures
	rate := 0.0
	if s.Elapsed > 0 {
		rate = float64(records) / s.Elapsed.Seconds()
	}
	fmt.Fprintf(w, "%d files in %s, %.0f records/s\n", len(s.Files), seconds(s.Elapsed), rate)
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", s.Passed, s.Failed, s.Skipped)
}

func seconds(d time.Duration) string {
	return fmt.Sprintf("%.1fs", d.Seconds())
}
