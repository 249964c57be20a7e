package sqllogictest

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// maxLine bounds one line of a file; corpus lines are far shorter.
const maxLine = 16 << 20

// Parser reads the records of one file as a stream, one record per call to
// Next, so that a 4 MB corpus file never has to be held in memory as
// records in batch mode.
//
// Line handling follows SQLite's reference runner: a trailing '\r' is
// dropped, a line of only white space is blank, and a line starting with
// '#' is a comment that is skipped wherever it appears, even inside SQL or
// expected results.
type Parser struct {
	sc   *bufio.Scanner
	line int    // number of the line in cur
	cur  []byte // the current line, valid until the next take
}

// NewParser returns a parser reading records from r.
func NewParser(r io.Reader) *Parser {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	return &Parser{sc: sc}
}

// take reads the next non-comment line into p.cur, blank lines as empty.
// It returns false at the end of the input.
func (p *Parser) take() bool {
	for p.sc.Scan() {
		p.line++
		b := p.sc.Bytes()
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
		if len(b) > 0 && b[0] == '#' {
			continue
		}
		if isBlank(b) {
			b = b[:0]
		}
		p.cur = b
		return true
	}
	p.cur = nil
	return false
}

func isBlank(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\v', '\f', '\r':
		default:
			return false
		}
	}
	return true
}

// Next returns the next record, or io.EOF after the last one. Malformed
// records come back as KindInvalid with a Problem, never as an error; the
// error is reserved for failures to read the input.
func (p *Parser) Next() (*Record, error) {
	for {
		if !p.take() {
			if err := p.sc.Err(); err != nil {
				return nil, fmt.Errorf("line %d: %w", p.line+1, err)
			}
			return nil, io.EOF
		}
		if len(p.cur) > 0 {
			break
		}
	}
	rec := &Record{Count: -1, Line: p.line, EndLine: p.line}
	first := string(p.cur)
	fields := strings.Fields(first)
	for fields[0] == "skipif" || fields[0] == "onlyif" {
		if len(fields) < 2 {
			return p.invalid(rec, "%s needs an engine name", fields[0]), nil
		}
		rec.Conditions = append(rec.Conditions, Condition{Only: fields[0] == "onlyif", Engine: fields[1]})
		if !p.take() || len(p.cur) == 0 {
			return mark(rec, "condition without a record"), nil
		}
		rec.Line, rec.EndLine = p.line, p.line
		first = string(p.cur)
		fields = strings.Fields(first)
	}
	switch fields[0] {
	case "statement":
		return p.statement(rec, first, fields), nil
	case "query":
		return p.query(rec, first, fields), nil
	case "simple":
		rec.Kind = KindSimple
		if !p.sqlLines(rec, true) {
			return mark(rec, "simple record without SQL"), nil
		}
		return rec, nil
	case "hash-threshold":
		rec.Kind = KindHashThreshold
		n, err := argument(fields)
		if err == nil {
			rec.Threshold, err = strconv.Atoi(n)
		}
		if err != nil || rec.Threshold < 0 {
			return p.invalid(rec, "hash-threshold needs a non-negative integer"), nil
		}
	case "halt":
		rec.Kind = KindHalt
	case "mode":
		rec.Kind = KindMode
		w, err := argument(fields)
		switch w {
		case "standard", "cockroach", "simple", "extended":
			rec.Word = w
		default:
			if err == nil {
				err = fmt.Errorf("unknown mode %q", w)
			}
			return p.invalid(rec, "mode: %v (want standard, cockroach, simple or extended)", err), nil
		}
	case "sleep":
		rec.Kind = KindSleep
		d, err := argument(fields)
		if err == nil {
			rec.Duration, err = time.ParseDuration(d)
		}
		if err != nil {
			return p.invalid(rec, "sleep needs a duration such as 100ms: %v", err), nil
		}
	default:
		return p.invalid(rec, "unknown record type %q", fields[0]), nil
	}
	p.skipRecord(rec)
	return rec, nil
}

// argument returns the single argument of a control record.
func argument(fields []string) (string, error) {
	if len(fields) != 2 {
		return "", fmt.Errorf("%s takes one argument", fields[0])
	}
	return fields[1], nil
}

