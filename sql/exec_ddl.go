package sql

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// parseTreeVersion is the version stamp deparsing requires, taken from
// the linked parser.
var parseTreeVersion = func() int32 {
	tree, err := pg_query.Parse("SELECT")
	if err != nil {
		return 0
	}
	return tree.Version
}()

// deparse renders a statement node back to SQL text.
func deparse(stmt *pg_query.Node) (string, error) {
	return pg_query.Deparse(&pg_query.ParseResult{Version: parseTreeVersion, Stmts: []*pg_query.RawStmt{{Stmt: stmt}}})
}

// deparseExpr renders an expression node back to SQL text.
func deparseExpr(e *pg_query.Node) (string, error) {
	sel := &pg_query.SelectStmt{TargetList: []*pg_query.Node{{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{Val: e}}}}}
	s, err := deparse(&pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sel}})
	if err != nil {
		return "", err
	}
	return strings.TrimPrefix(s, "SELECT "), nil
}

// checkSchema accepts only the public schema for new objects.
func checkSchema(rv *pg_query.RangeVar) error {
	if rv.Schemaname != "" && rv.Schemaname != catalog.DefaultSchema {
		return pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", rv.Schemaname).WithPosition(loc(rv.Location))
	}
	return nil
}

// ddl builds a catalog change's statement. A statement that creates an
// object (but an index, which needs its table's ownership instead, and a
// role, which needs CREATEROLE) needs CREATE on the database.
func ddl(tag string, fn func(ctx context.Context, s *session) error) *boundStmt {
	return &boundStmt{run: func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
		if err := s.ddlAllowed(tag); err != nil {
			return nil, err
		}
		if strings.HasPrefix(tag, "CREATE ") && tag != "CREATE INDEX" && tag != "CREATE ROLE" {
			if err := requireCreate(s.e.snapshot().Catalog(), s.info.role); err != nil {
				return nil, err
			}
		}
		if err := fn(ctx, s); err != nil {
			return nil, err
		}
		return commandResult(tag), nil
	}}
}

func (s *session) bindCreateTable(cat *catalog.Catalog, raw *rawStatement, cs *pg_query.CreateStmt) (*boundStmt, error) {
	return s.bindCreateTableWith(cat, raw, cs, nil)
}

