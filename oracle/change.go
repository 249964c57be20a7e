package oracle

import (
	"fmt"
	"strings"
)

// changer generates INSERT, UPDATE and DELETE statements against the
// model of every table, applying each to the model as it goes.
type changer struct {
	r      rng
	tables []*tableState
	// maxRows bounds the rows one INSERT writes.
	maxRows int
}

func newChanger(r rng, tables []*Table, maxRows int) *changer {
	c := &changer{r: r, maxRows: maxRows}
	for _, t := range tables {
		c.tables = append(c.tables, &tableState{t: t})
	}
	return c
}

// next returns one statement. Inserts dominate so tables grow; updates
// and deletes mostly target rows that exist; now and then a table is
// emptied entirely, which every view must survive.
func (c *changer) next() string {
	ts := pick(c.r, c.tables)
	if len(ts.rows) == 0 {
		return c.insert(ts)
	}
	switch c.r.weighted(45, 28, 22, 5) {
	case 0:
		return c.insert(ts)
	case 1:
		if s, ok := c.update(ts); ok {
			return s
		}
		return c.insert(ts)
	case 2:
		where := c.where(ts)
		ts.remove(where)
		return "DELETE FROM " + ts.t.Name + ts.whereSQL(where)
	}
	ts.remove(nil)
	return "DELETE FROM " + ts.t.Name
}

// insert writes 1..maxRows rows. A table without key often receives an
// exact copy of a row it holds (duplicates are the multiset case every
// operator must count right); a keyed table only receives fresh keys.
func (c *changer) insert(ts *tableState) string {
	n := c.r.between(1, c.maxRows)
	keys := ts.keys()
	tuples := make([]string, 0, n)
	for range n {
		var row []value
		if len(ts.t.PK) == 0 && len(ts.rows) > 0 && c.r.chance(0.3) {
			row = append([]value(nil), pick(c.r, ts.rows)...)
		} else {
			row = c.freshRow(ts, keys)
		}
		if len(ts.t.PK) > 0 {
			keys[ts.keyOf(row)] = true
		}
		ts.rows = append(ts.rows, row)
		lits := make([]string, len(row))
		for i, v := range row {
			lits[i] = v.literal(ts.colType(i))
		}
		tuples = append(tuples, "("+strings.Join(lits, ", ")+")")
	}
	return fmt.Sprintf("INSERT INTO %s VALUES %s", ts.t.Name, strings.Join(tuples, ", "))
}

// freshRow draws a row whose primary key is not in keys. Key domains are
// small, so after a few collisions the first key column steps past the
// largest value in use.
func (c *changer) freshRow(ts *tableState, keys map[string]bool) []value {
	row := make([]value, len(ts.t.Cols))
	for attempt := 0; ; attempt++ {
		for i, col := range ts.t.Cols {
			row[i] = c.r.randomValue(col.Type, !ts.t.inKey(i))
		}
		if len(ts.t.PK) == 0 || !keys[ts.keyOf(row)] {
			return row
		}
		if attempt >= 8 {
			k := ts.t.PK[0]
			for _, other := range ts.rows {
				if other[k].compare(row[k]) >= 0 {
					row[k] = bump(ts.colType(k), other[k])
				}
			}
			if !keys[ts.keyOf(row)] {
				return row
			}
		}
	}
}

// bump returns a value of type t greater than v.
func bump(t typ, v value) value {
	switch t {
	case tText:
		return value{s: v.s + "+"}
	case tNumeric:
		return value{i: v.i + 100, scale: v.scale}
	case tTimestamp:
		return value{i: v.i + 1800}
	}
	return value{i: v.i + 1}
}

// update writes an UPDATE of one or two columns, a third of the time of
// a primary key column on keyed tables. It reports false when no
// statement that keeps the key unique was found.
func (c *changer) update(ts *tableState) (string, bool) {
	for range 10 {
		var set []assign
		cols := c.r.Perm(len(ts.t.Cols))[:c.r.between(1, min(2, len(ts.t.Cols)))]
		if len(ts.t.PK) > 0 && c.r.chance(0.33) {
			cols[0] = pick(c.r, ts.t.PK)
			if len(cols) == 2 && cols[1] == cols[0] {
				cols = cols[:1]
			}
		}
		for _, col := range cols {
			set = append(set, c.assignment(ts, col))
		}
		where := c.where(ts)
		if ts.update(set, where) {
			return "UPDATE " + ts.t.Name + " SET " + ts.setSQL(set) + ts.whereSQL(where), true
		}
	}
	return "", false
}

// assignment draws a new value or an arithmetic step for column col.
func (c *changer) assignment(ts *tableState, col int) assign {
	t := ts.colType(col)
	nullable := !ts.t.inKey(col)
	if c.r.chance(0.5) {
		return assign{col: col, op: "=", v: c.r.randomValue(t, nullable)}
	}
	switch t {
	case tText:
		return assign{col: col, op: "||", v: value{s: pick(c.r, []string{"a", "z", "'"})}}
	case tBool:
		return assign{col: col, op: "not"}
	case tTimestamp:
		return assign{col: col, op: "hours", v: value{i: int64(c.r.between(-30, 30))}}
	case tNumeric:
		return assign{col: col, op: "+", v: value{i: int64(c.r.between(-300, 300)), scale: 2}}
	case tBigint:
		return assign{col: col, op: "+", v: value{i: int64(c.r.between(-5, 5)) * pick(c.r, []int64{1, 1_000_000_000_000})}}
	}
	return assign{col: col, op: "+", v: value{i: int64(c.r.between(-10, 20))}}
}

// where draws a conjunction of up to two conditions, usually built from
// a row that exists so that the statement hits something; an empty
// conjunction (every row) is rare.
func (c *changer) where(ts *tableState) []cond {
	if c.r.chance(0.05) {
		return nil
	}
	var out []cond
	for range c.r.between(1, 2) {
		col := c.r.IntN(len(ts.t.Cols))
		t := ts.colType(col)
		v := c.r.randomValue(t, false)
		if len(ts.rows) > 0 && c.r.chance(0.7) {
			v = pick(c.r, ts.rows)[col]
		}
		switch {
		case v.null:
			out = append(out, cond{col: col, op: pick(c.r, []string{"IS NULL", "IS NOT NULL"})})
		case c.r.chance(0.15):
			out = append(out, cond{col: col, op: "IN", vals: []value{v, c.r.randomValue(t, true), c.r.randomValue(t, true)}})
		default:
			out = append(out, cond{col: col, op: pick(c.r, []string{"=", "=", "=", "<>", "<", ">="}), vals: []value{v}})
		}
	}
	return out
}
