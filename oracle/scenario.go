package oracle

import (
	"fmt"
)

// Mode is how a scenario cuts its changes into ticks (committed
// transactions): incremental operators must give the same answer whether
// a change arrives alone or consolidated with many others.
type Mode string

const (
	// Small is many ticks of one to three statements each.
	Small Mode = "small"
	// Big is a few ticks of many statements each.
	Big Mode = "big"
)

// Scenario is one run of the oracle: tables, views over them, and a
// sequence of ticks and restarts. It is generated from a seed, written to
// and read from a SQL script, and shrunk by the minimiser.
type Scenario struct {
	// Notes are free comment lines of the script's header.
	Notes []string
	// CheckPostgres makes a disagreement with PostgreSQL a failure, for
	// regression scripts of bugs where a view and its query agree on a
	// wrong answer.
	CheckPostgres bool
	// Known, when set, marks a regression script that reproduces an open
	// bug: it names the bug, and the test skips the script until the bug
	// is fixed (or -oracle.known runs it anyway).
	Known  string
	Tables []string
	Views  []View
	Steps  []Step
}

// View is a materialized view: its name and its query. Reference, when
// set, is what the view is compared with instead of its query: the query
// with its window table functions written as standard SQL (see
// windowFrom).
type View struct {
	Name      string
	Query     string
	Reference string
}

// check returns the query a view is checked against.
func (v View) check() string {
	if v.Reference != "" {
		return v.Reference
	}
	return v.Query
}

// Step is a tick (the statements of one transaction) or a restart of the
// server.
type Step struct {
	Restart bool
	Stmts   []string
}

// Options size a generated scenario; zero fields take defaults.
type Options struct {
	Mode Mode
	// Views is the number of views (default 10).
	Views int
	// Statements is the number of change statements (default 60 in Small
	// mode, 120 in Big mode).
	Statements int
}

// Generate draws the scenario of a seed. Views are created before any
// data arrives, so every row reaches them as a change; one restart sits
// in the middle of the changes.
func Generate(seed int64, opts Options) *Scenario {
	if opts.Mode == "" {
		opts.Mode = Small
	}
	if opts.Views == 0 {
		opts.Views = 10
	}
	if opts.Statements == 0 {
		opts.Statements = 60
		if opts.Mode == Big {
			opts.Statements = 120
		}
	}
	tables := genSchema(newRng(seed, 0))
	sc := &Scenario{Notes: []string{fmt.Sprintf("oracle scenario: seed %d, mode %s", seed, opts.Mode)}}
	for _, t := range tables {
		sc.Tables = append(sc.Tables, t.DDL())
	}
	g := &qgen{r: newRng(seed, 1), tables: tables}
	for i := range opts.Views {
		q := g.view()
		sc.Views = append(sc.Views, View{Name: fmt.Sprintf("v%d", i), Query: q.sql, Reference: g.reference(q.sql)})
	}
	r := newRng(seed, 2)
	maxRows, perTick := 3, func() int { return r.between(1, 3) }
	if opts.Mode == Big {
		maxRows = 6
		ticks := r.between(3, 5)
		perTick = func() int { return max(1, opts.Statements/ticks+r.between(-5, 5)) }
	}
	ch := newChanger(r, tables, maxRows)
	left := opts.Statements
	restartAt := left / 2
	restarted := false
	for left > 0 {
		if !restarted && left <= restartAt {
			sc.Steps = append(sc.Steps, Step{Restart: true})
			restarted = true
		}
		n := min(perTick(), left)
		var st Step
		for range n {
			st.Stmts = append(st.Stmts, ch.next())
		}
		sc.Steps = append(sc.Steps, st)
		left -= n
	}
	return sc
}