// bindCreateTableWith binds CREATE TABLE with streamdb's event-time
// clauses, when ext is set.
func (s *session) bindCreateTableWith(cat *catalog.Catalog, raw *rawStatement, cs *pg_query.CreateStmt, ext *parser.CreateTable) (*boundStmt, error) {
	rv := cs.Relation
	if err := checkSchema(rv); err != nil {
		return nil, err
	}
	if rv.Relpersistence == "t" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "temporary tables are not supported")
	}
	if len(cs.InhRelations) > 0 || cs.Partspec != nil || cs.OfTypename != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "table inheritance, partitioning and typed tables are not supported")
	}
	obj := &catalog.Object{Kind: catalog.KindTable, Schema: catalog.DefaultSchema, Name: rv.Relname, SQL: raw.text}
	b := newBinder(cat, &s.info, nil)
	var pk []string
	var uniques []uniqueSpec
	var owned []ownedSequence // serial and identity columns' sequences
	checkN := 0
	addCheck := func(name string, expr *pg_query.Node) error {
		text, err := deparseExpr(expr)
		if err != nil {
			return err
		}
		checkN++
		if name == "" {
			name = fmt.Sprintf("%s_check", obj.Name)
			if checkN > 1 {
				name = fmt.Sprintf("%s_check%d", obj.Name, checkN-1)
			}
		}
		obj.Checks = append(obj.Checks, catalog.CheckDef{Name: name, Expr: text})
		return nil
	}
	for _, el := range cs.TableElts {
		switch {
		case el.GetColumnDef() != nil:
			cd := el.GetColumnDef()
			for _, c := range obj.Columns {
				if c.Name == cd.Colname {
					return nil, pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", cd.Colname).WithPosition(loc(cd.Location))
				}
			}
			t, serial := serialType(cd.TypeName)
			if serial {
				owned = append(owned, ownedSequence{column: cd.Colname, typ: t})
				cd.IsNotNull = true
			} else {
				var err error
				if t, err = b.bindType(cd.TypeName); err != nil {
					return nil, err
				}
				if err := storableType(cd.Colname, t); err != nil {
					return nil, withPosition(err, loc(cd.Location))
				}
			}
			col := catalog.ColumnDef{Name: cd.Colname, Type: t, NotNull: cd.IsNotNull}
			for _, cn := range cd.Constraints {
				c := cn.GetConstraint()
				switch c.Contype {
				case pg_query.ConstrType_CONSTR_NOTNULL:
					col.NotNull = true
				case pg_query.ConstrType_CONSTR_NULL:
				case pg_query.ConstrType_CONSTR_DEFAULT:
					text, err := deparseExpr(c.RawExpr)
					if err != nil {
						return nil, err
					}
					col.Default = text
				case pg_query.ConstrType_CONSTR_PRIMARY:
					if len(pk) > 0 {
						return nil, pgerr.New(pgerr.InvalidTableDefinition, "multiple primary keys for table %q are not allowed", obj.Name).WithPosition(loc(c.Location))
					}
					pk = []string{cd.Colname}
				case pg_query.ConstrType_CONSTR_CHECK:
					if err := addCheck(c.Conname, c.RawExpr); err != nil {
						return nil, err
					}
				case pg_query.ConstrType_CONSTR_UNIQUE:
					uniques = append(uniques, uniqueSpec{name: c.Conname, cols: []string{cd.Colname}})
				case pg_query.ConstrType_CONSTR_IDENTITY:
					if serial || len(owned) > 0 && owned[len(owned)-1].column == cd.Colname {
						return nil, pgerr.New(pgerr.SyntaxError, "multiple identity specifications for column %q of table %q", cd.Colname, obj.Name).WithPosition(loc(c.Location))
					}
					if f := t.Family; f != types.Int2 && f != types.Int4 && f != types.Int8 {
						return nil, pgerr.New(pgerr.InvalidParameterValue, "identity column type must be smallint, integer, or bigint").WithPosition(loc(c.Location))
					}
					owned = append(owned, ownedSequence{column: cd.Colname, typ: t, opts: c.Options})
					col.NotNull, col.Identity = true, c.GeneratedWhen
				default:
					return nil, unsupportedConstraint(c)
				}
			}
			obj.Columns = append(obj.Columns, col)
		case el.GetConstraint() != nil:
			c := el.GetConstraint()
			switch c.Contype {
			case pg_query.ConstrType_CONSTR_PRIMARY:
				if len(pk) > 0 {
					return nil, pgerr.New(pgerr.InvalidTableDefinition, "multiple primary keys for table %q are not allowed", obj.Name).WithPosition(loc(c.Location))
				}
				pk = nameList(c.Keys)
			case pg_query.ConstrType_CONSTR_CHECK:
				if err := addCheck(c.Conname, c.RawExpr); err != nil {
					return nil, err
				}
			case pg_query.ConstrType_CONSTR_UNIQUE:
				uniques = append(uniques, uniqueSpec{name: c.Conname, cols: nameList(c.Keys)})
			default:
				return nil, unsupportedConstraint(c)
			}
		default:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "LIKE and other table elements are not supported")
		}
	}
	for _, name := range pk {
		idx := columnIndex(obj, name)
		if idx < 0 {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column %q named in key does not exist", name)
		}
		obj.PrimaryKey = append(obj.PrimaryKey, idx)
		obj.Columns[idx].NotNull = true
	}
	for i := range uniques {
		for _, name := range uniques[i].cols {
			idx := columnIndex(obj, name)
			if idx < 0 {
				return nil, pgerr.New(pgerr.UndefinedColumn, "column %q named in key does not exist", name)
			}
			uniques[i].keyCols = append(uniques[i].keyCols, idx)
		}
	}
	// Defaults and checks must bind now, not at the first INSERT.
	for _, c := range obj.Columns {
		if _, err := b.columnDefault(c); err != nil {
			return nil, err
		}
	}
	if _, err := b.checkExprs(obj); err != nil {
		return nil, err
	}
	if ext != nil {
		if err := s.tableEventTime(b, obj, ext); err != nil {
			return nil, err
		}
	}
	ifNotExists := cs.IfNotExists
	return ddl("CREATE TABLE", func(ctx context.Context, s *session) error {
		return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			if taken, err := tx.NameTaken(obj.Name, ifNotExists, notice); taken || err != nil {
				return err
			}
			o := *obj
			o.ID = tx.NextID()
			o.Columns = slices.Clone(obj.Columns)
			var seqs []*catalog.Object
			for _, sq := range owned {
				seq, err := sq.object(tx, &o)
				if err != nil {
					return err
				}
				i := columnIndex(&o, sq.column)
				o.Columns[i].Default, o.Columns[i].NotNull = nextvalDefault(seq.Name), true
				seqs = append(seqs, seq)
			}
			if err := tx.Create(ctx, &o); err != nil {
				return err
			}
			if o.LateData == catalog.LateDeadLetter {
				if err := tx.Create(ctx, tableErrorsRelation(&o, tx.NextID())); err != nil {
					return err
				}
			}
			for _, seq := range seqs {
				if err := tx.Create(ctx, seq); err != nil {
					return err
				}
			}
			for _, u := range uniques {
				if err := tx.Create(ctx, u.index(tx, &o)); err != nil {
					return err
				}
			}
			return nil
		})
	}), nil
}

