package sql

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"time"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/sql/pgcatalog"
	"github.com/streamdb/streamdb/types"
)

// System catalogs. Package pgcatalog generates the pg_catalog and
// information_schema relations from a pgcatalog.Source; this file
// implements that Source over a published snapshot, resolves system
// relation names for the binder, feeds their rows into a query's one-tick
// dataflow, and gives evaluation its access path to the session and
// catalog (scalar.Session, types.ObjectNames), all through catalogView.

// systemRelation resolves a range variable naming a system relation. ok is
// false when the name is not one, and the binder goes on to user objects:
// an unqualified name is looked up in pg_catalog first, as PostgreSQL's
// search path does, and in mz_catalog last; information_schema only when
// qualified.
func (b *binder) systemRelation(rv *pg_query.RangeVar, alias string) (fi *fromItem, ok bool, err error) {
	schema, name := rv.Schemaname, rv.Relname
	if schema != "" && !pgcatalog.IsSystemSchema(schema) {
		return nil, false, nil
	}
	lookup := schema
	if lookup == "" {
		lookup = "pg_catalog"
	}
	t, found := pgcatalog.Lookup(lookup, name)
	if !found && schema == "" {
		// Materialize's tools name mz_catalog's relations unqualified,
		// as Materialize's search path allows; the user's own relations
		// come first.
		if _, user := b.cat.Lookup(catalog.DefaultSchema, name); !user {
			t, found = pgcatalog.Lookup("mz_catalog", name)
		}
	}
	if !found {
		if schema == "" {
			return nil, false, nil
		}
		return nil, true, pgerr.New(pgerr.UndefinedTable, "relation \"%s.%s\" does not exist", schema, name).
			WithDetail("streamdb does not provide this system catalog.").WithPosition(loc(rv.Location))
	}
	if b.inView {
		return nil, true, pgerr.New(pgerr.FeatureNotSupported, "views cannot read system catalog %s.%s", t.Schema, t.Name).WithPosition(loc(rv.Location))
	}
	if t.SuperuserOnly {
		b.requireSuperuser(t.Name)
	}
	cols := make([]planner.Column, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = planner.Column{Name: c.Name, Type: c.Type}
	}
	fi, err = aliased(&planner.Get{ID: planner.ObjectID(t.OID), Name: t.Name, Cols: cols}, alias, rv.Alias)
	return fi, true, err
}

// feedSystem pushes a system relation's rows, generated from the
// snapshot, into a one-tick input.
func (s *session) feedSystem(snap *engine.Snapshot, in *dataflow.Input, get *planner.Get) error {
	t, ok := pgcatalog.ByOID(uint32(get.ID))
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", get.Name)
	}
	rows := t.Rows(s.catalogView(snap))
	b := make(dataflow.Batch, len(rows))
	for i, r := range rows {
		b[i] = dataflow.Update{Row: r, Diff: 1}
	}
	in.Push(b)
	return nil
}

// catalogView is the session's view of one snapshot's catalog: it
// implements pgcatalog.Source, scalar.Session and types.ObjectNames.
// Relations are converted from catalog objects once per catalog version:
// a view of the latest snapshot lives as long as its session and must
// see the session's own DDL.
type catalogView struct {
	s    *session
	snap *engine.Snapshot

	mu      sync.Mutex
	version uint64 // of the catalog rels were built from; 0 before
	rels    []*pgcatalog.Relation
	byOID   map[uint32]*pgcatalog.Relation
}

var (
	_ pgcatalog.Source  = (*catalogView)(nil)
	_ scalar.Session    = (*catalogView)(nil)
	_ types.ObjectNames = (*catalogView)(nil)
)

// catalogView returns a view of snap, or of the latest snapshot when snap
// is nil (for name lookups, which follow the catalog as it is now).
func (s *session) catalogView(snap *engine.Snapshot) *catalogView {
	return &catalogView{s: s, snap: snap}
}

func (v *catalogView) snapshot() *engine.Snapshot {
	if v.snap != nil {
		return v.snap
	}
	return v.s.e.snapshot()
}

// load returns the relations of the current catalog, by OID too.
func (v *catalogView) load() ([]*pgcatalog.Relation, map[uint32]*pgcatalog.Relation) {
	cat := v.snapshot().Catalog()
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.byOID != nil && v.version == cat.Version {
		return v.rels, v.byOID
	}
	v.version, v.rels, v.byOID = cat.Version, nil, map[uint32]*pgcatalog.Relation{}
	for o := range cat.All() {
		if o.Kind == catalog.KindRole || o.Kind == catalog.KindDatabase {
			continue
		}
		r := relationOf(cat, o)
		r.DefinitionHidden = !mayDescribe(cat, v.s.info.role, o)
		v.rels = append(v.rels, r)
		v.byOID[r.OID] = r
	}
	for _, r := range v.rels {
		if t, ok := v.byOID[r.On]; ok && r.Kind == pgcatalog.KindSequence {
			r.OwnedBy = ownerColumn(t, r.Name)
		}
	}
	return v.rels, v.byOID
}

