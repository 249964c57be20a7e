package sqllogictest

import (
	"strconv"
	"strings"
)

// queryInfo is what incremental mode needs to know about one query.
type queryInfo struct {
	// fallback says why the query runs in batch instead of as a view, ""
	// when it can be a view.
	fallback string
	// relations are the relations the query reads, CTE names excluded.
	relations []string
	// body is the query text the view is created from: the query itself,
	// or the query without its ORDER BY when the runner sorts anyway.
	body string
	// readOrder is the ORDER BY that reads a top-k view (ORDER BY ...
	// LIMIT in nosort mode) in the query's order, "" when none is needed.
	readOrder string
}

// viewPlan is one query of a file run through a materialized view.
type viewPlan struct {
	name   string // slt_mv_N
	create string // CREATE MATERIALIZED VIEW statement
	read   string // SELECT that reads the view at the query's position
	// at is the index of the record before which the view is created.
	at int

	// Set while running.
	created  bool
	dropped  bool
	err      error  // creation failed with anything but 0A000
	fallback string // creation failed with 0A000: run the query in batch
}

// incrementalPlan says, for every record of a file, which views to create
// before it and how each query runs.
type incrementalPlan struct {
	before    map[int][]*viewPlan // record index → views to create first
	views     map[int]*viewPlan   // query record index → its view
	fallbacks map[int]string      // query record index → why it runs in batch
}

// planViews decides where each query's view is created by simulating the
// file: which relations exist before each record, and the last record that
// created, dropped or altered each. A query's view is created right after
// the last such event among the relations it reads (views the file created
// count with the relations they read), which is normally before any data is
// inserted; never inside an explicit transaction block; and, when a
// relation is unknown or was dropped, just before the query itself.
//
// The view is dropped right after its query reads it, so by construction no
// view is alive when a statement drops or alters a relation it reads: every
// such statement comes either before the view's creation or after its query.
// Records excluded by skipif/onlyif are ignored, and planning stops at the
// first halt that applies, exactly as the run will.
func planViews(recs []*Record, engine string) *incrementalPlan {
	p := &incrementalPlan{
		before:    make(map[int][]*viewPlan),
		views:     make(map[int]*viewPlan),
		fallbacks: make(map[int]string),
	}
	sim := newSimulation()
	txnBefore := make([]bool, len(recs))
	for i, rec := range recs {
		txnBefore[i] = sim.inTxn
		if rec.Skipped(engine) {
			continue
		}
		switch rec.Kind {
		case KindHalt:
			return p
		case KindStatement:
			if !rec.ExpectError {
				sim.apply(i, rec.SQL)
			}
		case KindSimple:
			if !expectsError(rec.Expected) {
				for _, s := range splitStatements(rec.SQL) {
					sim.apply(i, s)
				}
			}
		case KindQuery:
			if reason := p.planQuery(i, rec, sim, txnBefore); reason != "" {
				p.fallbacks[i] = reason
			}
		}
	}
	return p
}

func (p *incrementalPlan) planQuery(i int, rec *Record, sim *simulation, txnBefore []bool) string {
	if rec.ExpectError {
		return "expects an error"
	}
	if sim.inTxn {
		return "inside a transaction block"
	}
	info := analyzeQuery(rec.SQL, rec.Sort, len(rec.Types))
	if info.fallback != "" {
		return info.fallback
	}
	at := 0
	for _, r := range sim.closure(info.relations) {
		if !sim.exists[r] {
			at = i
			break
		}
		at = max(at, sim.lastEvent[r]+1)
	}
	for at < i && txnBefore[at] {
		at++
	}
	n := len(p.views) + 1
	v := &viewPlan{name: "slt_mv_" + strconv.Itoa(n), at: at}
	cols := make([]string, len(rec.Types))
	for c := range cols {
		cols[c] = "c" + strconv.Itoa(c+1)
	}
	v.create = "CREATE MATERIALIZED VIEW " + v.name + " (" + strings.Join(cols, ", ") + ") AS " + info.body
	v.read = "SELECT * FROM " + v.name
	if info.readOrder != "" {
		v.read += " " + info.readOrder
	}
	p.before[at] = append(p.before[at], v)
	p.views[i] = v
	return ""
}

// expectsError reports whether a simple record's expected output ends in
// an error, in which case none of its statements took effect.
func expectsError(expected []string) bool {
	return len(expected) > 0 && strings.HasPrefix(expected[len(expected)-1], "ERROR ")
}

// simulation tracks, while planning, which relations exist and when each
// last changed.
type simulation struct {
	exists    map[string]bool
	lastEvent map[string]int
	// deps maps a view the file created to every relation it reads,
	// transitively.
	deps  map[string][]string
	inTxn bool
}

func newSimulation() *simulation {
	return &simulation{exists: make(map[string]bool), lastEvent: make(map[string]int), deps: make(map[string][]string)}
}

// apply records the effect of statement sql, run as record i.
func (s *simulation) apply(i int, sql string) {
	d := sniffDDL(sql)
	switch d.op {
	case ddlBegin:
		s.inTxn = true
	case ddlEnd:
		s.inTxn = false
	case ddlCreate:
		k := d.names[0].key()
		s.exists[k], s.lastEvent[k] = true, i
		delete(s.deps, k)
		if d.body >= 0 && (d.kind == "VIEW" || d.kind == "MATERIALIZED VIEW") {
			s.deps[k] = s.closure(relationsRead(sql[d.body:]))
		}
	case ddlDrop:
		for _, n := range d.names {
			s.exists[n.key()], s.lastEvent[n.key()] = false, i
		}
	case ddlAlter:
		k := d.names[0].key()
		s.lastEvent[k] = i
		if d.renamed != nil {
			nk := d.renamed.key()
			s.exists[k] = false
			s.exists[nk], s.lastEvent[nk], s.deps[nk] = true, i, s.deps[k]
		}
	}
}

// closure adds to rels every relation the views among them read.
func (s *simulation) closure(rels []string) []string {
	out := rels
	for _, r := range rels {
		if d := s.deps[r]; len(d) > 0 {
			if len(out) == len(rels) {
				out = append([]string(nil), rels...)
			}
			out = append(out, d...)
		}
	}
	return out
}
