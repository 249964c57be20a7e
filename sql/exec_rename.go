package sql

import (
	"context"
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
)

// ALTER TABLE/VIEW/MATERIALIZED VIEW/INDEX/SEQUENCE … RENAME TO and
// RENAME COLUMN.
//
// PostgreSQL's views hold the objects they read by OID, so a rename
// cannot break them. streamdb's views are stored as SQL text and bound
// again on every start, so a rename rewrites the stored definition of
// every view that reads the renamed relation so that it means exactly
// what it meant: a reference to a renamed relation t becomes "new AS t"
// (qualified columns t.x keep their range name), and a relation whose
// column a was renamed is read as "t AS t(…, a, …)", the old name kept
// visible by an alias column list (so a, t.a and * mean what they did,
// and the view's own columns keep their names, as in PostgreSQL). Each
// rewritten definition is bound against the renamed catalog and must
// give the same columns of the same types, or the rename is refused:
// a rename never leaves a definition that no longer binds. A view whose
// query has a WITH item named like the renamed relation is refused too,
// rather than guessing which name means what.

// renameKinds maps ALTER's object type to the kind it names (0 for
// ALTER TABLE, which may rename any relation) and its command tag.
var renameKinds = map[pg_query.ObjectType]struct {
	kind catalog.ObjectKind
	tag  string
}{
	pg_query.ObjectType_OBJECT_TABLE:    {0, "ALTER TABLE"},
	pg_query.ObjectType_OBJECT_VIEW:     {catalog.KindView, "ALTER VIEW"},
	pg_query.ObjectType_OBJECT_MATVIEW:  {catalog.KindMaterializedView, "ALTER MATERIALIZED VIEW"},
	pg_query.ObjectType_OBJECT_INDEX:    {catalog.KindIndex, "ALTER INDEX"},
	pg_query.ObjectType_OBJECT_SEQUENCE: {catalog.KindSequence, "ALTER SEQUENCE"},
}

func (s *session) bindRename(cat *catalog.Catalog, rs *pg_query.RenameStmt) (*boundStmt, error) {
	objType, column := rs.RenameType, ""
	if objType == pg_query.ObjectType_OBJECT_COLUMN {
		objType, column = rs.RelationType, rs.Subname
	}
	k, ok := renameKinds[objType]
	if !ok || rs.Relation == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "this form of ALTER … RENAME is not supported")
	}
	rv, newName, missingOK := rs.Relation, rs.Newname, rs.MissingOk
	return ddl(k.tag, func(ctx context.Context, s *session) error {
		return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			o, ok := tx.Catalog().Lookup(rv.Schemaname, rv.Relname)
			if !ok {
				if missingOK {
					notice(pgerr.New(pgerr.SuccessfulCompletion, "relation %q does not exist, skipping", rv.Relname))
					return nil
				}
				return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", rv.Relname).WithPosition(loc(rv.Location))
			}
			if k.kind != 0 && o.Kind != k.kind {
				return pgerr.New(pgerr.WrongObjectType, "%q is not a %s", o.Name, k.kind)
			}
			if err := requireOwner(tx.Catalog(), s.info.role, o); err != nil {
				return err
			}
			if !undoableKinds[o.Kind] {
				return pgerr.New(pgerr.FeatureNotSupported, "renaming a %s is not supported", o.Kind)
			}
			if column != "" {
				return renameColumn(tx, o, column, newName)
			}
			return renameRelation(tx, o, newName)
		})
	}), nil
}

// renameRelation renames o and rewrites what refers to it by name.
func renameRelation(tx *engine.DDL, o *catalog.Object, newName string) error {
	if o.Name == newName {
		return pgerr.New(pgerr.DuplicateTable, "relation %q already exists", newName)
	}
	if _, taken := tx.Catalog().Lookup(o.Schema, newName); taken {
		return pgerr.New(pgerr.DuplicateTable, "relation %q already exists", newName)
	}
	oldName := o.Name
	n := *o
	n.Name = newName
	n.SQL = rewriteOwnName(o.SQL, newName)
	if err := tx.Replace(o, &n); err != nil {
		return err
	}
	if o.Kind == catalog.KindSequence {
		return renameSequenceDefaults(tx, oldName, newName)
	}
	return rewriteDependents(tx, o.ID, oldName, func(rv *pg_query.RangeVar) {
		rv.Relname = newName
		if rv.Alias == nil {
			rv.Alias = &pg_query.Alias{Aliasname: oldName}
		}
	})
}

