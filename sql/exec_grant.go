package sql

import (
	"context"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sql/parser"
)

// GRANT and REVOKE of privileges on objects. Each changes the ACL of the
// objects it names (catalog.WithGrant, catalog.WithRevoke), replacing
// them in one catalog change. As in PostgreSQL, the owner (or a
// superuser) grants as the owner; another role grants what it holds WITH
// GRANT OPTION, as itself; a role that may grant none of what it asks
// gets a warning when it holds some privilege on the object and an error
// otherwise.

// grantSpec is one GRANT or REVOKE resolved from either grammar.
type grantSpec struct {
	revoke bool
	// privs holds the privileges named; all is ALL [PRIVILEGES].
	privs []string
	all   bool
	// grantOption is WITH GRANT OPTION, or REVOKE's GRANT OPTION FOR.
	grantOption bool
	grantees    []granteeSpec
	cascade     bool
	// targets finds the objects in the catalog the change applies to.
	targets func(cat *catalog.Catalog) ([]*catalog.Object, error)
	// what names the objects' kind for privilege errors ("table").
	what string
}

// granteeSpec is a grantee: a role name, PUBLIC, or the session's role.
type granteeSpec struct {
	public  bool
	current bool
	name    string
}

func (s *session) bindGrant(gs *pg_query.GrantStmt) (*boundStmt, error) {
	spec := &grantSpec{revoke: !gs.IsGrant, grantOption: gs.GrantOption, all: len(gs.Privileges) == 0,
		cascade: gs.Behavior == pg_query.DropBehavior_DROP_CASCADE}
	for _, p := range gs.Privileges {
		ap := p.GetAccessPriv()
		if len(ap.Cols) > 0 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "column privileges are not supported")
		}
		spec.privs = append(spec.privs, ap.PrivName)
	}
	for _, g := range gs.Grantees {
		gr, err := granteeOf(g.GetRoleSpec())
		if err != nil {
			return nil, err
		}
		spec.grantees = append(spec.grantees, gr)
	}
	if gs.Grantor != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "GRANTED BY is not supported")
	}
	switch gs.Targtype {
	case pg_query.GrantTargetType_ACL_TARGET_OBJECT:
	case pg_query.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA:
		return s.bindGrantAll(gs, spec)
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER DEFAULT PRIVILEGES is not supported")
	}
	switch gs.Objtype {
	case pg_query.ObjectType_OBJECT_TABLE, pg_query.ObjectType_OBJECT_SEQUENCE:
		seq := gs.Objtype == pg_query.ObjectType_OBJECT_SEQUENCE
		var rvs []*pg_query.RangeVar
		for _, o := range gs.Objects {
			rvs = append(rvs, o.GetRangeVar())
		}
		spec.what = "table"
		if seq {
			spec.what = "sequence"
		}
		spec.targets = func(cat *catalog.Catalog) ([]*catalog.Object, error) {
			var out []*catalog.Object
			for _, rv := range rvs {
				o, ok := cat.Lookup(rv.Schemaname, rv.Relname)
				if !ok {
					return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", rv.Relname).WithPosition(loc(rv.Location))
				}
				switch {
				case seq && o.Kind != catalog.KindSequence:
					return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a sequence", o.Name)
				case o.Kind.Applicable() == 0 || o.Kind == catalog.KindConnection || o.Kind == catalog.KindSecret:
					return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a table", o.Name)
				}
				out = append(out, o)
			}
			return out, nil
		}
	case pg_query.ObjectType_OBJECT_DATABASE:
		spec.what = "database"
		spec.targets = databaseTarget
	case pg_query.ObjectType_OBJECT_SCHEMA:
		return s.bindGrantSchema(gs, spec)
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "GRANT and REVOKE on this kind of object are not supported")
	}
	return s.grantStatement(spec), nil
}

// databaseTarget is the database, whatever name the statement gives it:
// streamdb has one, which answers to every name.
func databaseTarget(cat *catalog.Catalog) ([]*catalog.Object, error) {
	db, ok := cat.Database()
	if !ok {
		return nil, pgerr.New(pgerr.InternalError, "the catalog has no database object")
	}
	return []*catalog.Object{db}, nil
}

// bindGrantAll binds GRANT … ON ALL TABLES | SEQUENCES IN SCHEMA public.
func (s *session) bindGrantAll(gs *pg_query.GrantStmt, spec *grantSpec) (*boundStmt, error) {
	for _, o := range gs.Objects {
		if name := o.GetString_().Sval; name != catalog.DefaultSchema {
			return nil, pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", name)
		}
	}
	var kinds []catalog.ObjectKind
	switch gs.Objtype {
	case pg_query.ObjectType_OBJECT_TABLE:
		spec.what = "table"
		kinds = []catalog.ObjectKind{catalog.KindTable, catalog.KindView, catalog.KindMaterializedView, catalog.KindSource, catalog.KindSubsource}
	case pg_query.ObjectType_OBJECT_SEQUENCE:
		spec.what = "sequence"
		kinds = []catalog.ObjectKind{catalog.KindSequence}
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "GRANT and REVOKE on all objects of this kind are not supported")
	}
	spec.targets = func(cat *catalog.Catalog) ([]*catalog.Object, error) {
		var out []*catalog.Object
		for _, k := range kinds {
			for _, o := range cat.Objects(k) {
				if k == catalog.KindSource && len(o.Columns) == 0 {
					continue
				}
				out = append(out, o)
			}
		}
		return out, nil
	}
	return s.grantStatement(spec), nil
}