// columnIndex returns the position of a column, -1 when there is none.
func columnIndex(obj *catalog.Object, name string) int {
	for i, c := range obj.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// uniqueSpec is a UNIQUE constraint of CREATE TABLE. Like PostgreSQL,
// streamdb implements it as a unique index named after the constraint.
type uniqueSpec struct {
	name    string
	cols    []string
	keyCols []int
}

// index returns the unique index of the constraint on table t, named as
// PostgreSQL names it when the constraint has no name: table_cols_key,
// with a number appended while the name is taken.
func (u uniqueSpec) index(tx *engine.DDL, t *catalog.Object) *catalog.Object {
	name := u.name
	if name == "" {
		base := t.Name + "_" + strings.Join(u.cols, "_") + "_key"
		name = base
		for n := 1; ; n++ {
			if _, taken := tx.Catalog().Lookup(catalog.DefaultSchema, name); !taken {
				break
			}
			name = base + strconv.Itoa(n)
		}
	}
	quoted := make([]string, len(u.cols))
	for i, c := range u.cols {
		quoted[i] = quoteIdentifier(c)
	}
	sql := fmt.Sprintf("CREATE UNIQUE INDEX %s ON %s (%s)", quoteIdentifier(name), quoteIdentifier(t.Name), strings.Join(quoted, ", "))
	idx := &catalog.Object{Kind: catalog.KindIndex, Schema: catalog.DefaultSchema, Name: name, SQL: sql, On: t.ID, KeyCols: u.keyCols, Unique: true, Constraint: true, DependsOn: []uint64{t.ID}, ID: tx.NextID()}
	for _, k := range u.keyCols {
		idx.Columns = append(idx.Columns, t.Columns[k])
	}
	return idx
}

func unsupportedConstraint(c *pg_query.Constraint) error {
	what := "this constraint"
	switch c.Contype {
	case pg_query.ConstrType_CONSTR_UNIQUE:
		what = "UNIQUE constraints"
	case pg_query.ConstrType_CONSTR_FOREIGN:
		what = "FOREIGN KEY constraints"
	case pg_query.ConstrType_CONSTR_EXCLUSION:
		what = "EXCLUDE constraints"
	case pg_query.ConstrType_CONSTR_IDENTITY, pg_query.ConstrType_CONSTR_GENERATED:
		what = "identity and generated columns"
	}
	return pgerr.New(pgerr.FeatureNotSupported, "%s are not supported", what).WithPosition(loc(c.Location))
}

// viewDefinition extracts the defining query and column aliases from a
// CREATE VIEW or CREATE MATERIALIZED VIEW statement, which is what the
// catalog stores: views are rebound from it on every start.
func viewDefinition(sqlText string) (*pg_query.SelectStmt, []string, error) {
	raws, err := parseQuery(sqlText)
	if err != nil {
		return nil, nil, err
	}
	if len(raws) == 1 {
		if mv, ok := raws[0].ours.(*parser.CreateMaterializedView); ok {
			return viewDefinition(mv.View.Text)
		}
	}
	if len(raws) == 1 && raws[0].node != nil {
		if vs := raws[0].node.GetViewStmt(); vs != nil && vs.Query.GetSelectStmt() != nil {
			return vs.Query.GetSelectStmt(), nameList(vs.Aliases), nil
		}
		if ct := raws[0].node.GetCreateTableAsStmt(); ct != nil && ct.Query.GetSelectStmt() != nil {
			return ct.Query.GetSelectStmt(), nameList(ct.Into.ColNames), nil
		}
	}
	return nil, nil, pgerr.New(pgerr.DataCorrupted, "stored view definition is not a CREATE VIEW statement: %s", sqlText)
}

// bindViewQuery binds a view's defining query against a catalog, in the
// view context: no parameters, no statement-time functions, the settings
// of vb (the defaults when nil).
func bindViewQuery(cat *catalog.Catalog, sel *pg_query.SelectStmt, vb *viewBinding) (*boundQuery, []uint64, error) {
	if vb == nil {
		vb = &viewBinding{settings: newSettings("streamdb")}
	}
	b := newBinder(cat, &sessionInfo{user: "streamdb", current: "streamdb", database: "streamdb", settings: vb.settings}, nil)
	b.inView, b.view = true, vb
	bq, err := b.selectStmt(sel, nil)
	if err != nil {
		return nil, nil, err
	}
	if len(b.params) > 0 {
		return nil, nil, pgerr.New(pgerr.UndefinedParameter, "there is no parameter $1")
	}
	return bq, b.dependencies(), nil
}

// viewObject binds a view definition and builds its catalog entry. A
// new view binds as vb says (its session's settings, see
// newViewBinding) and is stored as storeView says; a stored one (vb nil)
// with the settings its statement names.
func viewObject(cat *catalog.Catalog, kind catalog.ObjectKind, name, sqlText string, query *pg_query.Node, aliases []string, vb *viewBinding) (*catalog.Object, error) {
	sel := query.GetSelectStmt()
	if sel == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "a view must be defined by a SELECT")
	}
	isNew := vb != nil
	if !isNew {
		vb = storedViewBinding(sqlText)
	}
	bq, deps, err := bindViewQuery(cat, sel, vb)
	if err != nil {
		return nil, err
	}
	cols := bq.columns()
	if len(aliases) > len(cols) {
		return nil, pgerr.New(pgerr.SyntaxError, "CREATE VIEW specifies more column names than columns")
	}
	plan, err := planner.Optimize(queryNode(bq.q))
	if err != nil {
		return nil, err
	}
	plan = pinPlan(plan, vb)
	eowc := emitsOnClose(sqlText)
	if isNew {
		sqlText = storeView(sqlText, vb)
	}
	obj := &catalog.Object{Kind: kind, Schema: catalog.DefaultSchema, Name: name, SQL: sqlText, DependsOn: deps, Plan: plan}
	seen := map[string]bool{}
	for i, c := range cols {
		n := c.Name
		if i < len(aliases) {
			n = aliases[i]
		}
		if seen[n] {
			return nil, pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", n)
		}
		seen[n] = true
		obj.Columns = append(obj.Columns, catalog.ColumnDef{Name: n, Type: c.Type})
	}
	if len(aliases) > 0 || hasRenamed(obj, plan) {
		obj.Plan = renameColumns(plan, obj)
	}
	if eowc {
		if obj.Plan, err = emitOnClose(obj.Plan); err != nil {
			return nil, err
		}
	}
	return obj, nil
}