// renameColumn renames a column of a table, view or materialized view.
func renameColumn(tx *engine.DDL, o *catalog.Object, oldCol, newCol string) error {
	if o.Kind != catalog.KindTable && o.Kind != catalog.KindView && o.Kind != catalog.KindMaterializedView {
		return pgerr.New(pgerr.WrongObjectType, "%q is not a table, view or materialized view", o.Name)
	}
	pos := columnIndex(o, oldCol)
	if pos < 0 {
		return pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", oldCol)
	}
	if columnIndex(o, newCol) >= 0 {
		return pgerr.New(pgerr.DuplicateColumn, "column %q of relation %q already exists", newCol, o.Name)
	}
	n := *o
	n.Columns = slices.Clone(o.Columns)
	n.Columns[pos].Name = newCol
	names := make([]string, len(n.Columns))
	for i, c := range n.Columns {
		names[i] = c.Name
	}
	switch o.Kind {
	case catalog.KindTable:
		n.SQL = rewriteTableColumn(o.SQL, oldCol, newCol)
		n.Checks = slices.Clone(o.Checks)
		for i, c := range n.Checks {
			text, err := renameInExpr(c.Expr, o.Name, oldCol, newCol)
			if err != nil {
				return err
			}
			n.Checks[i].Expr = text
		}
	default:
		sqlText, err := withColumnAliases(o.SQL, names)
		if err != nil {
			return err
		}
		n.SQL = sqlText
		if n.Plan, err = reboundView(tx.Catalog(), &n); err != nil {
			return err
		}
	}
	if err := tx.Replace(o, &n); err != nil {
		return err
	}
	for _, d := range tx.Catalog().Dependents(o.ID) {
		if d.Kind == catalog.KindIndex && d.On == o.ID {
			idx := *d
			idx.Columns = slices.Clone(d.Columns)
			for i, k := range d.KeyCols {
				idx.Columns[i].Name = n.Columns[k].Name
			}
			idx.SQL = rewriteIndexColumn(d.SQL, oldCol, newCol)
			if err := tx.Replace(d, &idx); err != nil {
				return err
			}
		}
	}
	return rewriteDependents(tx, o.ID, o.Name, func(rv *pg_query.RangeVar) {
		if rv.Alias == nil {
			rv.Alias = &pg_query.Alias{Aliasname: rv.Relname}
		}
		cols := rv.Alias.Colnames
		if len(cols) > pos {
			return // the alias names the column already
		}
		for i := len(cols); i <= pos; i++ {
			name := names[i]
			if i == pos {
				name = oldCol
			}
			cols = append(cols, pg_query.MakeStrNode(name))
		}
		rv.Alias.Colnames = cols
	})
}