// ownerColumn is the 1-based position of the column of t whose serial or
// identity default draws from the sequence seq, 0 if none does.
func ownerColumn(t *pgcatalog.Relation, seq string) int {
	for i, c := range t.Columns {
		if c.Default == nextvalDefault(seq) {
			return i + 1
		}
	}
	return 0
}

// relationOf describes a catalog object for pgcatalog.
func relationOf(cat *catalog.Catalog, o *catalog.Object) *pgcatalog.Relation {
	r := &pgcatalog.Relation{OID: uint32(o.ID), Schema: o.Schema, Name: o.Name, PrimaryKey: o.PrimaryKey,
		On: uint32(o.On), KeyCols: o.KeyCols, Unique: o.Unique, Constraint: o.Constraint,
		Owner: uint32(o.OwnerID()), ACL: cat.ACLText(o)}
	switch o.Kind {
	case catalog.KindTable:
		r.Kind = pgcatalog.KindTable
	case catalog.KindView:
		r.Kind = pgcatalog.KindView
	case catalog.KindMaterializedView:
		r.Kind = pgcatalog.KindMaterializedView
	case catalog.KindIndex:
		r.Kind = pgcatalog.KindIndex
	case catalog.KindSequence:
		r.Kind = pgcatalog.KindSequence
	case catalog.KindSource, catalog.KindSubsource:
		// A relation a source fills reads as a table (psql's \d lists
		// it), one that takes no writes.
		if o.HasRows() {
			r.Kind, r.ReadOnly = pgcatalog.KindTable, true
		}
	}
	for _, c := range o.Columns {
		r.Columns = append(r.Columns, pgcatalog.Attribute{Name: c.Name, Type: c.Type, NotNull: c.NotNull, Default: c.Default, Identity: c.Identity})
	}
	for _, c := range o.Checks {
		r.Checks = append(r.Checks, pgcatalog.Check{Name: c.Name, Expr: c.Expr})
	}
	if o.Kind == catalog.KindView || o.Kind == catalog.KindMaterializedView {
		r.ViewDef = viewQueryText(o.SQL)
	}
	r.MzType, r.MzSourceType = mzTypes(o)
	if s := o.Sequence; s != nil {
		r.Sequence = &pgcatalog.Sequence{Type: storedSequenceType(o.SQL), Start: s.Start, Increment: s.Increment,
			Min: s.Min, Max: s.Max, Cycle: s.Cycle}
	}
	return r
}

// mzTypes are an object's types in mz_catalog's mz_objects and
// mz_sources, as Materialize names them.
func mzTypes(o *catalog.Object) (object, source string) {
	switch o.Kind {
	case catalog.KindTable:
		return "table", ""
	case catalog.KindView:
		return "view", ""
	case catalog.KindMaterializedView:
		return "materialized-view", ""
	case catalog.KindIndex:
		return "index", ""
	case catalog.KindConnection:
		return "connection", ""
	case catalog.KindSecret:
		return "secret", ""
	case catalog.KindSubsource:
		if o.Role == "progress" {
			return "source", "progress"
		}
		return "source", "subsource"
	case catalog.KindSource:
		sqlText := strings.ToUpper(o.SQL)
		for _, c := range []struct{ syntax, typ string }{
			{"FROM KAFKA", "kafka"}, {"FROM POSTGRES", "postgres"}, {"FROM LOAD GENERATOR", "load-generator"},
		} {
			if strings.Contains(sqlText, c.syntax) {
				return "source", c.typ
			}
		}
		return "source", ""
	}
	return "", ""
}

// viewQueryText extracts the defining query from a view's CREATE
// statement, as PostgreSQL's deparser prints it.
func viewQueryText(sqlText string) string {
	sel, _, err := viewDefinition(sqlText)
	if err != nil {
		return sqlText
	}
	text, err := deparse(&pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sel}})
	if err != nil {
		return sqlText
	}
	return text
}

// Relations implements pgcatalog.Source.
func (v *catalogView) Relations() []*pgcatalog.Relation {
	rels, _ := v.load()
	return rels
}

// Relation implements pgcatalog.Source.
func (v *catalogView) Relation(oid uint32) (*pgcatalog.Relation, bool) {
	_, byOID := v.load()
	r, ok := byOID[oid]
	return r, ok
}

// RelationByName implements pgcatalog.Source.
func (v *catalogView) RelationByName(schema, name string) (*pgcatalog.Relation, bool) {
	o, ok := v.snapshot().Catalog().Lookup(schema, name)
	if !ok {
		return nil, false
	}
	return v.Relation(uint32(o.ID))
}

// Settings implements pgcatalog.Source.
func (v *catalogView) Settings() []pgcatalog.Setting { return v.s.info.settings.catalogSettings() }

// Activity implements pgcatalog.Source: one row per open session.
func (v *catalogView) Activity() []pgcatalog.Activity {
	e := v.s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]pgcatalog.Activity, 0, len(e.sessions))
	for pid, s := range e.sessions {
		state := "idle"
		switch {
		case s == v.s:
			state = "active"
		case s.txn != nil && !s.txn.implicit:
			state = "idle in transaction"
		}
		app, _ := s.info.settings.get("application_name")
		out = append(out, pgcatalog.Activity{PID: int32(pid), Database: s.info.database, User: s.info.user,
			ApplicationName: app, BackendStart: s.started, State: state})
	}
	return out
}

