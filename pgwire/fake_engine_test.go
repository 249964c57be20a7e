package pgwire

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// fakeEngine is a toy engine that knows just enough SQL to exercise the
// protocol layer, answering like PostgreSQL where the statements overlap:
//
//	SELECT generate_series(a, b)      int4 rows a..b
//	SELECT k/generate_series(a, b)    k divided by each, 22012 at zero
//	SELECT item, ...                  one row; items are integers, 2::int8,
//	                                  'text', NULL, true/false, 1/0 (22012
//	                                  when run), $n::type, $n
//	SELECT pg_sleep(s)                sleeps, or until cancelled
//	SELECT panic('msg')               panics while producing its row
//	SELECT many(n, cols)              n rows of cols int8 columns
//	SET name = value, SHOW name
//	BEGIN, COMMIT, ROLLBACK
//	DO $$ ... RAISE NOTICE 'msg' ... $$
//
// Anything else is a syntax error. It counts open results so tests can
// check that every Result is closed.
type fakeEngine struct {
	// tame, for fuzzing, bounds pg_sleep and many() and makes panic()
	// an error, so that any panic logged is pgwire's own.
	tame bool

	openResults atomic.Int64
	sessions    atomic.Int64 // open sessions
	aborts      atomic.Int64
	blocks      atomic.Int64

	mu       sync.Mutex
	startups []Startup
}

func (e *fakeEngine) Connect(ctx context.Context, s Startup) (Session, error) {
	if s.Database == "nodb" {
		return nil, pgerr.New(pgerr.InvalidCatalogName, "database \"%s\" does not exist", s.Database)
	}
	e.mu.Lock()
	e.startups = append(e.startups, s)
	e.mu.Unlock()
	e.sessions.Add(1)
	settings := map[string]string{
		"application_name": s.Params["application_name"],
		"DateStyle":        "ISO, MDY",
		"TimeZone":         "UTC",
	}
	return &fakeSession{eng: e, notify: s.Notifier, settings: settings, cfg: types.DefaultTextConfig(), tx: 'I'}, nil
}

func (e *fakeEngine) lastStartup() Startup {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.startups[len(e.startups)-1]
}

type fakeSession struct {
	eng      *fakeEngine
	notify   Notifier
	settings map[string]string
	cfg      *types.TextConfig
	tx       byte
}

// reported are the settings a client is told about when they change.
var reported = map[string]bool{"application_name": true, "DateStyle": true, "TimeZone": true}

func (s *fakeSession) ParameterStatuses() [][2]string {
	return [][2]string{
		{"application_name", s.settings["application_name"]},
		{"client_encoding", "UTF8"},
		{"DateStyle", s.settings["DateStyle"]},
		{"integer_datetimes", "on"},
		{"IntervalStyle", "postgres"},
		{"is_superuser", "on"},
		{"server_encoding", "UTF8"},
		{"server_version", "15.0"},
		{"session_authorization", "postgres"},
		{"standard_conforming_strings", "on"},
		{"TimeZone", s.settings["TimeZone"]},
	}
}

func (s *fakeSession) TextConfig() *types.TextConfig { return s.cfg }
func (s *fakeSession) TxStatus() byte                { return s.tx }
func (s *fakeSession) BeginBlock()                   { s.eng.blocks.Add(1) }
func (s *fakeSession) EndBlock(err error) error      { return nil }
func (s *fakeSession) Close()                        { s.eng.sessions.Add(-1) }

func (s *fakeSession) Abort(err error) {
	s.eng.aborts.Add(1)
	s.fail()
}

// fail marks an open transaction block failed, as any error does.
func (s *fakeSession) fail() {
	if s.tx == 'T' {
		s.tx = 'E'
	}
}