// rewriteDependents rewrites, with fix, every reference to relation id
// (named name) in the definitions of the views that read it, checking
// that each still binds to the same columns.
func rewriteDependents(tx *engine.DDL, id uint64, name string, fix func(rv *pg_query.RangeVar)) error {
	for _, d := range tx.Catalog().Dependents(id) {
		if d.Kind != catalog.KindView && d.Kind != catalog.KindMaterializedView {
			continue
		}
		tree, err := pg_query.Parse(d.SQL)
		if err != nil || len(tree.Stmts) != 1 {
			return pgerr.New(pgerr.DataCorrupted, "stored definition of %s %q does not parse", d.Kind, d.Name)
		}
		query := definitionQuery(tree.Stmts[0].Stmt)
		if query == nil {
			return pgerr.New(pgerr.DataCorrupted, "stored definition of %s %q is not a view", d.Kind, d.Name)
		}
		shadowed := false
		walkMessages(query.ProtoReflect(), func(m proto.Message) {
			switch n := m.(type) {
			case *pg_query.CommonTableExpr:
				shadowed = shadowed || n.Ctename == name
			case *pg_query.RangeVar:
				if n.Relname == name && (n.Schemaname == "" || n.Schemaname == d.Schema) {
					fix(n)
				}
			}
		})
		if shadowed {
			return pgerr.New(pgerr.FeatureNotSupported, "cannot rename: %s %q has a WITH query named %q", d.Kind, d.Name, name)
		}
		text, err := deparse(tree.Stmts[0].Stmt)
		if err != nil {
			return err
		}
		n := *d
		n.SQL = text
		if n.Plan, err = reboundView(tx.Catalog(), &n); err != nil {
			return err
		}
		if err := tx.Replace(d, &n); err != nil {
			return err
		}
	}
	return nil
}

// reboundView binds a view's rewritten definition and checks that it
// gives the view's columns, returning its plan.
func reboundView(cat *catalog.Catalog, o *catalog.Object) (planner.Node, error) {
	sel, aliases, err := viewDefinition(o.SQL)
	if err != nil {
		return nil, err
	}
	def, err := viewObject(cat.AsOf(o.ID), o.Kind, o.Name, o.SQL, &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sel}}, aliases)
	if err != nil {
		return nil, pgerr.Wrap(err, pgerr.FeatureNotSupported, "cannot rename: the definition of %s %q would no longer bind: %v", o.Kind, o.Name, err)
	}
	same := len(def.Columns) == len(o.Columns)
	for i := 0; same && i < len(o.Columns); i++ {
		same = def.Columns[i].Name == o.Columns[i].Name && def.Columns[i].Type == o.Columns[i].Type
	}
	if !same {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot rename: the definition of %s %q would change its columns", o.Kind, o.Name)
	}
	return def.Plan, nil
}

// definitionQuery returns the query of a stored CREATE VIEW or CREATE
// MATERIALIZED VIEW statement.
func definitionQuery(stmt *pg_query.Node) *pg_query.Node {
	if vs := stmt.GetViewStmt(); vs != nil {
		return vs.Query
	}
	if ct := stmt.GetCreateTableAsStmt(); ct != nil {
		return ct.Query
	}
	return nil
}

// withColumnAliases gives a stored view definition an explicit list of
// column names, which is how a renamed view column is remembered.
func withColumnAliases(sqlText string, names []string) (string, error) {
	tree, err := pg_query.Parse(sqlText)
	if err != nil || len(tree.Stmts) != 1 {
		return "", pgerr.New(pgerr.DataCorrupted, "stored view definition does not parse")
	}
	stmt := tree.Stmts[0].Stmt
	list := make([]*pg_query.Node, len(names))
	for i, n := range names {
		list[i] = pg_query.MakeStrNode(n)
	}
	switch {
	case stmt.GetViewStmt() != nil:
		stmt.GetViewStmt().Aliases = list
	case stmt.GetCreateTableAsStmt() != nil:
		stmt.GetCreateTableAsStmt().Into.ColNames = list
	default:
		return "", pgerr.New(pgerr.DataCorrupted, "stored view definition is not a view")
	}
	return deparse(stmt)
}

// rewriteOwnName renames the object a stored CREATE statement creates,
// for SHOW CREATE; text that does not parse is kept.
func rewriteOwnName(sqlText, newName string) string {
	return rewriteStmt(sqlText, func(stmt *pg_query.Node) {
		switch {
		case stmt.GetCreateStmt() != nil:
			stmt.GetCreateStmt().Relation.Relname = newName
		case stmt.GetViewStmt() != nil:
			stmt.GetViewStmt().View.Relname = newName
		case stmt.GetCreateTableAsStmt() != nil:
			stmt.GetCreateTableAsStmt().Into.Rel.Relname = newName
		case stmt.GetIndexStmt() != nil:
			stmt.GetIndexStmt().Idxname = newName
		case stmt.GetCreateSeqStmt() != nil:
			stmt.GetCreateSeqStmt().Sequence.Relname = newName
		}
	})
}

