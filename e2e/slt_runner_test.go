package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/streamdb/streamdb/sqllogictest"
	"github.com/twmb/franz-go/pkg/kgo"
)

// suite is a sqllogictest file with the additions described in doc.go:
// broker and upstream actions between records, known-bug markers, and
// queries whose recorded result is checked against upstream PostgreSQL.
type suite struct {
	path    string
	records []*sqllogictest.Record
	// actions are the kafka-* and postgres-execute blocks, in file
	// order.
	actions []action
	// bugs maps a record's line to the known bug its marker names.
	bugs map[int]string
	// upstreamResult holds the lines of the queries marked
	// "# upstream-result".
	upstreamResult map[int]bool
	// upstream is the PostgreSQL database postgres-execute blocks run
	// in and upstream-result queries are checked against.
	upstream *client
}

// action is one kafka-* block: its kind, its key=value arguments (header
// may repeat) and, for kafka-produce, its record lines.
type action struct {
	line    int
	kind    string
	args    map[string]string
	headers []kgo.RecordHeader
	data    []string
}

const (
	knownBugPrefix = "# known-bug:"
	// upstreamMarker marks a query whose recorded result is what
	// upstream PostgreSQL returns for the same query, which the runner
	// checks before waiting for streamdb to return it.
	upstreamMarker = "# upstream-result"
)

// loadSuite reads a suite, replacing each ${NAME} of vars first.
func loadSuite(path string, vars map[string]string) (*suite, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	text := string(raw)
	for k, v := range vars {
		text = strings.ReplaceAll(text, "${"+k+"}", v)
	}
	s := &suite{path: path, bugs: map[int]string{}, upstreamResult: map[int]bool{}}
	lines := strings.Split(text, "\n")
	var bugLines, upstreamLines []int
	bugText := map[int]string{}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if rest, ok := strings.CutPrefix(line, knownBugPrefix); ok {
			bugLines = append(bugLines, i+1)
			bugText[i+1] = strings.TrimSpace(rest)
			continue
		}
		if strings.TrimSpace(line) == upstreamMarker {
			upstreamLines = append(upstreamLines, i+1)
			continue
		}
		if strings.TrimSpace(line) == "postgres-execute" {
			a := action{line: i + 1, kind: "postgres-execute"}
			lines[i] = "#" + line
			for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
				i++
				a.data = append(a.data, lines[i])
				lines[i] = "#"
			}
			s.actions = append(s.actions, a)
			continue
		}
		if !strings.HasPrefix(line, "kafka-") {
			continue
		}
		a, err := parseAction(i+1, line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, i+1, err)
		}
		// The block's lines become comments, so that the parser skips
		// them and every record keeps its line number.
		lines[i] = "#" + line
		if a.kind == "kafka-produce" {
			for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
				i++
				a.data = append(a.data, lines[i])
				lines[i] = "#"
			}
		}
		s.actions = append(s.actions, a)
	}
	p := sqllogictest.NewParser(strings.NewReader(strings.Join(lines, "\n")))
	for {
		rec, err := p.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		s.records = append(s.records, rec)
	}
	for _, bl := range bugLines {
		i := slices.IndexFunc(s.records, func(r *sqllogictest.Record) bool { return r.Line > bl })
		if i < 0 {
			return nil, fmt.Errorf("%s:%d: known-bug marker without a record after it", path, bl)
		}
		s.bugs[s.records[i].Line] = bugText[bl]
	}
	for _, ul := range upstreamLines {
		i := slices.IndexFunc(s.records, func(r *sqllogictest.Record) bool { return r.Line > ul })
		if i < 0 || s.records[i].Kind != sqllogictest.KindQuery {
			return nil, fmt.Errorf("%s:%d: %s marker without a query after it", path, ul, upstreamMarker)
		}
		s.upstreamResult[s.records[i].Line] = true
	}
	return s, nil
}