func hasRenamed(obj *catalog.Object, plan planner.Node) bool {
	for i, c := range plan.Columns() {
		if c.Name != obj.Columns[i].Name {
			return true
		}
	}
	return false
}

// renameColumns gives a plan the view's column names.
func renameColumns(plan planner.Node, obj *catalog.Object) planner.Node {
	cols := plan.Columns()
	exprs := make([]scalar.Expr, len(cols))
	for i, c := range cols {
		exprs[i] = &scalar.ColRef{Idx: i, Typ: c.Type}
	}
	return &planner.Project{Input: plan, Exprs: exprs, Cols: obj.PlanColumns()}
}

func (s *session) bindCreateView(cat *catalog.Catalog, raw *rawStatement, vs *pg_query.ViewStmt) (*boundStmt, error) {
	if err := checkSchema(vs.View); err != nil {
		return nil, err
	}
	if vs.View.Relpersistence == "t" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "temporary views are not supported")
	}
	name, aliases, replace := vs.View.Relname, nameList(vs.Aliases), vs.Replace
	return ddl("CREATE VIEW", func(ctx context.Context, s *session) error {
		return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			obj, err := viewObject(tx.Catalog(), catalog.KindView, name, raw.text, vs.Query, aliases, newViewBinding(s.info.settings, raw))
			if err != nil {
				return err
			}
			if old, exists := tx.Catalog().Lookup(catalog.DefaultSchema, name); exists {
				if !replace || old.Kind != catalog.KindView {
					if old.Kind != catalog.KindView && replace {
						return pgerr.New(pgerr.WrongObjectType, "%q is not a view", name)
					}
					return tx.Catalog().NameTaken(old)
				}
				if err := compatibleReplacement(old, obj, tx.Catalog()); err != nil {
					return err
				}
				tx.Drop(old)
				obj.ID = old.ID
				return tx.Create(ctx, obj)
			}
			obj.ID = tx.NextID()
			return tx.Create(ctx, obj)
		})
	}), nil
}