// rewriteTableColumn renames a column in a stored CREATE TABLE, for
// SHOW CREATE: its definition and the key lists of its constraints.
func rewriteTableColumn(sqlText, oldCol, newCol string) string {
	return rewriteStmt(sqlText, func(stmt *pg_query.Node) {
		walkMessages(stmt.ProtoReflect(), func(m proto.Message) {
			switch n := m.(type) {
			case *pg_query.ColumnDef:
				if n.Colname == oldCol {
					n.Colname = newCol
				}
			case *pg_query.Constraint:
				for _, k := range n.Keys {
					if s := k.GetString_(); s != nil && s.Sval == oldCol {
						s.Sval = newCol
					}
				}
			case *pg_query.ColumnRef:
				renameColumnRef(n, "", oldCol, newCol)
			}
		})
	})
}

// rewriteIndexColumn renames a key column in a stored CREATE INDEX.
func rewriteIndexColumn(sqlText, oldCol, newCol string) string {
	return rewriteStmt(sqlText, func(stmt *pg_query.Node) {
		walkMessages(stmt.ProtoReflect(), func(m proto.Message) {
			if el, ok := m.(*pg_query.IndexElem); ok && el.Name == oldCol {
				el.Name = newCol
			}
		})
	})
}

// renameInExpr renames column references in a table's CHECK expression.
func renameInExpr(expr, table, oldCol, newCol string) (string, error) {
	tree, err := pg_query.Parse("SELECT " + expr)
	if err != nil {
		return "", err
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	e := sel.TargetList[0].GetResTarget().Val
	walkMessages(e.ProtoReflect(), func(m proto.Message) {
		if cr, ok := m.(*pg_query.ColumnRef); ok {
			renameColumnRef(cr, table, oldCol, newCol)
		}
	})
	return deparseExpr(e)
}

// renameColumnRef renames a reference to column oldCol, bare or
// qualified by table (any qualifier when table is empty).
func renameColumnRef(cr *pg_query.ColumnRef, table, oldCol, newCol string) {
	f := cr.Fields
	last := f[len(f)-1].GetString_()
	if last == nil || last.Sval != oldCol {
		return
	}
	if len(f) == 1 || table == "" || f[len(f)-2].GetString_() != nil && f[len(f)-2].GetString_().Sval == table {
		last.Sval = newCol
	}
}

// rewriteStmt applies fix to the parsed statement and deparses it; text
// that does not parse or deparse is returned unchanged.
func rewriteStmt(sqlText string, fix func(stmt *pg_query.Node)) string {
	tree, err := pg_query.Parse(sqlText)
	if err != nil || len(tree.Stmts) != 1 {
		return sqlText
	}
	fix(tree.Stmts[0].Stmt)
	out, err := deparse(tree.Stmts[0].Stmt)
	if err != nil {
		return sqlText
	}
	return out
}

// renameSequenceDefaults follows a sequence's rename in the defaults
// that call nextval on it.
func renameSequenceDefaults(tx *engine.DDL, oldName, newName string) error {
	for _, t := range tx.Catalog().Objects(catalog.KindTable) {
		var n *catalog.Object
		for i, c := range t.Columns {
			if c.Default != nextvalDefault(oldName) {
				continue
			}
			if n == nil {
				cp := *t
				cp.Columns = slices.Clone(t.Columns)
				n = &cp
			}
			n.Columns[i].Default = nextvalDefault(newName)
		}
		if n != nil {
			if err := tx.Replace(t, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// walkMessages calls fn for every message in m's tree, parents first.
func walkMessages(m protoreflect.Message, fn func(proto.Message)) {
	fn(m.Interface())
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len(); i++ {
				walkMessages(v.List().Get(i).Message(), fn)
			}
		case fd.Message() != nil && !fd.IsMap():
			walkMessages(v.Message(), fn)
		}
		return true
	})
}