func (p *Parser) statement(rec *Record, first string, fields []string) *Record {
	rec.Kind = KindStatement
	if len(fields) < 2 {
		return p.invalid(rec, "statement needs ok, error or count")
	}
	switch fields[1] {
	case "ok":
		if len(fields) > 2 {
			return p.invalid(rec, "statement ok takes no argument")
		}
	case "error":
		rec.ExpectError = true
		var problem string
		rec.ErrorCode, rec.ErrorPattern, problem = parseErrorSpec(restAfter(first, 2))
		if problem != "" {
			return p.invalid(rec, "%s", problem)
		}
	case "count":
		n, err := strconv.ParseInt(restAfter(first, 2), 10, 64)
		if err != nil || n < 0 {
			return p.invalid(rec, "statement count needs a non-negative integer")
		}
		rec.Count = n
	default:
		return p.invalid(rec, "statement argument should be ok, error or count, not %q", fields[1])
	}
	if p.sqlLines(rec, false) {
		return rec
	}
	return mark(rec, "statement without SQL")
}

func (p *Parser) query(rec *Record, first string, fields []string) *Record {
	rec.Kind = KindQuery
	if len(fields) < 2 {
		return p.invalid(rec, "missing type string")
	}
	if fields[1] == "error" {
		rec.ExpectError = true
		var problem string
		rec.ErrorCode, rec.ErrorPattern, problem = parseErrorSpec(restAfter(first, 2))
		if problem != "" {
			return p.invalid(rec, "%s", problem)
		}
		if !p.sqlLines(rec, true) {
			return mark(rec, "query without SQL")
		}
		if rec.SepLine != 0 {
			return mark(rec, "query error takes no expected results")
		}
		return rec
	}
	rec.Types = fields[1]
	for i := 0; i < len(rec.Types); i++ {
		if c := rec.Types[i]; c != 'T' && c != 'I' && c != 'R' {
			return p.invalid(rec, "unknown type character '%c' in type string", c)
		}
	}
	if len(fields) > 2 {
		switch fields[2] {
		case "nosort":
		case "rowsort":
			rec.Sort = RowSort
		case "valuesort":
			rec.Sort = ValueSort
		default:
			return p.invalid(rec, "unknown sort method %q", fields[2])
		}
	}
	if len(fields) > 3 {
		rec.Label = fields[3]
	}
	if len(fields) > 4 {
		return p.invalid(rec, "query takes at most a type string, a sort method and a label")
	}
	if !p.sqlLines(rec, true) {
		return mark(rec, "query without SQL")
	}
	return rec
}

// sqlLines reads the SQL of a record up to a blank line, or up to "----"
// when results may follow, in which case it then reads the expected
// results. It reports whether any SQL was found.
func (p *Parser) sqlLines(rec *Record, results bool) bool {
	var sb strings.Builder
	for p.take() && len(p.cur) > 0 {
		rec.EndLine = p.line
		if results && string(p.cur) == "----" {
			rec.SepLine = p.line
			for p.take() && len(p.cur) > 0 {
				rec.EndLine = p.line
				rec.Expected = append(rec.Expected, string(p.cur))
			}
			break
		}
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		sb.Write(p.cur)
	}
	rec.SQL = sb.String()
	return rec.SQL != ""
}

// skipRecord consumes the rest of the current record.
func (p *Parser) skipRecord(rec *Record) {
	for p.take() && len(p.cur) > 0 {
		rec.EndLine = p.line
	}
}

// invalid marks rec as KindInvalid and skips the rest of its lines.
func (p *Parser) invalid(rec *Record, format string, args ...any) *Record {
	p.skipRecord(rec)
	return mark(rec, format, args...)
}

// mark marks rec, whose lines have all been read, as KindInvalid.
func mark(rec *Record, format string, args ...any) *Record {
	rec.Kind = KindInvalid
	rec.Problem = fmt.Sprintf(format, args...)
	return rec
}

// restAfter returns line without its first n white-space separated fields,
// trimmed.
func restAfter(line string, n int) string {
	s := strings.TrimLeft(line, " \t")
	for ; n > 0; n-- {
		i := strings.IndexAny(s, " \t")
		if i < 0 {
			return ""
		}
		s = strings.TrimLeft(s[i:], " \t")
	}
	return strings.TrimRight(s, " \t")
}

// parseErrorSpec splits the argument of "statement error" and "query
// error": an optional "pgcode XXXXX" followed by an optional regular
// expression for the message.
func parseErrorSpec(spec string) (code, pattern, problem string) {
	if rest, ok := strings.CutPrefix(spec, "pgcode"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
		rest = strings.TrimLeft(rest, " \t")
		code, pattern, _ = strings.Cut(rest, " ")
		if !validSQLState(code) {
			return "", "", fmt.Sprintf("pgcode needs a five-character SQLSTATE, not %q", code)
		}
		return code, strings.TrimSpace(pattern), ""
	}
	return "", spec, ""
}

func validSQLState(s string) bool {
	if len(s) != 5 {
		return false
	}
	for i := 0; i < 5; i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}
