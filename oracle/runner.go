package oracle

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// Target is the streamdb under test, reached over the wire.
type Target interface {
	// URL is a postgres:// connection string.
	URL() string
	// Restart stops the server and starts it again on the same data
	// directory; URL may change.
	Restart(ctx context.Context) error
}

// RunOptions configure Run.
type RunOptions struct {
	// Postgres is the URL of a PostgreSQL 15 database that runs the same
	// statements as a third opinion; empty for none. Each run works in a
	// schema of its own, dropped at the end.
	Postgres string
	// Only restricts the run to the named views.
	Only []string
	// FailFast ends the run at the first failure.
	FailFast bool
	// Timeout bounds each statement (default one minute).
	Timeout time.Duration
}

// Failure kinds. A failure is the engine disagreeing with itself or
// breaking: a view whose contents differ from its query run ad hoc, a
// crash, a hang.
const (
	KindRows     = "rows"     // the view and the query return different rows
	KindError    = "error"    // one fails and the other does not, or with another SQLSTATE
	KindTypes    = "types"    // the view's column types differ from the query's
	KindSetup    = "setup"    // a CREATE TABLE failed
	KindCrash    = "crash"    // the connection was lost or a statement hung
	KindInternal = "internal" // a statement failed with XX000 (internal_error), which only a bug raises
)

// Failure is one failure of a run.
type Failure struct {
	Kind string
	// View is the view that failed, "" for failures of the run as a whole.
	View string
	// Step is the index of the step after which the check failed; -1 for
	// the check right after the views were created.
	Step   int
	Detail string
}

func (f Failure) String() string {
	where := stepName(f.Step)
	if f.View == "" {
		return fmt.Sprintf("%s %s: %s", f.Kind, where, f.Detail)
	}
	return fmt.Sprintf("%s: view %s %s: %s", f.Kind, f.View, where, f.Detail)
}

// Outcome is what a run found.
type Outcome struct {
	// Views is the number of views created.
	Views int
	// Unsupported counts view creations refused with 0A000, by message:
	// features not implemented yet, never failures.
	Unsupported map[string]int
	// Rejected lists view creations refused with another error, with
	// PostgreSQL's verdict on the query when it ran.
	Rejected []string
	// Checks is the number of view-against-query comparisons made.
	Checks   int
	Failures []Failure
	// Disagreements lists where PostgreSQL disagreed with streamdb: a
	// report, not a failure (PostgreSQL differs in places by design).
	Disagreements []string
	// Scales lists (a few) results that differ from PostgreSQL's only in
	// the scale of numbers: a formatting bug, or numerics that are equal
	// and printed differently meeting DISTINCT or GROUP BY in another
	// order (see normalizeScale).
	Scales []string
	// PostgresSlow counts views PostgreSQL stopped being asked about
	// because a query exceeded its statement timeout: it runs correlated
	// subqueries as nested loops, and a few generated views would take it
	// seconds per check.
	PostgresSlow int
	// Time is the time spent checking each view (streamdb and PostgreSQL
	// together), to find the views that make a run slow.
	Time map[string]time.Duration
}

// internalError is XX000: an internal error reachable from SQL is a bug,
// whatever the statement, and fails the run.
const internalError = "XX000"

// postgresTimeout bounds each statement on PostgreSQL.
const postgresTimeout = "250ms"

// postgresBudget bounds the time PostgreSQL may spend on one view over a
// run; past it the view is counted as slow and no longer asked about.
const postgresBudget = 1500 * time.Millisecond

// schemaSeq numbers the PostgreSQL schemas of concurrent runs.
var schemaSeq atomic.Int64

// Run executes a scenario against target: it creates the tables and the
// views, then after the views are created, after every tick and after
// every restart compares each view with its query run ad hoc, and with
// PostgreSQL's answer when one is configured. The error return is for
// problems outside the engine under test (PostgreSQL unreachable, a
// restart that fails).
func Run(ctx context.Context, sc *Scenario, target Target, opts RunOptions) (*Outcome, error) {
	if opts.Timeout == 0 {
		opts.Timeout = time.Minute
	}
	r := &runner{sc: sc, target: target, opts: opts, out: &Outcome{Unsupported: map[string]int{}, Time: map[string]time.Duration{}},
		failed: map[string]bool{}, pgReported: map[string]bool{}, pgTime: map[string]time.Duration{}}
	var err error
	if r.db, err = dial(ctx, target.URL(), opts.Timeout); err != nil {
		return nil, err
	}
	defer func() { r.db.close() }()
	if opts.Postgres != "" {
		if err := r.openPostgres(ctx); err != nil {
			return nil, err
		}
		defer r.closePostgres()
	}
	err = r.run(ctx)
	return r.out, err
}

type runner struct {
	sc     *Scenario
	target Target
	opts   RunOptions
	out    *Outcome
	db     *conn
	pg     *conn
	schema string
	// live are the views created, in order; failed those that failed
	// already (they are not checked again).
	live   []View
	failed map[string]bool
	// pgDiverged is set when a tick failed on one side only: the tables
	// differ from then on and PostgreSQL's opinion is moot.
	pgDiverged bool
	pgReported map[string]bool
	pgTime     map[string]time.Duration
}

