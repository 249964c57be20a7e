package sql

import (
	"github.com/streamdb/streamdb/sql/pgerr"
	"github.com/streamdb/streamdb/sql/types"
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
	// beforeJoin is, for a LATERAL item inside a JOIN, the scope of the
	// FROM items before that JOIN (its own beforeJoin those before an
	// enclosing JOIN), whose range variables PostgreSQL lets the item
	// reference and streamdb does not.
	beforeJoin *scope
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
// current level, n for n levels up.
func (s *scope) resolve(table, name string, pos int) (col scopeCol, depth int, err error) {
	for level, sc := 0, s; sc != nil; level, sc = level+1, sc.parent {
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
	}
	if table != "" && !s.hasTable(table) {
		for sc := s; sc != nil; sc = sc.parent {
			if sc.joinedBefore(table) {
				return scopeCol{}, 0, pgerr.New(pgerr.FeatureNotSupported, "a LATERAL item inside a JOIN cannot reference %q, a FROM item before the JOIN", table).
					WithHint("Join it inside the JOIN: FROM %s CROSS JOIN … JOIN LATERAL ….", table).WithPosition(pos)
			}
		}
		return scopeCol{}, 0, pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", table).WithPosition(pos)
	}
	if table != "" {
		return scopeCol{}, 0, pgerr.New(pgerr.UndefinedColumn, "column %s.%s does not exist", table, name).WithPosition(pos)
	}
	return scopeCol{}, 0, pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", name).WithPosition(pos)
}

// joinedBefore reports whether a range variable is one of the FROM items
// before a JOIN that s's LATERAL item is inside.
func (s *scope) joinedBefore(t string) bool {
	for b := s.beforeJoin; b != nil; b = b.beforeJoin {
		if b.tables[t] {
			return true
		}
	}
	return false
}

// hasTable reports whether a range variable is visible at any level.
func (s *scope) hasTable(t string) bool {
	for sc := s; sc != nil; sc = sc.parent {
		if sc.tables[t] {
			return true
		}
	}
	return false
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
