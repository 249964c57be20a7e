package sql

import (
	"context"
	"strings"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// bindStreamdb binds the statements of streamdb's own grammar.
func (s *session) bindStreamdb(cat *catalog.Catalog, raw *rawStatement, params []types.Type) (*boundStmt, error) {
	switch st := raw.ours.(type) {
	case *parser.Show:
		return s.bindShowListing(cat, st)
	case *parser.ShowCreate:
		return s.bindShowCreate(cat, st)
	case *parser.CreateDefaultIndex:
		return s.bindCreateDefaultIndex(cat, raw, st)
	case *parser.Explain:
		return s.bindExplainFor(cat, st, params)
	case *parser.CreateSource:
		return s.bindCreateSource(raw, st)
	case *parser.CreateConnection:
		return s.bindCreateConnection(raw, st)
	case *parser.CreateSecret:
		return s.bindCreateSecret(st)
	case *parser.AlterSecret:
		return s.bindAlterSecret(st)
	case *parser.AlterOwner:
		return s.bindAlterOwnerOf(st)
	case *parser.Grant:
		return s.bindGrantUsage(st)
	case *parser.AlterSource:
		return s.bindAlterSource(st)
	case *parser.Drop:
		return s.bindDropStreamdb(st)
	case *parser.Subscribe:
		return s.subscribeStmt(cat, st)
	case *parser.CopySubscribe:
		return s.bindCopySubscribe(cat, st)
	case *parser.DeclareSubscribe:
		return s.bindDeclareSubscribe(cat, st)
	case *parser.Fetch:
		return s.bindFetchWith(st)
	case *parser.CreateSink:
		return s.bindCreateSink(raw, st)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "%s is not supported yet", firstWords(raw.text))
}

// firstWords names a statement by its leading keywords, for errors.
func firstWords(sql string) string {
	f := strings.Fields(sql)
	if len(f) > 3 {
		f = f[:3]
	}
	return strings.ToUpper(strings.Join(f, " "))
}

// objectKindOf maps the parser's object kinds to the catalog's.
func objectKindOf(k parser.ObjectKind) (catalog.ObjectKind, bool) {
	switch k {
	case parser.ObjectTable:
		return catalog.KindTable, true
	case parser.ObjectView:
		return catalog.KindView, true
	case parser.ObjectMaterializedView:
		return catalog.KindMaterializedView, true
	case parser.ObjectIndex:
		return catalog.KindIndex, true
	case parser.ObjectSource:
		return catalog.KindSource, true
	case parser.ObjectConnection:
		return catalog.KindConnection, true
	case parser.ObjectSink:
		return catalog.KindSink, true
	}
	return 0, false
}

// resolveName looks up a possibly qualified object name.
func resolveName(cat *catalog.Catalog, n parser.Name) (*catalog.Object, string, bool) {
	schema, name := "", ""
	switch len(n) {
	case 0:
		return nil, "", false
	case 1:
		name = n[0].Value
	default:
		schema, name = n[len(n)-2].Value, n[len(n)-1].Value
	}
	o, ok := cat.Lookup(schema, name)
	return o, name, ok
}

// listing is the result of a SHOW listing before LIKE/WHERE filtering.
type listing struct {
	cols []pgwire.Column
	rows []types.Row
}

func textCols(names ...string) []pgwire.Column {
	cols := make([]pgwire.Column, len(names))
	for i, n := range names {
		cols[i] = pgwire.Column{Name: n, Type: types.TypeText}
	}
	return cols
}

func (s *session) bindShowListing(cat *catalog.Catalog, st *parser.Show) (*boundStmt, error) {
	var cols []pgwire.Column
	var build func(ctx context.Context, cat *catalog.Catalog) (listing, error)
	simple := func(kind catalog.ObjectKind) func(_ context.Context, cat *catalog.Catalog) (listing, error) {
		return func(_ context.Context, cat *catalog.Catalog) (listing, error) {
			l := listing{cols: cols}
			for _, o := range cat.Objects(kind) {
				l.rows = append(l.rows, types.Row{types.NewText(o.Name)})
			}
			return l, nil
		}
	}
	switch st.Kind {
	case parser.ShowTables:
		cols, build = textCols("name"), simple(catalog.KindTable)
	case parser.ShowViews:
		cols, build = textCols("name"), simple(catalog.KindView)
	case parser.ShowMaterializedViews:
		cols, build = materializedViewListing(s.e)
	case parser.ShowObjects:
		cols, build = objectListing(s.e)
	case parser.ShowIndexes:
		cols = textCols("name", "on", "key")
		on := st.On
		build = func(_ context.Context, cat *catalog.Catalog) (listing, error) {
			l := listing{cols: cols}
			var onID uint64
			if on != nil {
				o, name, ok := resolveName(cat, on)
				if !ok {
					return l, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
				}
				onID = o.ID
			}
			for _, o := range cat.Objects(catalog.KindIndex) {
				if onID != 0 && o.On != onID {
					continue
				}
				target, _ := cat.ByID(o.On)
				var keys []string
				for _, c := range o.Columns {
					keys = append(keys, c.Name)
				}
				l.rows = append(l.rows, types.Row{types.NewText(o.Name), types.NewText(target.Name), types.NewText("{" + strings.Join(keys, ",") + "}")})
			}
			return l, nil
		}
	case parser.ShowColumns:
		cols = []pgwire.Column{{Name: "name", Type: types.TypeText}, {Name: "nullable", Type: types.TypeBool}, {Name: "type", Type: types.TypeText}}
		from := st.From
		build = func(_ context.Context, cat *catalog.Catalog) (listing, error) {
			l := listing{cols: cols}
			o, name, ok := resolveName(cat, from)
			if !ok {
				return l, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
			}
			for _, c := range o.Columns {
				l.rows = append(l.rows, types.Row{types.NewText(c.Name), types.NewBool(!c.NotNull), types.NewText(c.Type.String())})
			}
			return l, nil
		}
	default:
		c, fn, ok := showSourceListing(st.Kind)
		if !ok {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "SHOW %s is not supported yet", st.Kind)
		}
		cols = c
		build = func(_ context.Context, cat *catalog.Catalog) (listing, error) { return fn(s.e, cat) }
	}
	filter, err := s.listingFilter(st, cols)
	if err != nil {
		return nil, err
	}
	return &boundStmt{cols: cols, catalogIndependent: true, run: func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
		l, err := build(ctx, s.e.snapshot().Catalog())
		if err != nil {
			return nil, err
		}
		var out []types.Row
		for _, r := range l.rows {
			ok, err := filter(s, r)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, r)
			}
		}
		return &rowsResult{rows: out, tag: "SHOW"}, nil
	}}, nil
}