// compatibleReplacement enforces PostgreSQL's rule for CREATE OR REPLACE
// VIEW: the new query keeps the old columns (it may add more at the end),
// and objects that depend on the view keep working.
func compatibleReplacement(old, repl *catalog.Object, cat *catalog.Catalog) error {
	if len(repl.Columns) < len(old.Columns) {
		return pgerr.New(pgerr.InvalidTableDefinition, "cannot drop columns from view")
	}
	for i, c := range old.Columns {
		if repl.Columns[i].Name != c.Name {
			return pgerr.New(pgerr.InvalidTableDefinition, "cannot change name of view column %q to %q", c.Name, repl.Columns[i].Name).
				WithHint("Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead.")
		}
		if repl.Columns[i].Type != c.Type {
			return pgerr.New(pgerr.InvalidTableDefinition, "cannot change data type of view column %q from %s to %s", c.Name, c.Type, repl.Columns[i].Type)
		}
	}
	if deps := cat.Dependents(old.ID); len(deps) > 0 {
		return pgerr.New(pgerr.FeatureNotSupported, "cannot replace view %q: %s %q depends on it", old.Name, deps[0].Kind, deps[0].Name).
			WithHint("Drop the dependent objects first.")
	}
	return nil
}

func (s *session) bindCreateTableAs(cat *catalog.Catalog, raw *rawStatement, ct *pg_query.CreateTableAsStmt) (*boundStmt, error) {
	into := ct.Into
	if err := checkSchema(into.Rel); err != nil {
		return nil, err
	}
	if ct.Objtype != pg_query.ObjectType_OBJECT_MATVIEW {
		return s.bindCreateTableAsSelect(raw, ct)
	}
	if into.SkipData {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "WITH NO DATA is not supported: materialized views are always current")
	}
	name, aliases, ifNotExists := into.Rel.Relname, nameList(into.ColNames), ct.IfNotExists
	return ddl("CREATE MATERIALIZED VIEW", func(ctx context.Context, s *session) error {
		return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			if taken, err := tx.NameTaken(name, ifNotExists, notice); taken || err != nil {
				return err
			}
			obj, err := viewObject(tx.Catalog(), catalog.KindMaterializedView, name, raw.text, ct.Query, aliases, newViewBinding(s.info.settings, raw))
			if err != nil {
				return err
			}
			// The view's query runs now, and on as it is maintained, as
			// its creator: who must be able to read what it reads.
			if err := checkRead(tx.Catalog(), s.info.role, obj.DependsOn); err != nil {
				return err
			}
			obj.ID = tx.NextID()
			return tx.Create(ctx, obj)
		})
	}), nil
}

