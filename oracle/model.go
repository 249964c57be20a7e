package oracle

import (
	"strconv"
	"strings"
)

// tableState is the generator's model of a table's contents. The change
// generator consults it to write statements that do something (deletes
// and updates that hit rows) and that cannot fail (inserts and key updates
// that never violate the primary key, even transiently: PostgreSQL checks
// a non-deferrable key row by row, a streaming engine at the end of the
// statement, and a transient clash would make the two disagree for reasons
// that have nothing to do with views).
type tableState struct {
	t    *Table
	rows [][]value
}

// cond is one conjunct of a generated WHERE clause, in a form simple
// enough to evaluate in the model with PostgreSQL's three-valued logic.
type cond struct {
	col  int
	op   string // "=", "<>", "<", ">=", "IS NULL", "IS NOT NULL", "IN"
	vals []value
}

// assign is one SET item of a generated UPDATE.
type assign struct {
	col int
	op  string // "=": set to v; "+": add v (numbers, dates); "||": append v; "hours": add v hours; "not": negate
	v   value
}

func (ts *tableState) colType(i int) typ { return ts.t.Cols[i].Type }

// holds reports whether c is TRUE for row; FALSE and NULL both filter
// the row out.
func (c cond) holds(t typ, row []value) bool {
	v := row[c.col]
	switch c.op {
	case "IS NULL":
		return v.null
	case "IS NOT NULL":
		return !v.null
	}
	if v.null {
		return false
	}
	switch c.op {
	case "IN":
		for _, w := range c.vals {
			if !w.null && v.compare(w) == 0 {
				return true
			}
		}
		return false
	}
	w := c.vals[0]
	if w.null {
		return false
	}
	cmp := v.compare(w)
	switch c.op {
	case "=":
		return cmp == 0
	case "<>":
		return cmp != 0
	case "<":
		return cmp < 0
	case ">=":
		return cmp >= 0
	}
	panic("oracle: unknown condition " + c.op)
}

func (ts *tableState) matches(where []cond, row []value) bool {
	for _, c := range where {
		if !c.holds(ts.colType(c.col), row) {
			return false
		}
	}
	return true
}

// whereSQL renders a conjunction; an empty one matches every row.
func (ts *tableState) whereSQL(where []cond) string {
	if len(where) == 0 {
		return ""
	}
	parts := make([]string, len(where))
	for i, c := range where {
		name := ts.t.Cols[c.col].Name
		t := ts.colType(c.col)
		switch c.op {
		case "IS NULL", "IS NOT NULL":
			parts[i] = name + " " + c.op
		case "IN":
			lits := make([]string, len(c.vals))
			for j, v := range c.vals {
				lits[j] = v.literal(t)
			}
			parts[i] = name + " IN (" + strings.Join(lits, ", ") + ")"
		default:
			parts[i] = name + " " + c.op + " " + c.vals[0].literal(t)
		}
	}
	return " WHERE " + strings.Join(parts, " AND ")
}

// apply computes the new value of an assignment (NULL in, NULL out).
func (a assign) apply(t typ, old value) value {
	switch a.op {
	case "=":
		return a.v
	case "not":
		if old.null {
			return old
		}
		return value{i: 1 - old.i}
	}
	if old.null || a.v.null {
		return null
	}
	switch a.op {
	case "+":
		return value{i: old.i + a.v.i, scale: max(old.scale, a.v.scale)}
	case "hours":
		return value{i: old.i + a.v.i*3600}
	case "||":
		return value{s: old.s + a.v.s}
	}
	panic("oracle: unknown assignment " + a.op)
}

// setSQL renders the SET list.
func (ts *tableState) setSQL(set []assign) string {
	parts := make([]string, len(set))
	for i, a := range set {
		name := ts.t.Cols[a.col].Name
		t := ts.colType(a.col)
		switch a.op {
		case "=":
			parts[i] = name + " = " + a.v.literal(t)
		case "not":
			parts[i] = name + " = NOT " + name
		case "hours":
			parts[i] = name + " = " + name + " + interval '" + a.v.text(tInt) + " hours'"
		case "+":
			lit := a.v.literal(t)
			if t == tDate {
				lit = a.v.literal(tInt) // date + integer days
			}
			parts[i] = name + " = " + name + " + " + lit
		default:
			parts[i] = name + " = " + name + " " + a.op + " " + a.v.literal(t)
		}
	}
	return strings.Join(parts, ", ")
}

// keyOf renders a row's primary key as a map key.
func (ts *tableState) keyOf(row []value) string {
	var b strings.Builder
	for _, k := range ts.t.PK {
		v, t := row[k], ts.colType(k)
		if t == tNumeric {
			// 6 and 6.00 are one key, written differently.
			b.WriteString(strconv.FormatInt(v.i, 10))
		} else {
			b.WriteString(v.text(t))
		}
		b.WriteByte(0)
	}
	return b.String()
}

// keys returns the set of primary keys present.
func (ts *tableState) keys() map[string]bool {
	m := make(map[string]bool, len(ts.rows))
	for _, r := range ts.rows {
		m[ts.keyOf(r)] = true
	}
	return m
}

// update applies an UPDATE to the model. It returns false, changing
// nothing, when the statement would clash with the primary key at any
// point: the new keys of the updated rows must be distinct and absent from
// the table before the statement.
func (ts *tableState) update(set []assign, where []cond) bool {
	next := make([][]value, len(ts.rows))
	touchesKey := false
	for _, a := range set {
		touchesKey = touchesKey || ts.t.inKey(a.col)
	}
	var before, seen map[string]bool
	if touchesKey {
		before, seen = ts.keys(), map[string]bool{}
	}
	for i, row := range ts.rows {
		if !ts.matches(where, row) {
			next[i] = row
			continue
		}
		nr := append([]value(nil), row...)
		for _, a := range set {
			nr[a.col] = a.apply(ts.colType(a.col), row[a.col])
		}
		if touchesKey {
			for _, k := range ts.t.PK {
				if nr[k].null {
					return false
				}
			}
			key := ts.keyOf(nr)
			if before[key] || seen[key] {
				return false
			}
			seen[key] = true
		}
		next[i] = nr
	}
	ts.rows = next
	return true
}

// remove applies a DELETE to the model.
func (ts *tableState) remove(where []cond) {
	kept := ts.rows[:0:0]
	for _, row := range ts.rows {
		if !ts.matches(where, row) {
			kept = append(kept, row)
		}
	}
	ts.rows = kept
}