// listingFilter compiles a listing's LIKE or WHERE clause: LIKE matches
// the first column, WHERE is an expression over the listing's columns.
func (s *session) listingFilter(st *parser.Show, cols []pgwire.Column) (func(*session, types.Row) (bool, error), error) {
	var cond string
	switch {
	case st.Like != nil:
		cond = parser.QuoteIdent(cols[0].Name) + " LIKE " + st.Like.String()
	case st.Where != nil:
		cond = st.Where.Text
	default:
		return func(*session, types.Row) (bool, error) { return true, nil }, nil
	}
	raws, err := parseQuery("SELECT " + cond)
	if err != nil {
		return nil, err
	}
	sc := newScope(nil)
	for i, c := range cols {
		sc.cols = append(sc.cols, scopeCol{name: c.Name, idx: i, typ: c.Type})
	}
	b := newBinder(catalog.New(), &s.info, nil)
	e, err := b.expr(raws[0].node.GetSelectStmt().TargetList[0].GetResTarget().Val, &exprCtx{s: sc, what: "WHERE"})
	if err != nil {
		return nil, err
	}
	if e, err = b.coerceBool(e, "WHERE", 0); err != nil {
		return nil, err
	}
	pred, err := scalar.CompilePredicate(e)
	if err != nil {
		return nil, err
	}
	return func(s *session, r types.Row) (bool, error) { return pred(s.evalContext(nil), r) }, nil
}

func (s *session) bindShowCreate(cat *catalog.Catalog, st *parser.ShowCreate) (*boundStmt, error) {
	kind, ok := objectKindOf(st.Kind)
	if !ok {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "SHOW CREATE %s is not supported yet", st.Kind)
	}
	cols := textCols("name", "create_sql")
	name := st.Name
	return &boundStmt{cols: cols, catalogIndependent: true, run: func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
		o, n, ok := resolveName(s.e.snapshot().Catalog(), name)
		if !ok {
			return nil, errUndefinedObject(kind, n)
		}
		if o.Kind != kind {
			return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a %s", n, kind)
		}
		if cat := s.e.snapshot().Catalog(); !mayDescribe(cat, s.info.role, o) {
			return nil, errPermission(o)
		}
		return &rowsResult{rows: []types.Row{{types.NewText(catalog.Qualify(o.Schema, o.Name)), types.NewText(o.SQL)}}, tag: "SHOW"}, nil
	}}, nil
}