// bindGrantSchema binds GRANT … ON SCHEMA public: CREATE there is CREATE
// on the database, which stands for it; USAGE every role holds.
func (s *session) bindGrantSchema(gs *pg_query.GrantStmt, spec *grantSpec) (*boundStmt, error) {
	for _, o := range gs.Objects {
		if name := o.GetString_().Sval; name != catalog.DefaultSchema {
			if name == "pg_catalog" || name == "information_schema" {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "privileges on schema %s cannot be changed", name)
			}
			return nil, pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", name)
		}
	}
	var privs []string
	for _, p := range spec.privs {
		switch strings.ToLower(p) {
		case "create":
			privs = append(privs, p)
		case "usage":
			if spec.revoke {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "USAGE on schema public cannot be revoked: it is the one schema every role works in")
			}
		default:
			return nil, pgerr.New(pgerr.InvalidGrantOperation, "invalid privilege type %s for schema", strings.ToUpper(p))
		}
	}
	if spec.all {
		privs, spec.all = []string{"create"}, false
	}
	spec.privs, spec.what, spec.targets = privs, "schema", databaseTarget
	return s.grantStatement(spec), nil
}

// bindGrantUsage binds GRANT and REVOKE on connections and secrets.
func (s *session) bindGrantUsage(st *parser.Grant) (*boundStmt, error) {
	kind, ok := objectKindOf(st.Kind)
	if !ok && st.Kind == parser.ObjectSecret {
		kind, ok = catalog.KindSecret, true
	}
	if !ok {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "GRANT on %s is not supported", st.Kind)
	}
	spec := &grantSpec{revoke: st.Revoke, grantOption: st.GrantOption, all: st.Privileges == nil,
		cascade: st.Behavior == parser.DropCascade, what: kind.String()}
	for _, p := range st.Privileges {
		spec.privs = append(spec.privs, p.Value)
	}
	for _, g := range st.Grantees {
		spec.grantees = append(spec.grantees, granteeSpec{public: g.Public, name: g.Role.Value})
	}
	names := st.Objects
	spec.targets = func(cat *catalog.Catalog) ([]*catalog.Object, error) {
		var out []*catalog.Object
		for _, n := range names {
			o, name, ok := resolveName(cat, n)
			if !ok || o.Kind != kind {
				return nil, pgerr.New(pgerr.UndefinedObject, "%s %q does not exist", kind, name)
			}
			out = append(out, o)
		}
		return out, nil
	}
	return s.grantStatement(spec), nil
}

// granteeOf resolves a RoleSpec of GRANT's grantee list.
func granteeOf(rs *pg_query.RoleSpec) (granteeSpec, error) {
	switch rs.Roletype {
	case pg_query.RoleSpecType_ROLESPEC_PUBLIC:
		return granteeSpec{public: true}, nil
	case pg_query.RoleSpecType_ROLESPEC_CSTRING:
		return granteeSpec{name: rs.Rolename}, nil
	case pg_query.RoleSpecType_ROLESPEC_CURRENT_USER, pg_query.RoleSpecType_ROLESPEC_SESSION_USER, pg_query.RoleSpecType_ROLESPEC_CURRENT_ROLE:
		return granteeSpec{current: true}, nil
	}
	return granteeSpec{}, pgerr.New(pgerr.FeatureNotSupported, "this grantee is not supported")
}

// resolve returns the grantee's role id (catalog.Public for PUBLIC).
func (g granteeSpec) resolve(cat *catalog.Catalog, role uint64) (uint64, error) {
	switch {
	case g.public:
		return catalog.Public, nil
	case g.current:
		return role, nil
	}
	r, ok := cat.LookupRole(g.name)
	if !ok {
		return 0, pgerr.New(pgerr.UndefinedObject, "role %q does not exist", g.name)
	}
	return r.ID, nil
}

