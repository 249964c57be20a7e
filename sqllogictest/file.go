package sqllogictest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
)

// fileRun is the state of running one file.
type fileRun struct {
	cfg  *Config
	url  *string // shared across files: Restart may change it
	path string

	sess   *session
	simple bool // "mode simple" in effect
	lost   error

	threshold int
	rowwise   bool
	halted    bool
	labels    map[string]labelSeen
	rs        resultSet
	objs      objects
	exp       *fileExpectations
	plan      *incrementalPlan // nil in batch mode
	rewrites  []rewrite
	res       FileResult
}

// labelSeen is the first passing result of a label in a file.
type labelSeen struct {
	hash string
	line int
}

// runFile runs one file and returns its result; problems with the file
// itself (unreadable, unparsable input) are reported as failures.
func runFile(ctx context.Context, cfg *Config, url *string, path string) FileResult {
	start := time.Now()
	f := &fileRun{
		cfg:    cfg,
		url:    url,
		path:   path,
		labels: make(map[string]labelSeen),
		exp:    cfg.Expected.forFile(path, cfg.Mode),
		res:    FileResult{Path: path, FallbackReasons: make(map[string]int)},
	}
	if err := f.run(ctx); err != nil {
		f.res.Failed++
		f.res.Failures = append(f.res.Failures, Failure{Path: path, Message: err.Error()})
	}
	f.finish(ctx)
	f.res.Elapsed = time.Since(start)
	return f.res
}

func (f *fileRun) run(ctx context.Context) error {
	file, err := os.Open(f.path)
	if err != nil {
		return err
	}
	defer file.Close()
	p := NewParser(file)
	if f.cfg.Mode == Batch {
		for i := 0; ; i++ {
			rec, err := p.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			f.step(ctx, i, rec)
		}
	}
	var recs []*Record
	for {
		rec, err := p.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		recs = append(recs, rec)
	}
	f.plan = planViews(recs, f.cfg.engine())
	for i, rec := range recs {
		f.step(ctx, i, rec)
	}
	return nil
}

// step runs record i.
func (f *fileRun) step(ctx context.Context, i int, rec *Record) {
	if f.plan != nil && len(f.plan.before[i]) > 0 && ctx.Err() == nil {
		start := time.Now()
		f.createViews(ctx, i)
		f.res.ViewTime += time.Since(start)
	}
	if f.halted || rec.Skipped(f.cfg.engine()) {
		if rec.Kind.Runnable() {
			f.res.Skipped++
			f.exp.note(rec.Line, 's')
		}
		return
	}
	if ctx.Err() != nil {
		return
	}
	switch rec.Kind {
	case KindHashThreshold:
		f.threshold = rec.Threshold
		return
	case KindHalt:
		f.halted = true
		return
	case KindMode:
		switch rec.Word {
		case "standard", "cockroach":
			f.rowwise = rec.Word == "cockroach"
		default:
			f.simple = rec.Word == "simple"
			if f.sess != nil {
				f.sess.simple = f.simple
			}
		}
		return
	case KindSleep:
		select {
		case <-ctx.Done():
		case <-time.After(rec.Duration):
		}
		return
	case KindInvalid:
		f.done(rec, &Failure{Message: rec.Problem})
		return
	}
	if err := f.ensureSession(ctx); err != nil {
		f.done(rec, &Failure{Message: "not run: " + err.Error(), NotRun: true})
		return
	}
	var fail *Failure
	start := time.Now()
	switch rec.Kind {
	case KindStatement:
		fail = f.statement(ctx, rec)
		f.res.StatementTime += time.Since(start)
	case KindQuery:
		fail = f.query(ctx, i, rec)
		f.res.QueryTime += time.Since(start)
	case KindSimple:
		fail = f.simpleRecord(ctx, rec)
		f.res.StatementTime += time.Since(start)
	}
	f.done(rec, fail)
}