func parseAction(line int, text string) (action, error) {
	f := strings.Fields(text)
	a := action{line: line, kind: f[0], args: map[string]string{}}
	switch a.kind {
	case "kafka-create-topic", "kafka-add-partitions", "kafka-produce":
	default:
		return a, fmt.Errorf("unknown action %s", a.kind)
	}
	for _, kv := range f[1:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return a, fmt.Errorf("argument %q is not key=value", kv)
		}
		if k == "header" {
			hk, hv, _ := strings.Cut(v, ":")
			a.headers = append(a.headers, kgo.RecordHeader{Key: hk, Value: []byte(hv)})
			continue
		}
		a.args[k] = v
	}
	if a.args["topic"] == "" {
		return a, fmt.Errorf("%s needs topic=", a.kind)
	}
	return a, nil
}

// int reads an integer argument, def when absent.
func (a *action) int(name string, def int64) (int64, error) {
	v, ok := a.args[name]
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("line %d: %s=%q is not an integer", a.line, name, v)
	}
	return n, nil
}

// apply performs the action on the broker it names (broker=name), the
// unnamed one by default.
func (a *action) apply(brokers map[string]*broker) error {
	b, ok := brokers[a.args["broker"]]
	if !ok {
		return fmt.Errorf("line %d: no broker %q", a.line, a.args["broker"])
	}
	topic := a.args["topic"]
	switch a.kind {
	case "kafka-create-topic":
		n, err := a.int("partitions", 1)
		if err != nil {
			return err
		}
		b.createTopic(topic, int32(n))
	case "kafka-add-partitions":
		n, err := a.int("count", 1)
		if err != nil {
			return err
		}
		b.addPartitions(topic, int(n))
	case "kafka-produce":
		part, err := a.int("partition", 0)
		if err != nil {
			return err
		}
		ts, err := a.int("timestamp", 0)
		if err != nil {
			return err
		}
		sep := a.args["key-separator"]
		recs := make([]*kgo.Record, len(a.data))
		for i, d := range a.data {
			key, value := "", d
			if sep != "" {
				k, v, ok := strings.Cut(d, sep)
				if !ok {
					return fmt.Errorf("line %d: record %q lacks the key separator %q", a.line+1+i, d, sep)
				}
				key, value = k, v
			}
			r := record(int32(part), nullable(key, sep != ""), nullable(value, true))
			r.Headers = a.headers
			if ts != 0 {
				r.Timestamp = time.UnixMilli(ts)
			}
			recs[i] = r
		}
		b.produce(topic, recs...)
	}
	return nil
}

// nullable is a record key or value: \N is null, and so is an absent key.
func nullable(s string, present bool) []byte {
	if !present || s == `\N` {
		return nil
	}
	return []byte(s)
}

// Retry budgets of a query: until the first failure, and after it (so
// that a broken source does not make every later query wait the full
// budget).
const (
	queryBudget         = 60 * time.Second
	queryBudgetAfterBad = 5 * time.Second
	knownBugBudget      = 3 * time.Second
)

// run executes the suite: broker actions before the record that follows
// them, statements once, queries until they match. brokers are the
// brokers kafka-* blocks may name, "" being the default.
func (s *suite) run(t *testing.T, c *client, brokers map[string]*broker) {
	next := 0
	rowwise, failed := false, false
	for _, rec := range s.records {
		for next < len(s.actions) && s.actions[next].line < rec.Line {
			if err := s.apply(&s.actions[next], brokers); err != nil {
				t.Fatalf("%s: %v", s.path, err)
			}
			next++
		}
		if rec.Skipped("streamdb") {
			continue
		}
		switch rec.Kind {
		case sqllogictest.KindHalt:
			return
		case sqllogictest.KindSleep:
			time.Sleep(rec.Duration)
			continue
		case sqllogictest.KindMode:
			switch rec.Word {
			case "cockroach", "standard":
				rowwise = rec.Word == "cockroach"
			default:
				t.Errorf("%s:%d: mode %s is not supported by this runner", s.path, rec.Line, rec.Word)
			}
			continue
		}
		bug, known := s.bugs[rec.Line]
		budget := queryBudget
		switch {
		case known:
			budget = knownBugBudget
		case failed:
			budget = queryBudgetAfterBad
		}
		problem := ""
		if s.upstreamResult[rec.Line] {
			problem = s.checkUpstream(rec, rowwise)
		}
		if problem == "" {
			problem = runRecord(c, rec, rowwise, budget)
		}
		switch {
		case known && problem == "":
			t.Errorf("%s:%d: known bug %q no longer reproduces; remove its marker", s.path, rec.Line, bug)
		case known:
			t.Logf("%s:%d: known bug (%s) still reproduces: %s", s.path, rec.Line, bug, firstLine(problem))
		case problem != "":
			failed = true
			t.Errorf("%s:%d: %s\n%s", s.path, rec.Line, problem, rec.SQL)
		}
	}
	for ; next < len(s.actions); next++ {
		if err := s.apply(&s.actions[next], brokers); err != nil {
			t.Fatalf("%s: %v", s.path, err)
		}
	}
}