// errStop ends a run early: a crash, or the first failure in FailFast mode.
type errStop struct{}

func (errStop) Error() string { return "run stopped" }

func (r *runner) run(ctx context.Context) error {
	err := r.setup(ctx)
	for i, st := range r.sc.Steps {
		if err != nil {
			break
		}
		if st.Restart {
			err = r.restart(ctx, i)
		} else {
			err = r.tick(ctx, i, st.Stmts)
		}
		if err == nil {
			err = r.check(ctx, i)
		}
	}
	if _, ok := err.(errStop); ok {
		return nil
	}
	return err
}

func (r *runner) fail(f Failure) error {
	r.out.Failures = append(r.out.Failures, f)
	if f.View != "" {
		r.failed[f.View] = true
	}
	if r.opts.FailFast || f.Kind == KindCrash || f.Kind == KindSetup {
		return errStop{}
	}
	return nil
}

// crashed turns a connection-level error into a crash failure.
func (r *runner) crashed(step int, what string, err error) error {
	return r.fail(Failure{Kind: KindCrash, Step: step, Detail: fmt.Sprintf("%s: %v", what, err)})
}

func (r *runner) setup(ctx context.Context) error {
	for _, t := range r.sc.Tables {
		res, err := r.db.run(ctx, t)
		if err != nil {
			return r.crashed(-1, t, err)
		}
		if res.failed() {
			return r.fail(Failure{Kind: KindSetup, Step: -1, Detail: fmt.Sprintf("%s: %s %s", t, res.code, res.msg)})
		}
		if r.pg != nil {
			if res, err := r.pg.run(ctx, t); err != nil || res.failed() {
				return fmt.Errorf("postgres: %s: %v %v", t, err, res)
			}
		}
	}
	for _, v := range r.sc.Views {
		if len(r.opts.Only) > 0 && !slices.Contains(r.opts.Only, v.Name) {
			continue
		}
		res, err := r.db.run(ctx, "CREATE MATERIALIZED VIEW "+v.Name+" AS "+v.Query)
		if err != nil {
			return r.crashed(-1, "CREATE MATERIALIZED VIEW "+v.Name, err)
		}
		switch {
		case !res.failed():
			r.live = append(r.live, v)
			r.out.Views++
		case res.code == "0A000":
			r.out.Unsupported[res.msg]++
		case res.code == internalError:
			if err := r.fail(Failure{Kind: KindInternal, View: v.Name, Step: -1, Detail: res.msg}); err != nil {
				return err
			}
		default:
			r.out.Rejected = append(r.out.Rejected, r.rejection(ctx, v, res))
		}
	}
	return r.check(ctx, -1)
}

// rejection describes a view streamdb refused with an error other than
// 0A000, with PostgreSQL's verdict on its query: if PostgreSQL refuses it
// too, the generator wrote an invalid query.
func (r *runner) rejection(ctx context.Context, v View, res *result) string {
	s := fmt.Sprintf("%s: %s %s", v.Name, res.code, res.msg)
	if r.pg != nil {
		p, err := r.pg.run(ctx, v.Query)
		switch {
		case err != nil:
			s += fmt.Sprintf(" (postgres: %v)", err)
		case p.failed():
			s += fmt.Sprintf(" (postgres also rejects it: %s %s)", p.code, p.msg)
		default:
			s += " (postgres runs it)"
		}
	}
	return s + "\n    " + v.Query
}

// tick runs one transaction on streamdb, and on PostgreSQL.
func (r *runner) tick(ctx context.Context, step int, stmts []string) error {
	dbErr, dbCode, err := runTx(ctx, r.db, stmts)
	if err != nil {
		return r.crashed(step, "tick", err)
	}
	if dbCode == internalError {
		if err := r.fail(Failure{Kind: KindInternal, Step: step, Detail: dbErr}); err != nil {
			return err
		}
	}
	if r.pg == nil {
		if dbErr != "" {
			r.out.Disagreements = append(r.out.Disagreements, fmt.Sprintf("step %d: streamdb: %s", step+1, dbErr))
		}
		return nil
	}
	pgErr, _, err := runTx(ctx, r.pg, stmts)
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	if dbErr != pgErr && (dbErr == "" || pgErr == "") {
		r.pgDiverged = true
		r.out.Disagreements = append(r.out.Disagreements,
			fmt.Sprintf("step %d: the tick failed on one side only (PostgreSQL comparisons stop here)\n    streamdb: %s\n    postgres: %s", step+1, orOK(dbErr), orOK(pgErr)))
	}
	return nil
}

func orOK(s string) string {
	if s == "" {
		return "ok"
	}
	return s
}