// ensureSession connects, or reconnects after the connection broke. When
// connecting fails and Config.Restart is set, the server is restarted. A
// file whose server died under it does not go on against the fresh, empty
// server: the rest of it is not run, and later files use the new server.
func (f *fileRun) ensureSession(ctx context.Context) error {
	if f.lost != nil {
		return f.lost
	}
	if f.sess != nil && !f.sess.broken() {
		return nil
	}
	s, err := connect(ctx, *f.url)
	if err != nil && f.cfg.Restart != nil && ctx.Err() == nil {
		url, rerr := f.cfg.Restart(ctx)
		switch {
		case rerr != nil:
			err = fmt.Errorf("%v; restarting the server failed: %w", err, rerr)
		case f.sess != nil:
			*f.url = url
			f.lost = fmt.Errorf("the server died during this file (%v) and was restarted", err)
			return f.lost
		default:
			*f.url = url
			s, err = connect(ctx, url)
		}
	}
	if err != nil {
		f.lost = fmt.Errorf("connection lost: %w", err)
		return f.lost
	}
	s.simple = f.simple
	f.sess = s
	return nil
}

func (f *fileRun) recordContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, f.cfg.timeout())
}

// failure describes err from running a record, noting a timeout.
func (f *fileRun) failure(ctx context.Context, what string, err error) *Failure {
	msg := what + ": " + errorText(err)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		msg += fmt.Sprintf(" (timed out after %v)", f.cfg.timeout())
	}
	return &Failure{Message: msg}
}

func (f *fileRun) statement(ctx context.Context, rec *Record) *Failure {
	d := sniffDDL(rec.SQL)
	f.objs.beforeStatement(ctx, f.sess, d)
	rctx, cancel := f.recordContext(ctx)
	defer cancel()
	tag, err := f.sess.exec(rctx, rec.SQL)
	if err == nil {
		f.objs.afterStatement(d)
	}
	if rec.ExpectError {
		return checkError(rec, err)
	}
	if err != nil {
		return f.failure(rctx, "statement failed", err)
	}
	if rec.Count >= 0 && tag.RowsAffected() != rec.Count {
		return &Failure{Message: fmt.Sprintf("statement affected %d rows, expected %d (%s)", tag.RowsAffected(), rec.Count, tag)}
	}
	return nil
}

// checkError checks an error a record expects.
func checkError(rec *Record, err error) *Failure {
	if err == nil {
		return &Failure{Message: "expected an error, but it succeeded"}
	}
	code := sqlState(err)
	if rec.ErrorCode != "" && code != rec.ErrorCode {
		return &Failure{Message: fmt.Sprintf("expected SQLSTATE %s, got %s", rec.ErrorCode, errorText(err))}
	}
	if rec.ErrorPattern != "" {
		re, cerr := regexp.Compile(rec.ErrorPattern)
		if cerr != nil {
			return &Failure{Message: "bad error pattern: " + cerr.Error()}
		}
		if !re.MatchString(errorMessage(err)) {
			return &Failure{Message: fmt.Sprintf("error %q does not match %q", errorText(err), rec.ErrorPattern)}
		}
	}
	if code == "" {
		return &Failure{Message: "expected a server error, got " + err.Error()}
	}
	return nil
}