// apply performs an action: a postgres-execute block upstream, a kafka-*
// block on its broker.
func (s *suite) apply(a *action, brokers map[string]*broker) error {
	if a.kind != "postgres-execute" {
		return a.apply(brokers)
	}
	if s.upstream == nil {
		return fmt.Errorf("line %d: postgres-execute without an upstream", a.line)
	}
	if err := s.upstream.try(strings.Join(a.data, "\n")); err != nil {
		return fmt.Errorf("line %d: upstream: %v", a.line, err)
	}
	return nil
}

// checkUpstream runs a query upstream and says how its result differs
// from the one recorded, "" when they agree.
func (s *suite) checkUpstream(rec *sqllogictest.Record, rowwise bool) string {
	if s.upstream == nil {
		return "an upstream-result query without an upstream"
	}
	res, err := execRecord(s.upstream, rec.SQL)
	if err != nil {
		return "query failed upstream: " + errorText(err)
	}
	got, problem := resultLines(rec, res[len(res)-1], rowwise)
	if problem != "" {
		return "upstream: " + problem
	}
	if !slices.Equal(got, rec.Expected) {
		return fmt.Sprintf("the recorded result is not upstream's\nrecorded:\n%s\nupstream:\n%s",
			strings.Join(rec.Expected, "\n"), strings.Join(got, "\n"))
	}
	return ""
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// runRecord runs one statement or query record and describes how it
// failed, "" when it passed.
func runRecord(c *client, rec *sqllogictest.Record, rowwise bool, budget time.Duration) string {
	switch rec.Kind {
	case sqllogictest.KindInvalid:
		return rec.Problem
	case sqllogictest.KindStatement:
		res, err := execRecord(c, rec.SQL)
		if rec.ExpectError {
			return checkError(rec, err)
		}
		if err != nil {
			return "statement failed: " + errorText(err)
		}
		if rec.Count >= 0 {
			if n := res[len(res)-1].tag.RowsAffected(); n != rec.Count {
				return fmt.Sprintf("statement affected %d rows, expected %d", n, rec.Count)
			}
		}
		return ""
	case sqllogictest.KindQuery:
		if rec.ExpectError {
			_, err := execRecord(c, rec.SQL)
			return checkError(rec, err)
		}
		deadline := time.Now().Add(budget)
		for {
			res, err := execRecord(c, rec.SQL)
			if err != nil {
				return "query failed: " + errorText(err)
			}
			got, problem := resultLines(rec, res[len(res)-1], rowwise)
			if problem != "" {
				return problem
			}
			if slices.Equal(got, rec.Expected) {
				return ""
			}
			if time.Now().After(deadline) {
				return fmt.Sprintf("wrong result after retrying for %s\nexpected:\n%s\ngot:\n%s", budget,
					strings.Join(rec.Expected, "\n"), strings.Join(got, "\n"))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return fmt.Sprintf("record kind %d is not supported by this runner", rec.Kind)
}

// result is one statement's result. Unlike pgconn.Result it keeps the
// row description of a result without rows.
type result struct {
	fields []pgconn.FieldDescription
	rows   [][][]byte
	tag    pgconn.CommandTag
}

// execRecord runs SQL with the simple query protocol.
func execRecord(c *client, sql string) ([]result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	mrr := c.conn.PgConn().Exec(ctx, sql)
	var out []result
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		res := result{fields: slices.Clone(rr.FieldDescriptions())}
		for rr.NextRow() {
			row := make([][]byte, len(rr.Values()))
			for i, v := range rr.Values() {
				if v != nil {
					row[i] = append([]byte{}, v...)
				}
			}
			res.rows = append(res.rows, row)
		}
		var err error
		if res.tag, err = rr.Close(); err != nil {
			mrr.Close()
			return nil, err
		}
		out = append(out, res)
	}
	return out, mrr.Close()
}

func checkError(rec *sqllogictest.Record, err error) string {
	if err == nil {
		return "expected an error, but it succeeded"
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return "expected a server error, got " + err.Error()
	}
	if rec.ErrorCode != "" && pe.Code != rec.ErrorCode {
		return fmt.Sprintf("expected SQLSTATE %s, got %s", rec.ErrorCode, errorText(err))
	}
	if rec.ErrorPattern != "" {
		re, cerr := regexp.Compile(rec.ErrorPattern)
		if cerr != nil {
			return "bad error pattern: " + cerr.Error()
		}
		if !re.MatchString(pe.Message) {
			return fmt.Sprintf("error %s does not match %q", errorText(err), rec.ErrorPattern)
		}
	}
	return ""
}

func errorText(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code + ": " + pe.Message
	}
	return err.Error()
}

// resultLines normalizes a result as sqllogictest does (see the
// sqllogictest package) and lays it out a value a line, or a row a line
// in cockroach mode.
func resultLines(rec *sqllogictest.Record, res result, rowwise bool) ([]string, string) {
	if n := len(res.fields); n != len(rec.Types) {
		return nil, fmt.Sprintf("query returned %d columns, the type string %q names %d", n, rec.Types, len(rec.Types))
	}
	rows := make([][]string, len(res.rows))
	for i, row := range res.rows {
		rows[i] = make([]string, len(row))
		for j, v := range row {
			rows[i][j] = normalizeValue(rec.Types[j], v)
		}
	}
	switch rec.Sort {
	case sqllogictest.RowSort:
		slices.SortFunc(rows, func(a, b []string) int { return slices.Compare(a, b) })
	case sqllogictest.ValueSort:
		var all []string
		for _, r := range rows {
			all = append(all, r...)
		}
		slices.Sort(all)
		rows = [][]string{all}
	}
	var out []string
	for _, r := range rows {
		if rowwise && rec.Sort != sqllogictest.ValueSort {
			out = append(out, strings.Join(r, " "))
		} else {
			out = append(out, r...)
		}
	}
	return out, ""
}

// normalizeValue prints a text-format value as the reference runner does:
// NULL, "(empty)" for the empty string, '@' for bytes outside ' '..'~' (T);
// an integer, text by its leading integer as SQLite reads it (I); three
// decimals (R).
func normalizeValue(typ byte, v []byte) string {
	if v == nil {
		return "NULL"
	}
	switch typ {
	case 'I':
		s := string(v)
		switch s {
		case "t":
			return "1"
		case "f":
			return "0"
		}
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return strconv.FormatInt(n, 10)
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return strconv.FormatInt(int64(f), 10)
		}
		return strconv.FormatInt(intPrefix(s), 10)
	case 'R':
		if f, err := strconv.ParseFloat(string(v), 64); err == nil {
			return fmt.Sprintf("%.3f", f)
		}
		return string(v)
	}
	if len(v) == 0 {
		return "(empty)"
	}
	b := []byte(string(v))
	for i, c := range b {
		if c < ' ' || c > '~' {
			b[i] = '@'
		}
	}
	return string(b)
}

// intPrefix is the integer a text starts with, 0 when none: "12abc" is 12.
func intPrefix(s string) int64 {
	s = strings.TrimLeft(s, " ")
	end := 0
	if end < len(s) && (s[end] == '-' || s[end] == '+') {
		end++
	}
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, _ := strconv.ParseInt(s[:end], 10, 64)
	return n
}