// bindCreateDefaultIndex indexes every column of an object.
func (s *session) bindCreateDefaultIndex(cat *catalog.Catalog, raw *rawStatement, st *parser.CreateDefaultIndex) (*boundStmt, error) {
	on, name, ok := resolveName(cat, st.On)
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
	}
	if on.Kind != catalog.KindTable && on.Kind != catalog.KindMaterializedView {
		return nil, pgerr.New(pgerr.WrongObjectType, "cannot create index on %s %q", on.Kind, on.Name)
	}
	obj := &catalog.Object{Kind: catalog.KindIndex, Schema: catalog.DefaultSchema, Name: on.Name + "_primary_idx", SQL: raw.text, On: on.ID, DependsOn: []uint64{on.ID}}
	if len(on.PrimaryKey) > 0 {
		obj.KeyCols = append(obj.KeyCols, on.PrimaryKey...)
	} else {
		for i := range on.Columns {
			obj.KeyCols = append(obj.KeyCols, i)
		}
	}
	for _, k := range obj.KeyCols {
		obj.Columns = append(obj.Columns, on.Columns[k])
	}
	ifNotExists := st.IfNotExists
	return ddl("CREATE INDEX", func(ctx context.Context, s *session) error {
		return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			if taken, err := tx.NameTaken(obj.Name, ifNotExists, notice); taken || err != nil {
				return err
			}
			on, ok := tx.Catalog().ByID(obj.On)
			if !ok {
				return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
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

// bindExplainFor explains a query or a view at a chosen stage: RAW (as
// bound), DECORRELATED, OPTIMIZED (the default), or PHYSICAL / DATAFLOW
// (the operators the plan lowers to).
func (s *session) bindExplainFor(cat *catalog.Catalog, st *parser.Explain, params []types.Type) (*boundStmt, error) {
	var root planner.Node
	var q *planner.Query
	if st.Query != nil {
		raws, err := parseQuery(st.Query.Text)
		if err != nil {
			return nil, err
		}
		if len(raws) != 1 || raws[0].node == nil || raws[0].node.GetSelectStmt() == nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "EXPLAIN … FOR supports SELECT queries and views")
		}
		b := newBinder(cat, &s.info, params)
		bq, err := b.selectStmt(raws[0].node.GetSelectStmt(), nil)
		if err != nil {
			return nil, err
		}
		q, root = bq.q, bq.q.Root
	} else {
		kind, _ := objectKindOf(st.ObjectKind)
		o, name, ok := resolveName(cat, st.Object)
		if !ok {
			return nil, errUndefinedObject(kind, name)
		}
		if o.Kind != catalog.KindView && o.Kind != catalog.KindMaterializedView {
			return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a view or materialized view", name)
		}
		if !mayDescribe(cat, s.info.role, o) {
			return nil, errPermission(o)
		}
		sel, _, err := viewDefinition(o.SQL)
		if err != nil {
			return nil, err
		}
		bq, _, err := bindViewQuery(cat, sel)
		if err != nil {
			return nil, err
		}
		root = queryNode(bq.q)
		q = &planner.Query{Root: root}
	}
	var text string
	switch st.Stage {
	case parser.ExplainRaw:
		text = planner.Explain(q)
	case parser.ExplainDecorrelated:
		n, err := planner.Decorrelate(root)
		if err != nil {
			return nil, err
		}
		text = planner.Explain(&planner.Query{Root: n, Order: q.Order, Limit: q.Limit, Offset: q.Offset, Hidden: q.Hidden})
	case parser.ExplainPhysical, parser.ExplainDataflow:
		oq, err := planner.OptimizeQuery(q)
		if err != nil {
			return nil, err
		}
		text = planner.ExplainDataflow(oq)
	default:
		oq, err := planner.OptimizeQuery(q)
		if err != nil {
			return nil, err
		}
		text = planner.Explain(oq)
	}
	cols := []pgwire.Column{{Name: "QUERY PLAN", Type: types.TypeText}}
	return &boundStmt{cols: cols, run: func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
		var rows []types.Row
		for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
			rows = append(rows, types.Row{types.NewText(line)})
		}
		return &rowsResult{rows: rows, tag: "EXPLAIN"}, nil
	}}, nil
}
