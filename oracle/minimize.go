package oracle

import (
	"regexp"
	"slices"
	"strings"
)

// RunFunc runs a scenario on a fresh server, restricted to the named
// views, stopping at the first failure.
type RunFunc func(sc *Scenario, only []string) *Outcome

// Minimize shrinks a scenario that failed with f to a smaller one that
// still fails the same way (same kind, same view): it keeps only that
// view, drops the steps after the failure, then removes steps, statements,
// inserted rows and unused tables for as long as the failure persists
// (delta debugging, one chunk size at a time). It returns nil when the
// reduced scenario does not reproduce the failure at all, which happens
// when the failure depends on another view or is not deterministic.
//
// The query itself is not simplified: that is left to a person, who can
// tell a simpler query from one that merely fails differently.
func Minimize(sc *Scenario, f Failure, run RunFunc) *Scenario {
	var only []string
	if f.View != "" {
		only = []string{f.View}
	}
	fails := func(c *Scenario) bool {
		for _, g := range run(c, only).Failures {
			if g.Kind == f.Kind && g.View == f.View {
				return true
			}
		}
		return false
	}
	cur := &Scenario{Notes: slices.Clone(sc.Notes), Tables: slices.Clone(sc.Tables)}
	for _, v := range sc.Views {
		if v.Name == f.View || f.View == "" {
			cur.Views = append(cur.Views, v)
		}
	}
	if f.Step >= 0 {
		cur.Steps = cloneSteps(sc.Steps[:f.Step+1])
	}
	if !fails(cur) {
		return nil
	}
	with := func(steps []Step) *Scenario {
		c := *cur
		c.Steps = steps
		return &c
	}
	for round := 0; round < 2; round++ {
		before := cur.Script()
		cur.Steps = shrink(cur.Steps, func(s []Step) bool { return fails(with(s)) })
		for i := range cur.Steps {
			if cur.Steps[i].Restart {
				continue
			}
			cur.Steps[i].Stmts = shrink(cur.Steps[i].Stmts, func(s []string) bool {
				steps := cloneSteps(cur.Steps)
				steps[i].Stmts = s
				return fails(with(steps))
			})
			for j := 0; j < len(cur.Steps[i].Stmts); j++ {
				prefix, tuples, ok := splitInsert(cur.Steps[i].Stmts[j])
				if !ok || len(tuples) < 2 {
					continue
				}
				tuples = shrink(tuples, func(ts []string) bool {
					steps := cloneSteps(cur.Steps)
					steps[i].Stmts[j] = prefix + strings.Join(ts, ", ")
					return fails(with(steps))
				})
				cur.Steps[i].Stmts[j] = prefix + strings.Join(tuples, ", ")
			}
		}
		cur = dropTables(cur, fails)
		if cur.Script() == before {
			break
		}
	}
	return cur
}

// shrink removes chunks of xs, halving the chunk size down to single
// elements, keeping each removal after which keep still holds.
func shrink[T any](xs []T, keep func([]T) bool) []T {
	for chunk := max(1, len(xs)/2); ; chunk /= 2 {
		for i := 0; i < len(xs); {
			cand := append(slices.Clone(xs[:i]), xs[min(i+chunk, len(xs)):]...)
			if keep(cand) {
				xs = cand
			} else {
				i += chunk
			}
		}
		if chunk == 1 {
			return xs
		}
	}
}

func cloneSteps(steps []Step) []Step {
	out := make([]Step, len(steps))
	for i, s := range steps {
		out[i] = Step{Restart: s.Restart, Stmts: slices.Clone(s.Stmts)}
	}
	return out
}

var tableNameRE = regexp.MustCompile(`^CREATE TABLE (\w+)`)

// dropTables removes each table, with the statements that write it, if
// the failure persists without it.
func dropTables(cur *Scenario, fails func(*Scenario) bool) *Scenario {
	for i := 0; i < len(cur.Tables); {
		m := tableNameRE.FindStringSubmatch(cur.Tables[i])
		if m == nil {
			i++
			continue
		}
		c := *cur
		c.Tables = slices.Delete(slices.Clone(cur.Tables), i, i+1)
		c.Steps = nil
		for _, st := range cur.Steps {
			var kept []string
			for _, s := range st.Stmts {
				if writtenTable(s) != m[1] {
					kept = append(kept, s)
				}
			}
			c.Steps = append(c.Steps, Step{Restart: st.Restart, Stmts: kept})
		}
		if fails(&c) {
			cur = &c
			continue
		}
		i++
	}
	return cur
}

var writeRE = regexp.MustCompile(`^(?:INSERT INTO|UPDATE|DELETE FROM) (\w+)`)

// writtenTable is the table an INSERT, UPDATE or DELETE writes.
func writtenTable(stmt string) string {
	if m := writeRE.FindStringSubmatch(stmt); m != nil {
		return m[1]
	}
	return ""
}

// splitInsert splits "INSERT INTO t VALUES (…), (…)" into its prefix
// ("INSERT INTO t VALUES ") and its row tuples, reading quoted strings so
// that parentheses and commas inside them do not count.
func splitInsert(stmt string) (string, []string, bool) {
	const kw = " VALUES "
	i := strings.Index(stmt, kw)
	if !strings.HasPrefix(stmt, "INSERT INTO ") || i < 0 {
		return "", nil, false
	}
	prefix, rest := stmt[:i+len(kw)], stmt[i+len(kw):]
	var tuples []string
	depth, start, quoted := 0, -1, false
	for j := 0; j < len(rest); j++ {
		switch c := rest[j]; {
		case quoted:
			if c == '\'' {
				quoted = false // a doubled quote reopens on the next byte
			}
		case c == '\'':
			quoted = true
		case c == '(':
			if depth == 0 {
				start = j
			}
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				tuples = append(tuples, rest[start:j+1])
			}
		}
	}
	return prefix, tuples, depth == 0 && !quoted && len(tuples) > 0
}
