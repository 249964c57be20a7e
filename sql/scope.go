package sql

import (
	"iter"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// scopeCol is one column visible to name resolution.
type scopeCol struct {
	table string // range variable (alias or table name); "" for unnamed
	name  string
	idx   int // position in the row the scope describes
	typ   types.Type
	// qualifiedOnly hides the column from unqualified references and from
	// *: the per-side copies of a USING/NATURAL join column.
	qualifiedOnly bool
	// hidden hides the column from * only (row ids, sort keys).
	hidden bool
}

// scope resolves column names for one query level. parent is the scope of
// the enclosing query, searched for correlated references.
type scope struct {
	cols   []scopeCol
	parent *scope
	// tables lists the range variables of the level, to report a
	// reference to a missing one as PostgreSQL does.
	tables map[string]bool
	// lateral marks the scope of the FROM items left of a LATERAL item,
	// one level out from the item: the item's references to them make it
	// the right side of an Apply over them.
	lateral bool
	// lateralOnly marks the scope of the FROM items before a JOIN that
	// holds a LATERAL item, one level out from the JOIN: as in
	// PostgreSQL, the LATERAL items inside may reference them (the JOIN
	// becomes the right side of an Apply over them), but not the JOIN's
	// other parts (its ON clauses, its other items).
	lateralOnly bool
	// enclosing, on the scope of a subquery's SELECT, is the clause of
	// the enclosing query the subquery stands in.
	enclosing *enclosingAggs
	// rowTypes tells what whole-row references to the level's range
	// variables are (bind_record.go); absent: anonymous records.
	rowTypes map[string]rowType
}

// addRowTypes records the whole-row types of range variables.
func (s *scope) addRowTypes(rt map[string]rowType) {
	if len(rt) == 0 {
		return
	}
	if s.rowTypes == nil {
		s.rowTypes = map[string]rowType{}
	}
	for t, r := range rt {
		s.rowTypes[t] = r
	}
}

// findTable finds the level whose range variable table a reference from
// s can see, searching outward as resolve does; depth counts the levels.
func (s *scope) findTable(table string) (sc *scope, depth int, ok bool) {
	for l := range s.outward() {
		if l.visible && l.sc.tables[table] {
			return l.sc, l.depth, true
		}
	}
	return nil, 0, false
}

// scopeLevel is a level a reference searches: depth levels up from the
// reference, and whether the reference may see it.
type scopeLevel struct {
	sc      *scope
	depth   int
	visible bool
}

// outward walks the levels from s up. A lateralOnly level is visible
// only from inside a LATERAL item of its JOIN: when the walk came up
// through the item's lateral scope and no ordinary level since.
func (s *scope) outward() iter.Seq[scopeLevel] {
	return func(yield func(scopeLevel) bool) {
		viaLateral := false
		for depth, sc := 0, s; sc != nil; depth, sc = depth+1, sc.parent {
			visible := !sc.lateralOnly || viaLateral
			switch {
			case sc.lateral:
				viaLateral = true
			case !sc.lateralOnly:
				viaLateral = false
			}
			if !yield(scopeLevel{sc, depth, visible}) {
				return
			}
		}
	}
}

func newScope(parent *scope) *scope {
	return &scope{parent: parent, tables: map[string]bool{}}
}

// width returns the number of columns of the row the scope describes.
func (s *scope) width() int {
	w := 0
	for _, c := range s.cols {
		if c.idx+1 > w {
			w = c.idx + 1
		}
	}
	return w
}

// levelsBetween returns how many levels from is below to, one of its
// ancestors (or nil, above them all), and false when to is not one.
func levelsBetween(from, to *scope) (int, bool) {
	n := 0
	for s := from; s != to; s = s.parent {
		if s == nil {
			return 0, false
		}
		n++
	}
	return n, true
}

// resolve finds a column by optional table qualifier. depth is 0 for the
// current level, n for n levels up; see outward for which levels a
// reference sees.
func (s *scope) resolve(table, name string, pos int) (col scopeCol, depth int, err error) {
	// seen and hidden tell whether table names a range variable the
	// reference can see, or one it cannot.
	seen, hidden := false, false
	for l := range s.outward() {
		sc, level := l.sc, l.depth
		if !l.visible {
			hidden = hidden || table != "" && sc.tables[table]
			continue
		}
		seen = seen || table != "" && sc.tables[table]
		found := -1
		for i, c := range sc.cols {
			if c.name != name {
				continue
			}
			if table == "" && c.qualifiedOnly {
				continue
			}
			if table != "" && c.table != table {
				continue
			}
			if found >= 0 && sc.cols[found].idx != c.idx {
				ref := name
				if table != "" {
					ref = table + "." + name
				}
				return scopeCol{}, 0, pgerr.New(pgerr.AmbiguousColumn, "column reference %q is ambiguous", ref).WithPosition(pos)
			}
			found = i
		}
		if found >= 0 {
			return sc.cols[found], level, nil
		}
		if table != "" && sc.tables[table] {
			// The nearest range variable of that name is the one
			// meant, even when an enclosing query has another with the
			// column: PostgreSQL does not look past it.
			return scopeCol{}, 0, missingQualified(sc.parent, table, name, pos)
		}
	}
	switch {
	case table != "" && seen:
		return scopeCol{}, 0, pgerr.New(pgerr.UndefinedColumn, "column %s.%s does not exist", table, name).WithPosition(pos)
	case hidden:
		return scopeCol{}, 0, pgerr.New(pgerr.UndefinedTable, "invalid reference to FROM-clause entry for table %q", table).
			WithHint("There is an entry for table %q, but it cannot be referenced from this part of the query.", table).WithPosition(pos)
	case table != "":
		return scopeCol{}, 0, pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", table).WithPosition(pos)
	}
	return scopeCol{}, 0, pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", name).WithPosition(pos)
}

// hasLocal reports whether an unqualified name is a column of this
// level's FROM clause (not of an enclosing query's).
func (s *scope) hasLocal(name string) bool {
	for _, c := range s.cols {
		if c.name == name && !c.qualifiedOnly {
			return true
		}
	}
	return false
}

// missingQualified is the error of table.name where table has no such
// column, with PostgreSQL's hint when an enclosing level's range
// variable of that name has one.
func missingQualified(outer *scope, table, name string, pos int) error {
	err := pgerr.New(pgerr.UndefinedColumn, "column %s.%s does not exist", table, name).WithPosition(pos)
	for sc := outer; sc != nil; sc = sc.parent {
		for _, c := range sc.cols {
			if c.table == table && c.name == name {
				return err.WithHint("There is a column named %q in table %q, but it cannot be referenced from this part of the query.", name, table)
			}
		}
	}
	return err
}

// starCols returns the columns * expands to, optionally for one table.
func (s *scope) starCols(table string) []scopeCol {
	var out []scopeCol
	for _, c := range s.cols {
		if c.hidden {
			continue
		}
		if table == "" && c.qualifiedOnly {
			continue
		}
		if table != "" && c.table != table {
			continue
		}
		out = append(out, c)
	}
	return out
}

// shifted returns the columns with their positions moved by off, for the
// right side of a join.
func shifted(cols []scopeCol, off int) []scopeCol {
	out := make([]scopeCol, len(cols))
	for i, c := range cols {
		c.idx += off
		out[i] = c
	}
	return out
}
