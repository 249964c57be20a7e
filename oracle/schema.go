package oracle

import (
	"fmt"
	"strings"
)

// Table is a generated base table.
type Table struct {
	Name string
	Cols []Column
	// PK holds the indexes of the primary key columns; empty for a table
	// without key, whose rows may repeat.
	PK []int
}

// Column is a column of a generated table.
type Column struct {
	Name string
	Type typ
}

// columnPool fixes one type per column name across all tables, so that
// tables share names (NATURAL and USING joins find common columns) and a
// shared name never pairs incompatible types.
var columnPool = []Column{
	{"k", tInt}, {"j", tInt}, {"a", tInt}, {"b", tBigint}, {"n", tNumeric}, {"m", tNumeric},
	{"s", tText}, {"u", tText}, {"p", tBool}, {"d", tDate}, {"ts", tTimestamp},
}

// genSchema draws 2–4 tables of 3–6 columns each; about half get a
// primary key of one or two columns.
func genSchema(r rng) []*Table {
	n := r.between(2, 4)
	tables := make([]*Table, n)
	for i := range tables {
		t := &Table{Name: fmt.Sprintf("t%d", i)}
		want := r.between(3, 6)
		perm := r.Perm(len(columnPool))
		chosen := map[int]bool{}
		if r.chance(0.8) {
			chosen[0] = true // k: the common join column
		}
		for _, p := range perm {
			if len(chosen) >= want {
				break
			}
			chosen[p] = true
		}
		for p, c := range columnPool {
			if chosen[p] {
				t.Cols = append(t.Cols, c)
			}
		}
		switch r.weighted(50, 35, 15) {
		case 1:
			t.PK = []int{keyCandidate(r, t, -1)}
		case 2:
			first := keyCandidate(r, t, -1)
			t.PK = []int{first, keyCandidate(r, t, first)}
		}
		tables[i] = t
	}
	return tables
}

// keyCandidate picks a key column other than except, preferring integers;
// bool columns make poor keys (two rows at most) and are avoided.
func keyCandidate(r rng, t *Table, except int) int {
	var ints, others []int
	for i, c := range t.Cols {
		switch {
		case i == except || c.Type == tBool:
		case c.Type == tInt:
			ints = append(ints, i)
		default:
			others = append(others, i)
		}
	}
	if len(ints) > 0 && (len(others) == 0 || r.chance(0.8)) {
		return pick(r, ints)
	}
	if len(others) > 0 {
		return pick(r, others)
	}
	return 0
}

// inKey reports whether column i is part of the primary key.
func (t *Table) inKey(i int) bool {
	for _, k := range t.PK {
		if k == i {
			return true
		}
	}
	return false
}

// DDL renders the CREATE TABLE statement.
func (t *Table) DDL() string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (", t.Name)
	for i, c := range t.Cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.Name + " " + c.Type.name())
		if t.inKey(i) {
			b.WriteString(" NOT NULL")
		}
	}
	if len(t.PK) > 0 {
		names := make([]string, len(t.PK))
		for i, k := range t.PK {
			names[i] = t.Cols[k].Name
		}
		fmt.Fprintf(&b, ", PRIMARY KEY (%s)", strings.Join(names, ", "))
	}
	b.WriteString(")")
	return b.String()
}