func (s *fakeSession) Parse(ctx context.Context, query string) ([]Statement, error) {
	var out []Statement
	for _, text := range splitStatements(query) {
		st, err := s.parseOne(text)
		if err != nil {
			s.fail()
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// splitStatements splits on semicolons outside quotes and $$ bodies.
func splitStatements(q string) []string {
	var out []string
	start, quote, dollar := 0, false, false
	for i := 0; i < len(q); i++ {
		switch {
		case q[i] == '\'' && !dollar:
			quote = !quote
		case strings.HasPrefix(q[i:], "$$") && !quote:
			dollar = !dollar
			i++
		case q[i] == ';' && !quote && !dollar:
			out = append(out, q[start:i])
			start = i + 1
		}
	}
	out = append(out, q[start:])
	var stmts []string
	for _, s := range out {
		if s = strings.TrimSpace(s); s != "" {
			stmts = append(stmts, s)
		}
	}
	return stmts
}

var (
	reSeries = regexp.MustCompile(`(?i)^SELECT (?:(\d+)/)?generate_series\((-?\d+), ?(-?\d+)\)$`)
	reSleep  = regexp.MustCompile(`(?i)^SELECT pg_sleep\(([\d.]+)\)$`)
	rePanic  = regexp.MustCompile(`(?i)^SELECT panic\('(.*)'\)$`)
	reMany   = regexp.MustCompile(`(?i)^SELECT many\((\d+), ?(\d+)\)$`)
	reSelect = regexp.MustCompile(`(?i)^SELECT (.+)$`)
	reSet    = regexp.MustCompile(`(?i)^SET (\w+) ?(?:=|TO) ?'?([^']*)'?$`)
	reShow   = regexp.MustCompile(`(?i)^SHOW (\w+)$`)
	reNotice = regexp.MustCompile(`(?is)^DO \$\$.*RAISE NOTICE '([^']*)'.*\$\$$`)
	reParam  = regexp.MustCompile(`^\$\d+$`)
)

func (s *fakeSession) parseOne(text string) (Statement, error) {
	up := strings.ToUpper(text)
	switch {
	case up == "BEGIN" || up == "START TRANSACTION":
		return &txStmt{s: s, tag: "BEGIN"}, nil
	case up == "COMMIT" || up == "END":
		return &txStmt{s: s, tag: "COMMIT"}, nil
	case up == "ROLLBACK":
		return &txStmt{s: s, tag: "ROLLBACK"}, nil
	}
	if m := reSeries.FindStringSubmatch(text); m != nil {
		lo, _ := strconv.Atoi(m[2])
		hi, _ := strconv.Atoi(m[3])
		if s.eng.tame {
			hi = min(hi, lo+100)
		}
		st := &seriesStmt{s: s, lo: lo, hi: hi, name: "generate_series"}
		if m[1] != "" {
			st.div, _ = strconv.Atoi(m[1])
			st.name = "?column?"
		}
		return st, nil
	}
	if m := reSleep.FindStringSubmatch(text); m != nil {
		sec, _ := strconv.ParseFloat(m[1], 64)
		d := time.Duration(sec * float64(time.Second))
		if s.eng.tame {
			d = min(d, time.Millisecond)
		}
		return &sleepStmt{s: s, d: d}, nil
	}
	if m := rePanic.FindStringSubmatch(text); m != nil {
		if s.eng.tame {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "no panics today")
		}
		return &panicStmt{s: s, msg: m[1]}, nil
	}
	if m := reMany.FindStringSubmatch(text); m != nil {
		n, _ := strconv.Atoi(m[1])
		cols, _ := strconv.Atoi(m[2])
		if s.eng.tame {
			n, cols = min(n, 100), min(cols, 100)
		}
		return &manyStmt{s: s, n: n, cols: cols}, nil
	}
	if m := reSet.FindStringSubmatch(text); m != nil {
		return &setStmt{s: s, name: m[1], value: m[2]}, nil
	}
	if m := reShow.FindStringSubmatch(text); m != nil {
		return &showStmt{s: s, name: m[1]}, nil
	}
	if m := reNotice.FindStringSubmatch(text); m != nil {
		return &doStmt{s: s, msg: m[1]}, nil
	}
	if m := reSelect.FindStringSubmatch(text); m != nil {
		return parseSelectList(s, m[1])
	}
	word, _, _ := strings.Cut(text, " ")
	return nil, pgerr.New(pgerr.SyntaxError, "syntax error at or near \"%s\"", word).WithPosition(1)
}

// selectItem is one expression of a SELECT list.
type selectItem struct {
	col   Column
	value types.Datum
	param int // 1-based parameter number, 0 for a constant
	div0  bool
}

var castTypes = map[string]types.Type{
	"int4": types.TypeInt4, "int8": types.TypeInt8, "text": types.TypeText,
	"bool": types.TypeBool, "float8": types.TypeFloat8,
}

func parseSelectList(s *fakeSession, list string) (Statement, error) {
	st := &rowStmt{s: s}
	for _, item := range splitItems(list) {
		it, err := parseItem(item)
		if err != nil {
			return nil, err
		}
		st.items = append(st.items, it)
	}
	return st, nil
}

// splitItems splits a SELECT list on commas outside quotes.
func splitItems(list string) []string {
	var out []string
	start, quote := 0, false
	for i := 0; i < len(list); i++ {
		switch {
		case list[i] == '\'':
			quote = !quote
		case list[i] == ',' && !quote:
			out = append(out, strings.TrimSpace(list[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(list[start:]))
}

// parseItem parses a literal, 1/0 or a parameter, with an optional cast.
func parseItem(item string) (selectItem, error) {
	it := selectItem{col: Column{Name: "?column?"}}
	lit, cast := item, ""
	if i := strings.LastIndex(item, "::"); i >= 0 && !strings.HasSuffix(item, "'") {
		lit, cast = strings.TrimSpace(item[:i]), strings.ToLower(item[i+2:])
	}
	var text string
	switch low := strings.ToLower(lit); {
	case low == "null":
		it.col.Type = types.TypeText
	case low == "true" || low == "false":
		it.col.Type = types.TypeBool
		it.value = types.NewBool(low == "true")
		text = low
	case low == "1/0":
		it.col.Type = types.TypeInt4
		it.div0 = true
	case len(lit) >= 2 && lit[0] == '\'' && lit[len(lit)-1] == '\'':
		text = strings.ReplaceAll(lit[1:len(lit)-1], "''", "'")
		it.col.Type = types.TypeText
		it.value = types.NewText(text)
	case reParam.MatchString(lit):
		it.param, _ = strconv.Atoi(lit[1:])
		it.col.Type = types.TypeUnknown
	default:
		v, err := strconv.ParseInt(lit, 10, 64)
		if err != nil {
			return it, pgerr.New(pgerr.SyntaxError, "syntax error at or near \"%s\"", item)
		}
		text = lit
		it.col.Type = types.TypeInt4
		it.value = types.NewInt4(int32(v))
		if v != int64(int32(v)) {
			it.col.Type = types.TypeInt8
			it.value = types.NewInt8(v)
		}
	}
	if cast == "" {
		return it, nil
	}
	t, ok := castTypes[cast]
	if !ok {
		return it, pgerr.New(pgerr.UndefinedObject, "type \"%s\" does not exist", cast)
	}
	it.col = Column{Name: cast, Type: t}
	if !it.value.IsNull() {
		v, err := types.ParseText(text, t, types.DefaultTextConfig())
		if err != nil {
			return it, err
		}
		it.value = v
	}
	return it, nil
}

// rowStmt is a SELECT of one row.
type rowStmt struct {
	s     *fakeSession
	items []selectItem
}

func (st *rowStmt) Describe(ctx context.Context, oids []uint32) ([]types.Type, []Column, error) {
	var params []types.Type
	var cols []Column
	for i, oid := range oids {
		t, ok := types.TypeForOID(oid)
		if !ok && oid != 0 {
			return nil, nil, pgerr.New(pgerr.UndefinedObject, "type with OID %d does not exist", oid)
		}
		if oid == 0 {
			t = types.TypeUnknown
		}
		params = append(params, t)
		_ = i
	}
	for _, it := range st.items {
		col := it.col
		if it.param > 0 {
			for len(params) < it.param {
				params = append(params, types.TypeUnknown)
			}
			p := &params[it.param-1]
			if p.Family == types.Unknown {
				*p = col.Type
			}
			if col.Type.Family == types.Unknown {
				col.Type = *p
			}
			if col.Type.Family == types.Unknown {
				col.Type, *p = types.TypeText, types.TypeText
			}
		}
		cols = append(cols, col)
	}
	return params, cols, nil
}

func (st *rowStmt) Execute(ctx context.Context, params []types.Datum) (Result, error) {
	if err := st.s.check(); err != nil {
		return nil, err
	}
	row := make(types.Row, len(st.items))
	for i, it := range st.items {
		switch {
		case it.div0:
			st.s.fail()
			return nil, pgerr.New(pgerr.DivisionByZero, "division by zero")
		case it.param > 0:
			row[i] = params[it.param-1]
		default:
			row[i] = it.value
		}
	}
	n := 0
	return st.s.newResult(func(ctx context.Context) (types.Row, bool, error) {
		n++
		return row, n == 1, nil
	}, func() string { return "SELECT 1" }), nil
}

// check refuses work inside a failed transaction block.
func (s *fakeSession) check() error {
	if s.tx == 'E' {
		return pgerr.New(pgerr.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
	}
	return nil
}

// seriesStmt is SELECT [k/]generate_series(lo, hi).
type seriesStmt struct {
	s      *fakeSession
	lo, hi int
	div    int
	name   string
}

func (st *seriesStmt) Describe(ctx context.Context, oids []uint32) ([]types.Type, []Column, error) {
	return nil, []Column{{Name: st.name, Type: types.TypeInt4}}, nil
}

func (st *seriesStmt) Execute(ctx context.Context, params []types.Datum) (Result, error) {
	if err := st.s.check(); err != nil {
		return nil, err
	}
	i, count := st.lo, 0
	row := make(types.Row, 1)
	return st.s.newResult(func(ctx context.Context) (types.Row, bool, error) {
		if i > st.hi {
			return nil, false, nil
		}
		v := i
		if st.div != 0 {
			if i == 0 {
				st.s.fail()
				return nil, false, pgerr.New(pgerr.DivisionByZero, "division by zero")
			}
			v = st.div / i
		}
		i++
		count++
		row[0] = types.NewInt4(int32(v))
		return row, true, nil
	}, func() string { return "SELECT " + strconv.Itoa(count) }), nil
}

// manyStmt produces n rows of cols int8 columns, for large results.
type manyStmt struct {
	s       *fakeSession
	n, cols int
}

func (st *manyStmt) Describe(ctx context.Context, oids []uint32) ([]types.Type, []Column, error) {
	cols := make([]Column, st.cols)
	for i := range cols {
		cols[i] = Column{Name: fmt.Sprintf("c%d", i), Type: types.TypeInt8}
	}
	return nil, cols, nil
}

func (st *manyStmt) Execute(ctx context.Context, params []types.Datum) (Result, error) {
	i := 0
	row := make(types.Row, st.cols)
	return st.s.newResult(func(ctx context.Context) (types.Row, bool, error) {
		if i == st.n {
			return nil, false, nil
		}
		for c := range row {
			row[c] = types.NewInt8(int64(i*1000 + c))
		}
		i++
		return row, true, nil
	}, func() string { return "SELECT " + strconv.Itoa(st.n) }), nil
}

// sleepStmt is SELECT pg_sleep(s).
type sleepStmt struct {
	s *fakeSession
	d time.Duration
}

func (st *sleepStmt) Describe(ctx context.Context, oids []uint32) ([]types.Type, []Column, error) {
	return nil, []Column{{Name: "pg_sleep", Type: types.TypeText}}, nil
}

func (st *sleepStmt) Execute(ctx context.Context, params []types.Datum) (Result, error) {
	select {
	case <-time.After(st.d):
	case <-ctx.Done():
		st.s.fail()
		return nil, ctx.Err()
	}
	n := 0
	row := types.Row{types.NewText("")}
	return st.s.newResult(func(ctx context.Context) (types.Row, bool, error) {
		n++
		return row, n == 1, nil
	}, func() string { return "SELECT 1" }), nil
}

// panicStmt panics while producing its row.
type panicStmt struct {
	s   *fakeSession
	msg string
}

func (st *panicStmt) Describe(ctx context.Context, oids []uint32) ([]types.Type, []Column, error) {
	return nil, []Column{{Name: "panic", Type: types.TypeText}}, nil
}

func (st *panicStmt) Execute(ctx context.Context, params []types.Datum) (Result, error) {
	return st.s.newResult(func(ctx context.Context) (types.Row, bool, error) {
		panic(st.msg)
	}, func() string { return "" }), nil
}

// txStmt is BEGIN, COMMIT or ROLLBACK.
type txStmt struct {
	s   *fakeSession
	tag string
}

func (st *txStmt) Describe(ctx context.Context, oids []uint32) ([]types.Type, []Column, error) {
	return nil, nil, nil
}

func (st *txStmt) Execute(ctx context.Context, params []types.Datum) (Result, error) {
	tag := st.tag
	switch st.tag {
	case "BEGIN":
		if st.s.tx == 'E' {
			return nil, st.s.check()
		}
		st.s.tx = 'T'
	case "COMMIT":
		if st.s.tx == 'E' {
			tag = "ROLLBACK"
		}
		st.s.tx = 'I'
	case "ROLLBACK":
		st.s.tx = 'I'
	}
	return st.s.noRows(tag), nil
}

// setStmt is SET name = value.
type setStmt struct {
	s           *fakeSession
	name, value string
}

func (st *setStmt) Describe(ctx context.Context, oids []uint32) ([]types.Type, []Column, error) {
	return nil, nil, nil
}

func (st *setStmt) Execute(ctx context.Context, params []types.Datum) (Result, error) {
	if err := st.s.check(); err != nil {
		return nil, err
	}
	name := st.name
	for k := range st.s.settings {
		if strings.EqualFold(k, name) {
			name = k
		}
	}
	st.s.settings[name] = st.value
	if reported[name] {
		st.s.notify.ParameterStatus(name, st.value)
	}
	return st.s.noRows("SET"), nil
}

// showStmt is SHOW name.
type showStmt struct {
	s    *fakeSession
	name string
}

func (st *showStmt) Describe(ctx context.Context, oids []uint32) ([]types.Type, []Column, error) {
	return nil, []Column{{Name: strings.ToLower(st.name), Type: types.TypeText}}, nil
}

func (st *showStmt) Execute(ctx context.Context, params []types.Datum) (Result, error) {
	var v string
	for k, val := range st.s.settings {
		if strings.EqualFold(k, st.name) {
			v = val
		}
	}
	n := 0
	row := types.Row{types.NewText(v)}
	return st.s.newResult(func(ctx context.Context) (types.Row, bool, error) {
		n++
		return row, n == 1, nil
	}, func() string { return "SHOW" }), nil
}

// doStmt is a DO block that raises a notice.
type doStmt struct {
	s   *fakeSession
	msg string
}

func (st *doStmt) Describe(ctx context.Context, oids []uint32) ([]types.Type, []Column, error) {
	return nil, nil, nil
}

func (st *doStmt) Execute(ctx context.Context, params []types.Datum) (Result, error) {
	st.s.notify.Notice(&pgerr.Error{Message: st.msg})
	return st.s.noRows("DO"), nil
}

// fakeResult adapts functions to Result and counts open results.
type fakeResult struct {
	s      *fakeSession
	next   func(ctx context.Context) (types.Row, bool, error)
	tag    func() string
	closed bool
}

func (s *fakeSession) newResult(next func(ctx context.Context) (types.Row, bool, error), tag func() string) Result {
	s.eng.openResults.Add(1)
	return &fakeResult{s: s, next: next, tag: tag}
}

func (s *fakeSession) noRows(tag string) Result {
	return s.newResult(func(ctx context.Context) (types.Row, bool, error) { return nil, false, nil }, func() string { return tag })
}

func (r *fakeResult) Next(ctx context.Context) (types.Row, bool, error) {
	if r.closed {
		panic("Next after Close")
	}
	if err := r.s.check(); err != nil {
		return nil, false, err
	}
	return r.next(ctx)
}

func (r *fakeResult) Tag() string { return r.tag() }

func (r *fakeResult) Close() {
	if r.closed {
		panic("Result closed twice")
	}
	r.closed = true
	r.s.eng.openResults.Add(-1)
}
