package oracle

import (
	"bufio"
	"fmt"
	"regexp"
	"strings"
)

// A scenario's script is plain SQL that psql runs as it is, with the
// structure in comments:
//
//	-- oracle scenario: seed 7, mode small
//	-- known failure: <bug>          (regression scripts of open bugs)
//	-- check postgres                (views must also agree with PostgreSQL)
//	CREATE TABLE t0 (k int NOT NULL, s text, PRIMARY KEY (k));
//	CREATE MATERIALIZED VIEW v0 AS SELECT …;
//	-- reference v1: SELECT … (SELECT …, date_bin(…) AS window_start …) …
//	CREATE MATERIALIZED VIEW v1 AS SELECT … TUMBLE(t0, ts, …) …;
//	-- tick 1
//	BEGIN;
//	INSERT INTO t0 VALUES (1, 'a'), (2, NULL);
//	UPDATE t0 SET s = 'b' WHERE k = 1;
//	COMMIT;
//	-- restart
//	-- tick 2
//	DELETE FROM t0;
//
// A tick of one statement is written without BEGIN/COMMIT. A statement
// may span lines; it ends with the line that ends with ";". Views are
// compared after they are created, after every tick and after every
// restart.

const (
	knownPrefix = "known failure:"
	// checkPostgres marks a script whose views must also agree with
	// PostgreSQL: for bugs where the view and its query agree on a wrong
	// answer.
	checkPostgres = "check postgres"
	// referencePrefix introduces what a view with windows is checked
	// against (View.Reference).
	referencePrefix = "reference"
)

// Script renders the scenario as a script.
func (s *Scenario) Script() string {
	var b strings.Builder
	for _, n := range s.Notes {
		b.WriteString("-- " + n + "\n")
	}
	if s.Known != "" {
		b.WriteString("-- " + knownPrefix + " " + s.Known + "\n")
	}
	if s.CheckPostgres {
		b.WriteString("-- " + checkPostgres + "\n")
	}
	for _, t := range s.Tables {
		b.WriteString(t + ";\n")
	}
	for _, v := range s.Views {
		if v.Reference != "" {
			fmt.Fprintf(&b, "-- %s %s: %s\n", referencePrefix, v.Name, v.Reference)
		}
		fmt.Fprintf(&b, "CREATE MATERIALIZED VIEW %s AS %s;\n", v.Name, v.Query)
	}
	tick := 0
	for _, st := range s.Steps {
		if st.Restart {
			b.WriteString("-- restart\n")
			continue
		}
		tick++
		fmt.Fprintf(&b, "-- tick %d\n", tick)
		if len(st.Stmts) > 1 {
			b.WriteString("BEGIN;\n")
		}
		for _, q := range st.Stmts {
			b.WriteString(q + ";\n")
		}
		if len(st.Stmts) > 1 {
			b.WriteString("COMMIT;\n")
		}
	}
	return b.String()
}

var viewRE = regexp.MustCompile(`(?is)^CREATE\s+MATERIALIZED\s+VIEW\s+(\w+)\s+AS\s+(.*)$`)

// ParseScript reads a script back. Comment lines other than the
// structural ones are kept as notes when they precede the first
// statement.
func ParseScript(text string) (*Scenario, error) {
	s := &Scenario{}
	var cur *Step
	var pending []string
	refs := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	line := 0
	for sc.Scan() {
		line++
		raw := strings.TrimSpace(sc.Text())
		switch {
		case raw == "" && len(pending) == 0:
			continue
		case strings.HasPrefix(raw, "--") && len(pending) == 0:
			c := strings.TrimSpace(strings.TrimPrefix(raw, "--"))
			switch {
			case c == "restart":
				s.Steps = append(s.Steps, Step{Restart: true})
				cur = nil
			case strings.HasPrefix(c, "tick"):
				s.Steps = append(s.Steps, Step{})
				cur = &s.Steps[len(s.Steps)-1]
			case strings.HasPrefix(c, knownPrefix):
				s.Known = strings.TrimSpace(strings.TrimPrefix(c, knownPrefix))
			case c == checkPostgres:
				s.CheckPostgres = true
			case strings.HasPrefix(c, referencePrefix+" "):
				name, ref, ok := strings.Cut(strings.TrimPrefix(c, referencePrefix+" "), ": ")
				if !ok {
					return nil, fmt.Errorf("line %d: cannot read %q", line, c)
				}
				refs[name] = ref
			case len(s.Tables) == 0 && len(s.Views) == 0 && len(s.Steps) == 0:
				s.Notes = append(s.Notes, c)
			}
			continue
		}
		if len(pending) == 0 {
			pending = append(pending, raw)
		} else {
			pending = append(pending, strings.TrimRight(sc.Text(), " \t\r"))
		}
		if !strings.HasSuffix(raw, ";") {
			continue
		}
		stmt := strings.TrimSuffix(strings.Join(pending, "\n"), ";")
		pending = nil
		upper := strings.ToUpper(stmt)
		switch {
		case upper == "BEGIN" || upper == "COMMIT":
		case strings.HasPrefix(upper, "CREATE TABLE"):
			if len(s.Steps) > 0 {
				return nil, fmt.Errorf("line %d: CREATE TABLE after the first tick", line)
			}
			s.Tables = append(s.Tables, stmt)
		case strings.HasPrefix(upper, "CREATE MATERIALIZED VIEW"):
			m := viewRE.FindStringSubmatch(stmt)
			if m == nil {
				return nil, fmt.Errorf("line %d: cannot read view %q", line, stmt)
			}
			if len(s.Steps) > 0 {
				return nil, fmt.Errorf("line %d: CREATE MATERIALIZED VIEW after the first tick", line)
			}
			s.Views = append(s.Views, View{Name: m[1], Query: m[2], Reference: refs[m[1]]})
		default:
			if cur == nil {
				return nil, fmt.Errorf("line %d: statement outside a tick: %q", line, stmt)
			}
			cur.Stmts = append(cur.Stmts, stmt)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(pending) > 0 {
		return nil, fmt.Errorf("unterminated statement at end of script: %q", strings.Join(pending, " "))
	}
	return s, nil
}