func (f *fileRun) query(ctx context.Context, i int, rec *Record) *Failure {
	rctx, cancel := f.recordContext(ctx)
	defer cancel()
	if rec.ExpectError {
		f.countFallback(i)
		return checkError(rec, f.sess.query(rctx, rec.SQL, rec.Types, &f.rs))
	}
	var err error
	var view *viewPlan
	if f.plan != nil {
		view = f.plan.views[i]
		if view != nil && view.fallback == "" {
			if view.err != nil {
				return &Failure{Message: "creating the view failed: " + errorText(view.err) + "\n" + view.create}
			}
			f.res.Views++
			err = f.readView(rctx, view, rec)
		} else {
			f.countFallback(i)
			view = nil
		}
	}
	if view == nil {
		err = f.sess.query(rctx, rec.SQL, rec.Types, &f.rs)
	}
	if err != nil {
		return f.failure(rctx, "query failed", err)
	}
	f.rs.sort(rec.Sort)
	if !f.rs.matches(rec.Expected, f.rowwise) {
		if f.rewriting() {
			f.rewrite(rec, f.rs.lines(f.threshold, f.rowwise))
			return nil
		}
		fail := &Failure{Message: "wrong result", Expected: rec.Expected, Got: f.gotLines(rec.Expected)}
		if view != nil {
			fail.Message += fmt.Sprintf(" (read from %s)", view.name)
		}
		return fail
	}
	if rec.Label != "" {
		h := f.rs.hash()
		seen, ok := f.labels[rec.Label]
		if !ok {
			f.labels[rec.Label] = labelSeen{hash: h, line: rec.Line}
		} else if seen.hash != h {
			return &Failure{Message: fmt.Sprintf("result differs from label %s first seen at line %d: %s, then %s", rec.Label, seen.line, seen.hash, h)}
		}
	}
	return nil
}

// gotLines renders the actual result for a failure report, with its hash
// too when the expected result is a hash.
func (f *fileRun) gotLines(expected []string) []string {
	got := f.rs.lines(0, f.rowwise)
	if len(expected) == 1 && isHashLine(expected[0]) {
		got = append([]string{f.rs.hash()}, got...)
	}
	return got
}

func (f *fileRun) simpleRecord(ctx context.Context, rec *Record) *Failure {
	stmts := splitStatements(rec.SQL)
	ddls := make([]ddl, len(stmts))
	for i, s := range stmts {
		ddls[i] = sniffDDL(s)
		f.objs.beforeStatement(ctx, f.sess, ddls[i])
	}
	rctx, cancel := f.recordContext(ctx)
	defer cancel()
	out, ok, err := f.sess.simpleOutput(rctx, rec.SQL)
	if err != nil {
		return f.failure(rctx, "simple query failed", err)
	}
	if ok {
		for _, d := range ddls {
			f.objs.afterStatement(d)
		}
	}
	if slices.Equal(out, rec.Expected) {
		return nil
	}
	if f.rewriting() {
		f.rewrite(rec, out)
		return nil
	}
	return &Failure{Message: "wrong output", Expected: rec.Expected, Got: out}
}

// done accounts for a finished runnable record.
func (f *fileRun) done(rec *Record, fail *Failure) {
	if fail == nil {
		f.res.Passed++
		f.exp.note(rec.Line, 'p')
		return
	}
	fail.Path, fail.Line = f.path, rec.Line
	if fail.SQL == "" {
		fail.SQL = rec.SQL
	}
	fail.Listed = f.exp.note(rec.Line, 'f')
	if fail.Listed {
		f.res.ExpectedFailures++
	} else {
		f.res.Failed++
	}
	f.res.Failures = append(f.res.Failures, *fail)
}

// finish drops what the file left behind, writes rewrites and collects the
// notes about the expected-failure list.
func (f *fileRun) finish(ctx context.Context) {
	if f.sess != nil && !f.sess.broken() {
		cctx := context.WithoutCancel(ctx)
		f.dropViews(cctx)
		f.objs.dropAll(cctx, f.sess)
	}
	if f.sess != nil {
		f.sess.close()
	}
	if len(f.rewrites) > 0 {
		if err := applyRewrites(f.path, f.rewrites); err != nil {
			f.res.Failed++
			f.res.Failures = append(f.res.Failures, Failure{Path: f.path, Message: "rewrite: " + err.Error()})
		} else {
			f.res.Rewritten = len(f.rewrites)
		}
	}
	f.res.Notes = f.exp.notes(f.path, f.res.Failed+f.res.ExpectedFailures)
}

func (f *fileRun) rewriting() bool {
	return f.cfg.Rewrite && strings.HasSuffix(f.path, ".slt")
}

func (f *fileRun) rewrite(rec *Record, lines []string) {
	f.rewrites = append(f.rewrites, rewrite{rec: rec, lines: lines})
}