func (s *session) bindCreateIndex(cat *catalog.Catalog, raw *rawStatement, is *pg_query.IndexStmt) (*boundStmt, error) {
	if err := checkSchema(is.Relation); err != nil {
		return nil, err
	}
	if is.WhereClause != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "partial indexes are not supported")
	}
	if is.AccessMethod != "" && is.AccessMethod != "btree" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "access method %q is not supported", is.AccessMethod)
	}
	on, ok := cat.Lookup(is.Relation.Schemaname, is.Relation.Relname)
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", is.Relation.Relname).WithPosition(loc(is.Relation.Location))
	}
	if on.Kind != catalog.KindTable && on.Kind != catalog.KindMaterializedView {
		return nil, pgerr.New(pgerr.WrongObjectType, "cannot create index on %s %q", on.Kind, on.Name)
	}
	if is.Unique && on.Kind != catalog.KindTable {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "unique indexes are only supported on tables")
	}
	var keyCols []int
	var names []string
	for _, p := range is.IndexParams {
		el := p.GetIndexElem()
		if el.Expr != nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "indexes on expressions are not supported")
		}
		idx := -1
		for i, c := range on.Columns {
			if c.Name == el.Name {
				idx = i
			}
		}
		if idx < 0 {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", el.Name)
		}
		keyCols = append(keyCols, idx)
		names = append(names, el.Name)
	}
	name := is.Idxname
	if name == "" {
		name = on.Name + "_" + strings.Join(names, "_") + "_idx"
	}
	obj := &catalog.Object{Kind: catalog.KindIndex, Schema: catalog.DefaultSchema, Name: name, SQL: raw.text, On: on.ID, KeyCols: keyCols, Unique: is.Unique, DependsOn: []uint64{on.ID}}
	for _, k := range keyCols {
		obj.Columns = append(obj.Columns, on.Columns[k])
	}
	ifNotExists := is.IfNotExists
	return ddl("CREATE INDEX", func(ctx context.Context, s *session) error {
		return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			if taken, err := tx.NameTaken(name, ifNotExists, notice); taken || err != nil {
				return err
			}
			on, ok := tx.Catalog().ByID(obj.On)
			if !ok {
				return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", is.Relation.Relname)
			}
			if err := requireOwner(tx.Catalog(), s.info.role, on); err != nil {
				return err
			}
			o := *obj
			o.ID, o.Owner = tx.NextID(), on.OwnerID()
			return tx.Create(ctx, &o)
		})
	}), nil
}

