//go:build cgo

package sqllogictest

import (
	"slices"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// incrementalSupported is true when the build links pg_query, which
// incremental mode needs to see which relations a query reads.
const incrementalSupported = true

// volatileFuncs are functions whose result changes between evaluations, so
// a view over them cannot equal the query run later.
var volatileFuncs = map[string]bool{
	"random": true, "setseed": true, "nextval": true, "currval": true,
	"lastval": true, "setval": true, "now": true, "clock_timestamp": true,
	"statement_timestamp": true, "transaction_timestamp": true,
	"timeofday": true, "gen_random_uuid": true, "pg_sleep": true,
	"txid_current": true, "random_normal": true,
}

// analyzeQuery decides whether a query can become a materialized view and
// how: see queryInfo. ncols is the record's column count and sort its sort
// mode, which decide what an ORDER BY means for the view.
func analyzeQuery(sql string, sort SortMode, ncols int) queryInfo {
	tree, err := pg_query.Parse(sql)
	if err != nil {
		return queryInfo{fallback: "does not parse"}
	}
	if len(tree.Stmts) != 1 {
		return queryInfo{fallback: "not a single statement"}
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	switch {
	case sel == nil:
		return queryInfo{fallback: "not a SELECT"}
	case sel.IntoClause != nil:
		return queryInfo{fallback: "SELECT INTO"}
	case len(sel.LockingClause) > 0:
		return queryInfo{fallback: "locking clause"}
	}
	var w treeFacts
	w.walk(tree.ProtoReflect())
	info := queryInfo{body: sql, relations: w.relations()}
	switch {
	case len(info.relations) == 0:
		return queryInfo{fallback: "reads no relation"}
	case w.volatile != "":
		return queryInfo{fallback: "volatile function " + w.volatile}
	case w.timeDependent:
		return queryInfo{fallback: "time-dependent value"}
	}
	if len(sel.SortClause) == 0 {
		return info
	}
	for _, d := range sel.DistinctClause {
		if d.GetNode() != nil {
			// The ORDER BY picks the row DISTINCT ON keeps.
			return queryInfo{fallback: "DISTINCT ON with ORDER BY"}
		}
	}
	limited := sel.LimitCount != nil || sel.LimitOffset != nil
	if sort != NoSort && limited {
		// A top-k view; the runner sorts what it reads.
		return info
	}
	if sort == NoSort {
		// The order matters: read the view with the same ORDER BY over
		// its output columns.
		order, ok := readOrder(sel, ncols)
		if !ok {
			return queryInfo{fallback: "nosort ORDER BY on values that are not output columns"}
		}
		info.readOrder = order
		if limited {
			return info
		}
	}
	// Without LIMIT the ORDER BY only orders the output, which a view
	// does not keep: drop it.
	cut := topLevelOrderBy(sql)
	if cut < 0 {
		return queryInfo{fallback: "ORDER BY not at the top level"}
	}
	info.body = strings.TrimSpace(sql[:cut])
	return info
}

// relationsRead returns the relations a statement reads (for CREATE VIEW,
// the query after AS).
func relationsRead(sql string) []string {
	tree, err := pg_query.Parse(sql)
	if err != nil {
		return nil
	}
	var w treeFacts
	w.walk(tree.ProtoReflect())
	return w.relations()
}

// treeFacts collects what incremental mode needs from a parse tree.
type treeFacts struct {
	rangeVars     []string // unqualified names, qualified ones as "schema.name"
	ctes          map[string]bool
	volatile      string
	timeDependent bool
}

// walk visits every message of the tree through protobuf reflection, which
// reaches every node kind without a hand-written visitor for each.
func (w *treeFacts) walk(m protoreflect.Message) {
	switch n := m.Interface().(type) {
	case *pg_query.RangeVar:
		if n.Schemaname != "" {
			w.rangeVars = append(w.rangeVars, n.Schemaname+"."+n.Relname)
		} else {
			w.rangeVars = append(w.rangeVars, n.Relname)
		}
		return
	case *pg_query.CommonTableExpr:
		if w.ctes == nil {
			w.ctes = make(map[string]bool)
		}
		w.ctes[n.Ctename] = true
	case *pg_query.FuncCall:
		if k := len(n.Funcname); k > 0 {
			if name := n.Funcname[k-1].GetString_().GetSval(); volatileFuncs[name] {
				w.volatile = name
			}
		}
	case *pg_query.SQLValueFunction:
		w.timeDependent = true
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				w.walk(l.Get(i).Message())
			}
		} else if !fd.IsMap() {
			w.walk(v.Message())
		}
		return true
	})
}