// Database implements pgcatalog.Source and scalar.Session.
func (v *catalogView) Database() string { return v.s.info.database }

// User implements pgcatalog.Source.
func (v *catalogView) User() string { return v.s.info.user }

// Roles implements pgcatalog.Source.
func (v *catalogView) Roles() []*pgcatalog.Role {
	cat := v.snapshot().Catalog()
	roles := cat.Roles()
	out := make([]*pgcatalog.Role, 0, len(roles))
	for _, o := range roles {
		d := o.RoleDef
		r := &pgcatalog.Role{OID: uint32(o.ID), Name: o.Name, Super: d.Super, Inherit: d.Inherit, CreateRole: d.CreateRole,
			CreateDB: d.CreateDB, Login: d.Login, Replication: d.Replication, BypassRLS: d.BypassRLS, ConnLimit: d.ConnLimit,
			Password: d.Password}
		if d.ValidUntil != 0 {
			r.ValidUntil = time.UnixMicro(d.ValidUntil)
		}
		for _, m := range d.MemberOf {
			r.MemberOf = append(r.MemberOf, pgcatalog.Membership{Role: uint32(m.Role), Grantor: uint32(m.Grantor), Admin: m.Admin})
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *pgcatalog.Role) int { return cmp.Compare(a.OID, b.OID) })
	return out
}

// DatabaseOwner implements pgcatalog.Source.
func (v *catalogView) DatabaseOwner() uint32 {
	if db, ok := v.snapshot().Catalog().Database(); ok {
		return uint32(db.OwnerID())
	}
	return uint32(catalog.BootstrapRoleID)
}

// DatabaseACL implements pgcatalog.Source.
func (v *catalogView) DatabaseACL() []string {
	cat := v.snapshot().Catalog()
	if db, ok := cat.Database(); ok {
		return cat.ACLText(db)
	}
	return nil
}

// ObjectName implements types.ObjectNames.
func (v *catalogView) ObjectName(f types.Family, oid uint32) (string, bool) {
	return pgcatalog.ObjectName(v, f, oid)
}

// ObjectOID implements types.ObjectNames.
func (v *catalogView) ObjectOID(f types.Family, name string) (uint32, error) {
	return pgcatalog.ObjectOID(v, f, name)
}

// Setting implements scalar.Session.
func (v *catalogView) Setting(name string, missingOK bool) (string, bool, error) {
	val, ok := v.s.info.settings.get(settingName(name))
	if !ok {
		if missingOK {
			return "", false, nil
		}
		return "", false, pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter %q", name)
	}
	return val, true, nil
}

// SetSetting implements scalar.Session (set_config). A transaction-local
// change lasts for the session, as streamdb keeps no per-transaction
// settings.
func (v *catalogView) SetSetting(name, value string, local bool) (string, error) {
	s := v.s
	old := s.info.settings
	next, def, err := old.set(settingName(name), value, false)
	if err != nil {
		return "", err
	}
	s.info.settings = next
	if def.reported {
		s.reportChanges(old)
	}
	val, _ := next.get(def.name)
	return val, nil
}

// BackendPID implements scalar.Session.
func (v *catalogView) BackendPID() int32 { return int32(v.s.pid) }

// ServerStart implements scalar.Session.
func (v *catalogView) ServerStart() time.Time { return v.s.e.started }

// TxnID implements scalar.Session: transactions are identified by their
// start time in microseconds, unique per session and stable for the
// transaction's duration.
func (v *catalogView) TxnID() int64 {
	if v.s.txn != nil && !v.s.txn.start.IsZero() {
		return v.s.txn.start.UnixMicro()
	}
	return time.Now().UnixMicro()
}

// Describe implements scalar.Session.
func (v *catalogView) Describe(fn string, oid uint32, arg int) (string, bool) {
	switch fn {
	case "pg_get_viewdef":
		return pgcatalog.ViewDef(v, oid)
	case "pg_get_indexdef":
		return pgcatalog.IndexDef(v, oid, arg)
	case "pg_get_constraintdef":
		return pgcatalog.ConstraintDef(v, oid)
	case "pg_get_userbyid":
		return pgcatalog.UserName(v, oid), true
	case "pg_get_function_result":
		return pgcatalog.FunctionResult(oid)
	case "pg_get_function_arguments", "pg_get_function_identity_arguments":
		return pgcatalog.FunctionArguments(oid)
	}
	return "", false
}

// Visible implements scalar.Session.
func (v *catalogView) Visible(catalog, oid uint32) (bool, bool) {
	return pgcatalog.Visible(v, catalog, oid)
}

// Exists implements scalar.Session.
func (v *catalogView) Exists(catalog, oid uint32) bool { return pgcatalog.Exists(v, catalog, oid) }

// isSystemID reports whether an object id is a system relation's.
func isSystemID(id uint64) bool { return id < catalog.FirstUserID }