// dropKinds maps DROP's object type to our kinds and the command tag.
func dropKind(t pg_query.ObjectType) (catalog.ObjectKind, string, bool) {
	switch t {
	case pg_query.ObjectType_OBJECT_TABLE:
		return catalog.KindTable, "DROP TABLE", true
	case pg_query.ObjectType_OBJECT_VIEW:
		return catalog.KindView, "DROP VIEW", true
	case pg_query.ObjectType_OBJECT_MATVIEW:
		return catalog.KindMaterializedView, "DROP MATERIALIZED VIEW", true
	case pg_query.ObjectType_OBJECT_INDEX:
		return catalog.KindIndex, "DROP INDEX", true
	case pg_query.ObjectType_OBJECT_SEQUENCE:
		return catalog.KindSequence, "DROP SEQUENCE", true
	}
	return 0, "", false
}

func (s *session) bindDrop(ds *pg_query.DropStmt) (*boundStmt, error) {
	kind, tag, ok := dropKind(ds.RemoveType)
	if !ok {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "DROP of this object type is not supported")
	}
	var names [][]string
	for _, o := range ds.Objects {
		names = append(names, nameList(o.GetList().GetItems()))
	}
	cascade := ds.Behavior == pg_query.DropBehavior_DROP_CASCADE
	missingOK := ds.MissingOk
	b := ddl(tag, func(ctx context.Context, s *session) error {
		return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			for _, parts := range names {
				schema, name := "", parts[len(parts)-1]
				if len(parts) > 1 {
					schema = parts[len(parts)-2]
				}
				obj, ok := tx.Catalog().Lookup(schema, name)
				if !ok {
					if missingOK {
						notice(pgerr.New(pgerr.SuccessfulCompletion, "%s %q does not exist, skipping", kind, name))
						continue
					}
					return errUndefinedObject(kind, name)
				}
				if obj.Kind != kind {
					return errWrongKind(name, kind, obj.Kind)
				}
				if err := requireOwner(tx.Catalog(), s.info.role, obj); err != nil {
					return err
				}
				if obj.Kind == catalog.KindSequence && obj.On != 0 {
					if t, ok := tx.Catalog().ByID(obj.On); ok {
						return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop sequence %s because other objects depend on it", obj.Name).
							WithDetail("default value for a column of table %s depends on sequence %s", t.Name, obj.Name).
							WithHint("Drop the table, which drops its sequences.")
					}
				}
				if err := dropWithDependents(tx, obj, cascade, notice); err != nil {
					return err
				}
			}
			return nil
		})
	})
	b.catalogIndependent = true
	return b, nil
}

// dropWithDependents drops obj and, with CASCADE, everything that depends
// on it; without CASCADE a dependent view or materialized view blocks the
// drop (indexes are always dropped with what they index).
func dropWithDependents(tx *engine.DDL, obj *catalog.Object, cascade bool, notice func(*pgerr.Error)) error {
	all := map[uint64]*catalog.Object{}
	var visit func(o *catalog.Object)
	visit = func(o *catalog.Object) {
		for _, d := range tx.Catalog().Dependents(o.ID) {
			if _, seen := all[d.ID]; !seen {
				all[d.ID] = d
				visit(d)
			}
		}
	}
	visit(obj)
	var deps []*catalog.Object
	for _, d := range all {
		deps = append(deps, d)
	}
	sort.Slice(deps, func(i, j int) bool { return deps[i].ID > deps[j].ID })
	owned := func(d *catalog.Object) bool {
		return d.Kind == catalog.KindIndex || d.Kind == catalog.KindSubsource && d.Source == obj.ID || d.Kind == catalog.KindSequence && d.On == obj.ID
	}
	if !cascade {
		for _, d := range deps {
			if !owned(d) {
				return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop %s %s because other objects depend on it", obj.Kind, obj.Name).
					WithDetail("%s %s depends on %s %s", d.Kind, d.Name, obj.Kind, obj.Name).
					WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
			}
		}
	}
	for _, d := range deps {
		if !owned(d) {
			notice(pgerr.New(pgerr.SuccessfulCompletion, "drop cascades to %s %s", d.Kind, d.Name))
		}
		tx.Drop(d)
	}
	tx.Drop(obj)
	return nil
}