// relations returns the distinct relation names read, sorted, without CTE
// names.
// A qualified name is reduced to its last part, matching objectName.key.
func (w *treeFacts) relations() []string {
	var out []string
	seen := make(map[string]bool)
	for _, r := range w.rangeVars {
		if !strings.Contains(r, ".") && w.ctes[r] {
			continue
		}
		if i := strings.LastIndexByte(r, '.'); i >= 0 {
			r = r[i+1:]
		}
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}

// readOrder translates a top-level ORDER BY into one over the view's
// columns c1..cN, for reading a top-k view in the query's order. It
// succeeds when every sort key is an output position or names an output
// column; PostgreSQL resolves a bare name against output names first.
func readOrder(sel *pg_query.SelectStmt, ncols int) (string, bool) {
	names := outputNames(sel)
	items := make([]string, 0, len(sel.SortClause))
	for _, n := range sel.SortClause {
		sb := n.GetSortBy()
		if sb == nil || sb.SortbyDir == pg_query.SortByDir_SORTBY_USING {
			return "", false
		}
		pos := 0
		if c := sb.Node.GetAConst(); c != nil && c.GetIval() != nil {
			pos = int(c.GetIval().Ival)
		} else if cr := sb.Node.GetColumnRef(); cr != nil {
			name := columnRefName(cr)
			for i, out := range names {
				if name != "" && out == name {
					if pos != 0 {
						return "", false // ambiguous
					}
					pos = i + 1
				}
			}
		}
		if pos < 1 || pos > ncols {
			return "", false
		}
		item := "c" + strconv.Itoa(pos)
		switch sb.SortbyDir {
		case pg_query.SortByDir_SORTBY_ASC:
			item += " ASC"
		case pg_query.SortByDir_SORTBY_DESC:
			item += " DESC"
		}
		switch sb.SortbyNulls {
		case pg_query.SortByNulls_SORTBY_NULLS_FIRST:
			item += " NULLS FIRST"
		case pg_query.SortByNulls_SORTBY_NULLS_LAST:
			item += " NULLS LAST"
		}
		items = append(items, item)
	}
	return "ORDER BY " + strings.Join(items, ", "), true
}

// outputNames returns the names of the leading output columns, "" where a
// column has no name of its own; it stops at the first *, after which
// positions are unknown. A set operation takes the names of its leftmost
// SELECT.
func outputNames(sel *pg_query.SelectStmt) []string {
	for sel.Op != pg_query.SetOperation_SETOP_NONE && sel.Larg != nil {
		sel = sel.Larg
	}
	var names []string
	for _, t := range sel.TargetList {
		rt := t.GetResTarget()
		if rt == nil {
			return names
		}
		if rt.Name != "" {
			names = append(names, rt.Name)
			continue
		}
		cr := rt.Val.GetColumnRef()
		if cr == nil {
			names = append(names, "")
			continue
		}
		name := columnRefName(cr)
		if name == "" {
			return names // a star
		}
		names = append(names, name)
	}
	return names
}

// columnRefName returns the column a reference names (its last field), ""
// for a star.
func columnRefName(cr *pg_query.ColumnRef) string {
	if len(cr.Fields) == 0 {
		return ""
	}
	return cr.Fields[len(cr.Fields)-1].GetString_().GetSval()
}