// privileges resolves the privilege names against what objects of the
// kind take: ALL is all of them; a name that does not apply is an error
// (for a sequence named through TABLE, a warning, as in PostgreSQL).
func (spec *grantSpec) privileges(o *catalog.Object, notice func(*pgerr.Error)) (catalog.Privileges, error) {
	all := o.Kind.Applicable()
	if spec.all {
		return all, nil
	}
	var p catalog.Privileges
	for _, name := range spec.privs {
		priv, ok := catalog.PrivilegeByName(name)
		if !ok || priv&all == 0 {
			if ok && o.Kind == catalog.KindSequence && spec.what == "table" {
				notice(&pgerr.Error{Severity: "WARNING", Code: pgerr.Warning,
					Message: "sequence \"" + o.Name + "\" only supports USAGE, SELECT, and UPDATE privileges"})
				continue
			}
			return 0, pgerr.New(pgerr.InvalidGrantOperation, "invalid privilege type %s for %s", strings.ToUpper(name), spec.what)
		}
		p |= priv
	}
	return p, nil
}

func (s *session) grantStatement(spec *grantSpec) *boundStmt {
	tag := "GRANT"
	if spec.revoke {
		tag = "REVOKE"
	}
	b := ddl(tag, func(ctx context.Context, s *session) error {
		return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			cat := tx.Catalog()
			objs, err := spec.targets(cat)
			if err != nil {
				return err
			}
			var grantees []uint64
			for _, g := range spec.grantees {
				id, err := g.resolve(cat, s.info.role)
				if err != nil {
					return err
				}
				grantees = append(grantees, id)
			}
			for _, o := range objs {
				if err := s.changeACL(tx, o, spec, grantees, notice); err != nil {
					return err
				}
			}
			return nil
		})
	})
	b.catalogIndependent = true
	return b
}

// changeACL applies one GRANT or REVOKE to one object.
func (s *session) changeACL(tx *engine.DDL, o *catalog.Object, spec *grantSpec, grantees []uint64, notice func(*pgerr.Error)) error {
	cat := tx.Catalog()
	role := s.info.role
	asked, err := spec.privileges(o, notice)
	if err != nil {
		return err
	}
	grantor := role
	if cat.HasPrivsOf(role, o.OwnerID()) {
		grantor = o.OwnerID()
	}
	may := cat.GrantOptions(role, o)
	privs := asked & may
	if privs != asked {
		what := spec.what
		if what == "table" || what == "sequence" {
			what = o.Kind.String()
		}
		if may == 0 && cat.Privileges(role, o) == 0 {
			return pgerr.New(pgerr.InsufficientPrivilege, "permission denied for %s %s", what, o.Name)
		}
		switch {
		case spec.revoke && privs == 0:
			notice(&pgerr.Error{Severity: "WARNING", Code: pgerr.PrivilegeNotRevoked, Message: "no privileges could be revoked for \"" + o.Name + "\""})
		case spec.revoke:
			notice(&pgerr.Error{Severity: "WARNING", Code: pgerr.PrivilegeNotRevoked, Message: "not all privileges could be revoked for \"" + o.Name + "\""})
		case privs == 0:
			notice(&pgerr.Error{Severity: "WARNING", Code: pgerr.PrivilegeNotGranted, Message: "no privileges were granted for \"" + o.Name + "\""})
		default:
			notice(&pgerr.Error{Severity: "WARNING", Code: pgerr.PrivilegeNotGranted, Message: "not all privileges were granted for \"" + o.Name + "\""})
		}
		if privs == 0 {
			return nil
		}
	}
	acl := o.EffectiveACL()
	for _, g := range grantees {
		if spec.revoke {
			if acl, err = revokeFrom(acl, g, grantor, privs, spec.grantOption, spec.cascade); err != nil {
				return err
			}
			continue
		}
		if spec.grantOption && g == catalog.Public {
			return pgerr.New(pgerr.InvalidGrantOperation, "grant options can only be granted to roles")
		}
		acl = catalog.WithGrant(acl, g, grantor, privs, spec.grantOption)
	}
	n := *o
	n.ACL = acl
	return tx.Replace(o, &n)
}

// revokeFrom revokes privs (or only the right to grant them on) that
// grantor gave grantee, and what grantee granted on from them: with
// CASCADE those grants are revoked too, without it they are an error,
// as in PostgreSQL.
func revokeFrom(acl []catalog.Grant, grantee, grantor uint64, privs catalog.Privileges, optionsOnly, cascade bool) ([]catalog.Grant, error) {
	held := catalog.Privileges(0)
	for _, g := range acl {
		if g.Grantee == grantee && g.Grantor == grantor {
			held = g.Options
		}
	}
	acl = catalog.WithRevoke(acl, grantee, grantor, privs, optionsOnly)
	lost := held & privs
	if lost == 0 || grantee == catalog.Public {
		return acl, nil
	}
	for _, g := range acl {
		if g.Grantor != grantee || g.Privs&lost == 0 {
			continue
		}
		if !cascade {
			return nil, pgerr.New(pgerr.DependentObjectsStillExist, "dependent privileges exist").
				WithHint("Use CASCADE to revoke them too.")
		}
		var err error
		if acl, err = revokeFrom(acl, g.Grantee, grantee, lost, false, true); err != nil {
			return nil, err
		}
	}
	return acl, nil
}
