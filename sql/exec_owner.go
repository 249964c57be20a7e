package sql

import (
	"context"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sql/parser"
)

// ownerKinds maps ALTER … OWNER TO's object type to the kind it changes
// and the statement's tag.
var ownerKinds = map[pg_query.ObjectType]struct {
	kind catalog.ObjectKind
	tag  string
}{
	pg_query.ObjectType_OBJECT_TABLE:    {catalog.KindTable, "ALTER TABLE"},
	pg_query.ObjectType_OBJECT_VIEW:     {catalog.KindView, "ALTER VIEW"},
	pg_query.ObjectType_OBJECT_MATVIEW:  {catalog.KindMaterializedView, "ALTER MATERIALIZED VIEW"},
	pg_query.ObjectType_OBJECT_SEQUENCE: {catalog.KindSequence, "ALTER SEQUENCE"},
}

// isOwnerChange reports whether an ALTER TABLE (VIEW, …) statement only
// changes the owner: the one form of it streamdb runs.
func isOwnerChange(at *pg_query.AlterTableStmt) bool {
	for _, c := range at.Cmds {
		if c.GetAlterTableCmd().Subtype != pg_query.AlterTableType_AT_ChangeOwner {
			return false
		}
	}
	return len(at.Cmds) == 1
}

// bindAlterOwner binds ALTER TABLE | VIEW | MATERIALIZED VIEW | SEQUENCE
// … OWNER TO (changeOwner).
func (s *session) bindAlterOwner(at *pg_query.AlterTableStmt) (*boundStmt, error) {
	k, ok := ownerKinds[at.Objtype]
	if !ok {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER … OWNER TO is not supported for this kind of object")
	}
	rv := at.Relation
	spec := at.Cmds[0].GetAlterTableCmd().Newowner
	missingOK := at.MissingOk
	b := ddl(k.tag, func(ctx context.Context, s *session) error {
		return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			cat := tx.Catalog()
			o, ok := cat.Lookup(rv.Schemaname, rv.Relname)
			if !ok {
				if missingOK {
					notice(pgerr.New(pgerr.SuccessfulCompletion, "relation %q does not exist, skipping", rv.Relname))
					return nil
				}
				return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", rv.Relname).WithPosition(loc(rv.Location))
			}
			if o.Kind != k.kind && !(k.kind == catalog.KindTable && o.Kind.Applicable() != 0 && o.Kind != catalog.KindConnection && o.Kind != catalog.KindSecret) {
				return pgerr.New(pgerr.WrongObjectType, "%q is not a %s", o.Name, k.kind)
			}
			owner, err := s.roleOf(cat, spec)
			if err != nil {
				return err
			}
			return s.changeOwner(tx, o, owner)
		})
	})
	b.catalogIndependent = true
	return b, nil
}

// bindAlterOwnerOf binds ALTER SOURCE | CONNECTION | SECRET … OWNER TO
// (changeOwner).
func (s *session) bindAlterOwnerOf(st *parser.AlterOwner) (*boundStmt, error) {
	kind, ok := objectKindOf(st.Kind)
	if st.Kind == parser.ObjectSecret {
		kind, ok = catalog.KindSecret, true
	}
	if !ok {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER %s … OWNER TO is not supported", st.Kind)
	}
	spec := &pg_query.RoleSpec{Roletype: pg_query.RoleSpecType_ROLESPEC_CSTRING, Rolename: st.Owner.Value}
	if st.Current != "" {
		spec.Roletype = pg_query.RoleSpecType_ROLESPEC_CURRENT_USER
	}
	b := ddl("ALTER "+st.Kind.String(), func(ctx context.Context, s *session) error {
		return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			cat := tx.Catalog()
			o, name, ok := resolveName(cat, st.Name)
			if !ok || o.Kind != kind {
				if st.IfExists {
					notice(pgerr.New(pgerr.SuccessfulCompletion, "%s %q does not exist, skipping", kind, name))
					return nil
				}
				return pgerr.New(pgerr.UndefinedObject, "%s %q does not exist", kind, name)
			}
			owner, err := s.roleOf(cat, spec)
			if err != nil {
				return err
			}
			return s.changeOwner(tx, o, owner)
		})
	})
	b.catalogIndependent = true
	return b, nil
}

// changeOwner makes owner the owner of o. As in PostgreSQL the session
// must own o (or be a member of its owner), be a member of the new
// owner, and the new owner must be able to create objects; superusers
// may always. The object's indexes, its serial columns' sequences and a
// source's subsources follow it, and its ACL moves to the new owner
// (catalog.NewOwnerACL).
func (s *session) changeOwner(tx *engine.DDL, o, owner *catalog.Object) error {
	cat := tx.Catalog()
	if owner.ID == o.OwnerID() {
		return nil
	}
	role := s.info.role
	if !cat.IsSuperuser(role) {
		if err := requireOwner(cat, role, o); err != nil {
			return err
		}
		if !cat.IsMemberOf(role, owner.ID) {
			return pgerr.New(pgerr.InsufficientPrivilege, "must be member of role %q", owner.Name)
		}
		if err := requireCreate(cat, owner.ID); err != nil {
			return err
		}
	}
	objs := []*catalog.Object{o}
	for _, d := range cat.Dependents(o.ID) {
		if d.Kind == catalog.KindIndex && d.On == o.ID || d.Kind == catalog.KindSequence && d.On == o.ID || d.Kind == catalog.KindSubsource && d.Source == o.ID {
			objs = append(objs, d)
		}
	}
	for _, x := range objs {
		n := *x
		n.Owner = owner.ID
		n.ACL = catalog.NewOwnerACL(x.ACL, x.OwnerID(), owner.ID)
		if err := tx.Replace(x, &n); err != nil {
			return err
		}
	}
	return nil
}