// runTx runs statements as one transaction (a single statement runs on
// its own) and returns the first statement error, with its SQLSTATE,
// after which the transaction is rolled back.
func runTx(ctx context.Context, c *conn, stmts []string) (msg, code string, err error) {
	tx := len(stmts) > 1
	if tx {
		stmts = append(append([]string{"BEGIN"}, stmts...), "COMMIT")
	}
	for _, s := range stmts {
		res, err := c.run(ctx, s)
		if err != nil {
			return "", "", err
		}
		if res.failed() {
			if tx {
				if _, err := c.run(ctx, "ROLLBACK"); err != nil {
					return "", "", err
				}
			}
			return fmt.Sprintf("%s: %s %s", s, res.code, res.msg), res.code, nil
		}
	}
	return "", "", nil
}

func (r *runner) restart(ctx context.Context, step int) error {
	r.db.close()
	if err := r.target.Restart(ctx); err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	var err error
	r.db, err = dial(ctx, r.target.URL(), r.opts.Timeout)
	return err
}

// check compares every live view with its query run ad hoc, and the ad
// hoc answer with PostgreSQL's.
func (r *runner) check(ctx context.Context, step int) error {
	for _, v := range r.live {
		if r.failed[v.Name] {
			continue
		}
		start := time.Now()
		err := r.checkView(ctx, step, v)
		r.out.Time[v.Name] += time.Since(start)
		if err != nil {
			return err
		}
	}
	return nil
}

// checkView compares one view with its query, and the query's answer with
// PostgreSQL's.
func (r *runner) checkView(ctx context.Context, step int, v View) error {
	mv, err := r.db.run(ctx, "SELECT * FROM "+v.Name)
	if err != nil {
		return r.crashed(step, "SELECT * FROM "+v.Name, err)
	}
	q, err := r.db.run(ctx, v.Query)
	if err != nil {
		return r.crashed(step, "query of "+v.Name, err)
	}
	r.out.Checks++
	for _, res := range []struct {
		what string
		res  *result
	}{{"SELECT * FROM " + v.Name, mv}, {"its query", q}} {
		if res.res.code == internalError {
			return r.fail(Failure{Kind: KindInternal, View: v.Name, Step: step, Detail: res.what + ": " + res.res.msg})
		}
	}
	if d := diff(mv, q, "view", "query", true); d != "" {
		kind := KindRows
		if mv.failed() || q.failed() {
			kind = KindError
		}
		return r.fail(Failure{Kind: kind, View: v.Name, Step: step, Detail: d})
	}
	if !mv.failed() && !slices.Equal(mv.oids, q.oids) {
		return r.fail(Failure{Kind: KindTypes, View: v.Name, Step: step,
			Detail: fmt.Sprintf("view column types %v, query column types %v", mv.oids, q.oids)})
	}
	if r.pg == nil || r.pgDiverged || r.pgReported[v.Name] {
		return nil
	}
	start := time.Now()
	p, err := r.pg.run(ctx, v.Query)
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	r.pgTime[v.Name] += time.Since(start)
	if p.code == "57014" || r.pgTime[v.Name] > postgresBudget { // 57014: statement_timeout
		r.pgReported[v.Name] = true
		r.out.PostgresSlow++
		return nil
	}
	d := diff(q, p, "streamdb", "postgres", true)
	if d == "" && !q.failed() && !p.failed() && !slices.Equal(q.oids, p.oids) {
		d = fmt.Sprintf("column types: streamdb %v, postgres %v", q.oids, p.oids)
	}
	if d == "" {
		if exact := diff(q, p, "streamdb", "postgres", false); exact != "" && len(r.out.Scales) < 20 {
			r.out.Scales = append(r.out.Scales, fmt.Sprintf("view %s %s: %s\n    %s", v.Name, stepName(step), indent(exact), v.Query))
		}
	}
	if d != "" {
		r.pgReported[v.Name] = true
		r.out.Disagreements = append(r.out.Disagreements, fmt.Sprintf("view %s %s: %s\n    %s", v.Name, stepName(step), indent(d), v.Query))
	}
	return nil
}

// stepName says when a check ran.
func stepName(step int) string {
	if step < 0 {
		return "after the views were created"
	}
	return fmt.Sprintf("after step %d", step+1)
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n  ") }

func (r *runner) openPostgres(ctx context.Context) error {
	var err error
	if r.pg, err = dial(ctx, r.opts.Postgres, r.opts.Timeout); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	r.schema = fmt.Sprintf("oracle_%d_%d", time.Now().UnixNano()%1e9, schemaSeq.Add(1))
	setup := []string{"CREATE SCHEMA " + r.schema, "SET search_path TO " + r.schema, "SET statement_timeout = '" + postgresTimeout + "'"}
	for _, s := range setup {
		if res, err := r.pg.run(ctx, s); err != nil || res.failed() {
			r.pg.close()
			return fmt.Errorf("postgres: %s: %v %v", s, err, res)
		}
	}
	return nil
}

func (r *runner) closePostgres() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r.pg.run(ctx, "DROP SCHEMA "+r.schema+" CASCADE")
	r.pg.close()
}
